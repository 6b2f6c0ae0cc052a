// Autonomy (docs/agents.md): each agent role's level (stream `<siteId>/agent-autonomy/<role>`; a role
// never set is at 'read'), and the requests to raise one (stream `<siteId>/agent-promotion/<id>`),
// which anyone of the site may file and only an administrator decides, once.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type AutonomyEvent, type AutonomyLevelName, AUTONOMY_LEVELS, autonomyEventSchemas } from './governanceEvents.ts';

/** The lower of two levels (a constitution's cap over a role's level). */
export function lowerLevel(a: AutonomyLevelName, b: AutonomyLevelName): AutonomyLevelName {
  return AUTONOMY_LEVELS.indexOf(a) <= AUTONOMY_LEVELS.indexOf(b) ? a : b;
}

type SetEvent = Extract<AutonomyEvent, { type: 'agent_autonomy.set' }>;

export type AutonomyCommand = { type: 'setLevel'; role: string; level: AutonomyLevelName; promotionId: string | null };

export const autonomyDecider: Decider<{ level: AutonomyLevelName }, AutonomyCommand, SetEvent> = {
  eventTypes: ['agent_autonomy.set'],
  initialState: () => ({ level: 'read' }),
  evolve: (_state, event) => ({ level: event.data.level }),
  // Always recorded, even at the same level: an approved promotion leaves its trace on the role's stream.
  decide: (command) => [{ type: 'agent_autonomy.set', data: { role: command.role, level: command.level, promotionId: command.promotionId } }],
};

type PromotionEvent = Exclude<AutonomyEvent, SetEvent>;

export type PromotionCommand =
  | { type: 'requestPromotion'; promotionId: string; role: string; level: AutonomyLevelName; reason: string; requestedBy: string | null }
  | { type: 'decidePromotion'; decision: 'approved' | 'rejected'; reason: string | null; decidedBy: string | null };

export interface PromotionState {
  status: 'absent' | 'pending' | 'approved' | 'rejected';
  promotionId: string | null;
  role: string | null;
  level: AutonomyLevelName | null;
}

export const promotionDecider: Decider<PromotionState, PromotionCommand, PromotionEvent> = {
  eventTypes: eventTypesOf(autonomyEventSchemas).filter((type): type is PromotionEvent['type'] => type !== 'agent_autonomy.set'),
  initialState: () => ({ status: 'absent', promotionId: null, role: null, level: null }),
  evolve(state, event) {
    if (event.type === 'agent_promotion.requested') return { status: 'pending', promotionId: event.data.promotionId, role: event.data.role, level: event.data.level };
    return { ...state, status: event.data.decision };
  },
  decide(command, state) {
    if (command.type === 'requestPromotion') {
      if (state.status !== 'absent') throw new AppError('CONFLICT', 'The promotion request exists');
      const { type: _type, ...data } = command;
      return [{ type: 'agent_promotion.requested', data }];
    }
    if (state.status === 'absent') throw new AppError('NOT_FOUND', 'Promotion request not found');
    if (state.status !== 'pending') throw new AppError('CONFLICT', `The promotion request was already ${state.status}`);
    return [
      {
        type: 'agent_promotion.decided',
        data: { promotionId: state.promotionId!, role: state.role!, level: state.level!, decision: command.decision, reason: command.reason, decidedBy: command.decidedBy },
      },
    ];
  },
};
