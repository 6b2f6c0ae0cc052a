// The kill switch (docs/agents.md): a freeze (stream `<siteId>/agent-freeze/<id>`) stops every skill
// call of its scope (a goal run, an intent, an agent role, or the whole site) until it is lifted, once.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type FreezeScope, type KillSwitchEvent, killSwitchEventSchemas } from './governanceEvents.ts';

export type FreezeCommand =
  | { type: 'freeze'; freezeId: string; scope: FreezeScope; target: string | null; reason: string }
  | { type: 'lift'; reason: string | null };

export interface FreezeState {
  status: 'absent' | 'active' | 'lifted';
  freezeId: string | null;
  scope: FreezeScope | null;
  target: string | null;
}

export const freezeDecider: Decider<FreezeState, FreezeCommand, KillSwitchEvent> = {
  eventTypes: eventTypesOf(killSwitchEventSchemas),
  initialState: () => ({ status: 'absent', freezeId: null, scope: null, target: null }),
  evolve(state, event) {
    if (event.type === 'agent_freeze.engaged') return { status: 'active', freezeId: event.data.freezeId, scope: event.data.scope, target: event.data.target };
    return { ...state, status: 'lifted' };
  },
  decide(command, state) {
    if (command.type === 'freeze') {
      if (state.status !== 'absent') throw new AppError('CONFLICT', 'The freeze exists');
      if (command.scope !== 'site' && command.target === null) throw new AppError('VALIDATION_FAILED', `A ${command.scope} freeze needs a target`, { path: ['body', 'target'] });
      const { type: _type, ...data } = command;
      return [{ type: 'agent_freeze.engaged', data: { ...data, target: command.scope === 'site' ? null : command.target } }];
    }
    if (state.status === 'absent') throw new AppError('NOT_FOUND', 'Freeze not found');
    if (state.status === 'lifted') throw new AppError('CONFLICT', 'The freeze was already lifted', { path: ['body', 'freezeId'] });
    return [{ type: 'agent_freeze.lifted', data: { freezeId: state.freezeId!, scope: state.scope!, target: state.target, reason: command.reason } }];
  },
};
