// An intent (docs/agent-goals.md, stream `<siteId>/agent-intent/<id>`): what a group of goals is for,
// with the agent role that serves it. The kill switch's scope `intent` freezes its goals' skill calls.
// Open until closed, once; a closed intent takes no change and no new goal.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { intentEventSchemas, type IntentEvent } from './agentWorkEvents.ts';

export interface IntentContent {
  title: string;
  description: string | null;
  role: string | null;
}

export type IntentCommand =
  | { type: 'createIntent'; intentId: string; content: IntentContent; createdBy: string | null }
  | { type: 'updateIntent'; changes: Partial<IntentContent> }
  | { type: 'closeIntent'; closedBy: string | null; reason: string | null };

export interface IntentState {
  status: 'absent' | 'open' | 'closed';
  intentId: string | null;
  content: IntentContent | null;
}

export const intentDecider: Decider<IntentState, IntentCommand, IntentEvent> = {
  eventTypes: eventTypesOf(intentEventSchemas),
  initialState: () => ({ status: 'absent', intentId: null, content: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'agent_intent.created':
      case 'agent_intent.updated': {
        const { title, description, role } = event.data;
        return { status: state.status === 'absent' ? 'open' : state.status, intentId: event.data.intentId, content: { title, description, role } };
      }
      case 'agent_intent.closed':
        return { ...state, status: 'closed' };
    }
  },
  decide(command, state) {
    if (command.type === 'createIntent') {
      if (state.status !== 'absent') throw new AppError('CONFLICT', 'The intent exists');
      return [{ type: 'agent_intent.created', data: { intentId: command.intentId, ...command.content, createdBy: command.createdBy } }];
    }
    if (state.status === 'absent') throw new AppError('NOT_FOUND', 'Intent not found');
    if (state.status === 'closed') throw new AppError('CONFLICT', 'The intent is closed', { extensions: { status: 'closed' } });
    const intentId = state.intentId!;
    if (command.type === 'closeIntent') return [{ type: 'agent_intent.closed', data: { intentId, closedBy: command.closedBy, reason: command.reason } }];
    const before = state.content!;
    const after: IntentContent = { ...before, ...command.changes };
    const changed = (Object.keys(after) as (keyof IntentContent)[]).filter((key) => after[key] !== before[key]).sort();
    if (changed.length === 0) return [];
    return [{ type: 'agent_intent.updated', data: { intentId, ...after, changed } }];
  },
};
