// A flow (stream `<siteId>/flow/<id>`): its content, versioned on every change (the handler validated
// the graph and the cron, and computed the next run); its webhook token's hash; and the firing of its
// schedule, which happens once per due time: only an active schedule flow whose time has come fires.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type FlowContent, type FlowEvent, flowEventSchemas } from './events.ts';

export type FlowCommand =
  | { type: 'createFlow'; flowId: string; ownerId: string | null; flow: FlowContent; nextRunAt: string | null }
  | { type: 'updateFlow'; flow: FlowContent; nextRunAt: string | null }
  | { type: 'deleteFlow' }
  | { type: 'setToken'; tokenHash: string }
  | { type: 'clearToken' }
  | { type: 'fireSchedule'; runId: string; now: string; nextRunAt: string | null };

export interface FlowState {
  status: 'absent' | 'present' | 'deleted';
  flowId: string | null;
  version: number;
  flow: FlowContent | null;
  nextRunAt: string | null;
  hasToken: boolean;
}

function changedKeys(before: FlowContent, after: FlowContent): string[] {
  return (Object.keys(after) as (keyof FlowContent)[]).filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key])).sort();
}

export const flowDecider: Decider<FlowState, FlowCommand, FlowEvent> = {
  eventTypes: eventTypesOf(flowEventSchemas),
  initialState: () => ({ status: 'absent', flowId: null, version: 0, flow: null, nextRunAt: null, hasToken: false }),
  evolve(state, event) {
    switch (event.type) {
      case 'flow.created':
        return { ...state, status: 'present', flowId: event.data.flowId, version: event.data.version, flow: event.data.flow, nextRunAt: event.data.nextRunAt };
      case 'flow.updated':
        return { ...state, version: event.data.version, flow: event.data.flow, nextRunAt: event.data.nextRunAt };
      case 'flow.deleted':
        return { ...state, status: 'deleted' };
      case 'flow.token_set':
        return { ...state, hasToken: true };
      case 'flow.token_cleared':
        return { ...state, hasToken: false };
      case 'flow.schedule_fired':
        return { ...state, nextRunAt: event.data.nextRunAt };
    }
  },
  decide(command, state) {
    if (command.type === 'createFlow') {
      if (state.status !== 'absent') throw new AppError('CONFLICT', 'The flow already exists');
      const { flowId, ownerId, flow, nextRunAt } = command;
      return [{ type: 'flow.created', data: { flowId, ownerId, version: 1, flow, nextRunAt } }];
    }
    if (state.status !== 'present') throw new AppError('NOT_FOUND', 'Flow not found');
    const flowId = state.flowId!;
    switch (command.type) {
      case 'updateFlow': {
        const changed = changedKeys(state.flow!, command.flow);
        if (changed.length === 0 && command.nextRunAt === state.nextRunAt) return [];
        return [{ type: 'flow.updated', data: { flowId, version: state.version + 1, flow: command.flow, changed, nextRunAt: command.nextRunAt } }];
      }
      case 'deleteFlow':
        return [{ type: 'flow.deleted', data: { flowId } }];
      case 'setToken':
        return [{ type: 'flow.token_set', data: { flowId, tokenHash: command.tokenHash } }];
      case 'clearToken':
        return state.hasToken ? [{ type: 'flow.token_cleared', data: { flowId } }] : [];
      case 'fireSchedule': {
        const flow = state.flow!;
        const due = flow.status === 'active' && flow.trigger === 'schedule' && state.nextRunAt !== null && state.nextRunAt <= command.now;
        if (!due) return [];
        return [{ type: 'flow.schedule_fired', data: { flowId, dueAt: state.nextRunAt!, runId: command.runId, nextRunAt: command.nextRunAt } }];
      }
    }
  },
};
