// A compliance report (stream `<siteId>/report/<id>`): requested → running → completed | failed. The
// worker's commands on a report that is already finished record nothing (a job that runs again).
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type ReportEvent, reportEventSchemas, type ReportParams, type ReportStatus } from './events.ts';

type Completed = Omit<Extract<ReportEvent, { type: 'report.completed' }>['data'], 'reportId'>;

export type ReportCommand =
  | { type: 'requestReport'; reportId: string; params: ReportParams }
  | { type: 'startReport'; total: number }
  | { type: 'recordProgress'; entries: number }
  | { type: 'completeReport'; outcome: Completed }
  | { type: 'failReport'; error: string };

export interface ReportState {
  status: 'absent' | ReportStatus;
  reportId: string | null;
  attempts: number;
  total: number;
  entries: number;
}

/** Longest error message a failed report keeps. */
export const MAX_REPORT_ERROR_LENGTH = 1_000;

export const reportDecider: Decider<ReportState, ReportCommand, ReportEvent> = {
  eventTypes: eventTypesOf(reportEventSchemas),
  initialState: () => ({ status: 'absent', reportId: null, attempts: 0, total: 0, entries: 0 }),
  evolve(state, event) {
    switch (event.type) {
      case 'report.requested':
        return { ...state, status: 'queued', reportId: event.data.reportId };
      case 'report.started':
        return { ...state, status: 'running', attempts: event.data.attempt, total: event.data.total, entries: 0 };
      case 'report.progressed':
        return { ...state, entries: event.data.entries };
      case 'report.completed':
        return { ...state, status: 'completed', entries: event.data.entries };
      case 'report.failed':
        return { ...state, status: 'failed' };
    }
  },
  decide(command, state) {
    const reportId = state.reportId!;
    switch (command.type) {
      case 'requestReport':
        if (state.status !== 'absent') throw new AppError('CONFLICT', 'This report exists already');
        return [{ type: 'report.requested', data: { reportId: command.reportId, params: command.params } }];
      case 'startReport':
        // Running: the job that built it stopped with its instance; this one starts it over.
        if (state.status !== 'queued' && state.status !== 'running') return [];
        return [{ type: 'report.started', data: { reportId, attempt: state.attempts + 1, total: command.total } }];
      case 'recordProgress':
        if (state.status !== 'running' || command.entries <= state.entries) return [];
        return [{ type: 'report.progressed', data: { reportId, entries: command.entries, total: state.total } }];
      case 'completeReport':
        if (state.status !== 'running') return [];
        return [{ type: 'report.completed', data: { reportId, ...command.outcome } }];
      case 'failReport':
        if (state.status !== 'queued' && state.status !== 'running') return [];
        return [{ type: 'report.failed', data: { reportId, error: command.error.slice(0, MAX_REPORT_ERROR_LENGTH) } }];
    }
  },
};
