// A run of a flow (stream `<siteId>/flow-run/<runId>`): queued once (an event trigger's run id is
// derived from the event and the flow, so a second queuing of it is refused), started once, its steps
// in order, finished once.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type FlowRunEvent, flowRunEventSchemas } from './events.ts';

type Queued = Extract<FlowRunEvent, { type: 'flow_run.queued' }>['data'];
type Step = Omit<Extract<FlowRunEvent, { type: 'flow_run.step_recorded' }>['data'], 'runId' | 'flowId' | 'seq'>;

export type FlowRunCommand =
  | { type: 'queueRun'; run: Queued }
  | { type: 'startRun' }
  | { type: 'recordStep'; step: Step }
  | { type: 'finishRun'; status: 'succeeded' | 'failed'; error: string | null };

export interface FlowRunState {
  status: 'absent' | 'queued' | 'running' | 'finished';
  runId: string | null;
  flowId: string | null;
  steps: number;
}

export const flowRunDecider: Decider<FlowRunState, FlowRunCommand, FlowRunEvent> = {
  eventTypes: eventTypesOf(flowRunEventSchemas),
  initialState: () => ({ status: 'absent', runId: null, flowId: null, steps: 0 }),
  evolve(state, event) {
    switch (event.type) {
      case 'flow_run.queued':
        return { ...state, status: 'queued', runId: event.data.runId, flowId: event.data.flowId };
      case 'flow_run.started':
        return { ...state, status: 'running' };
      case 'flow_run.step_recorded':
        return { ...state, steps: state.steps + 1 };
      case 'flow_run.finished':
        return { ...state, status: 'finished' };
    }
  },
  decide(command, state) {
    const ids = { runId: state.runId!, flowId: state.flowId! };
    switch (command.type) {
      case 'queueRun':
        if (state.status !== 'absent') throw new AppError('CONFLICT', 'This run is already queued');
        return [{ type: 'flow_run.queued', data: command.run }];
      case 'startRun':
        // A job that runs again (a lost lease, a retry) finds its run started or finished: nothing to record.
        return state.status === 'queued' ? [{ type: 'flow_run.started', data: ids }] : [];
      case 'recordStep':
        if (state.status !== 'running') return [];
        return [{ type: 'flow_run.step_recorded', data: { ...ids, seq: state.steps + 1, ...command.step } }];
      case 'finishRun':
        if (state.status === 'finished' || state.status === 'absent') return [];
        return [{ type: 'flow_run.finished', data: { ...ids, status: command.status, error: command.error } }];
    }
  },
};
