// A staged action (docs/agent-goals.md, stream `<siteId>/agent-staged/<id>`): a write an agent of
// autonomy `stage` asked for, held until its veto window ends. A person may veto it while it waits;
// then the scheduler starts it once (a start after a veto, or a second start, decides nothing) and
// records how it ended. A vetoed action never runs; a started one can no longer be vetoed.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { stagedActionEventSchemas, type StagedActionEvent, type StagedStatus } from './agentWorkEvents.ts';

type Staged = Extract<StagedActionEvent, { type: 'agent_staged.staged' }>['data'];

export type StagedActionCommand =
  | { type: 'stage'; action: Staged }
  | { type: 'veto'; vetoedBy: string; reason: string | null }
  | { type: 'start'; now: string }
  | { type: 'finish'; status: 'ran' | 'failed'; code: string | null; message: string | null };

export interface StagedActionState {
  status: 'absent' | StagedStatus;
  stagedId: string | null;
  runAfter: string | null;
}

export const stagedActionDecider: Decider<StagedActionState, StagedActionCommand, StagedActionEvent> = {
  eventTypes: eventTypesOf(stagedActionEventSchemas),
  initialState: () => ({ status: 'absent', stagedId: null, runAfter: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'agent_staged.staged':
        return { status: 'pending', stagedId: event.data.stagedId, runAfter: event.data.runAfter };
      case 'agent_staged.vetoed':
        return { ...state, status: 'vetoed' };
      case 'agent_staged.started':
        return { ...state, status: 'running' };
      case 'agent_staged.finished':
        return { ...state, status: event.data.status };
    }
  },
  decide(command, state) {
    if (command.type === 'stage') {
      if (state.status !== 'absent') throw new AppError('CONFLICT', 'The staged action exists');
      return [{ type: 'agent_staged.staged', data: command.action }];
    }
    if (state.status === 'absent') throw new AppError('NOT_FOUND', 'Staged action not found');
    const stagedId = state.stagedId!;
    switch (command.type) {
      case 'veto':
        if (state.status !== 'pending') {
          throw new AppError('CONFLICT', `The staged action is ${state.status === 'vetoed' ? 'already vetoed' : 'no longer waiting (it ran or is running)'}`, {
            extensions: { status: state.status },
          });
        }
        return [{ type: 'agent_staged.vetoed', data: { stagedId, vetoedBy: command.vetoedBy, reason: command.reason } }];
      case 'start':
        // Only a waiting action whose window has passed starts; anything else (vetoed, started by another tick) decides nothing.
        return state.status === 'pending' && Date.parse(state.runAfter!) <= Date.parse(command.now) ? [{ type: 'agent_staged.started', data: { stagedId } }] : [];
      case 'finish':
        return state.status === 'running'
          ? [{ type: 'agent_staged.finished', data: { stagedId, status: command.status, code: command.code, message: command.message } }]
          : [];
    }
  },
};
