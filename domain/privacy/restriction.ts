// A user's restriction of processing (stream `processing_restriction/<userId>`): applied with an
// optional reason, or lifted. What a restriction stops is PROCESSING_PURPOSES (docs/privacy.md).
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type RestrictionEvent, restrictionEventSchemas } from './events.ts';

export type { RestrictionEvent };

/** The processing a restriction stops: every feature doing one of these asks isProcessingRestricted first. */
export const PROCESSING_PURPOSES = ['marketing_email', 'pageview_attribution', 'ai_processing'] as const;
export type ProcessingPurpose = (typeof PROCESSING_PURPOSES)[number];

export interface SetRestriction {
  type: 'setRestriction';
  userId: string;
  restricted: boolean;
  reason: string | null;
}

export interface RestrictionState {
  restricted: boolean;
  reason: string | null;
}

export const restrictionDecider: Decider<RestrictionState, SetRestriction, RestrictionEvent> = {
  eventTypes: eventTypesOf(restrictionEventSchemas),
  initialState: () => ({ restricted: false, reason: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'processing_restriction.applied':
        return { restricted: true, reason: event.data.reason };
      case 'processing_restriction.lifted':
        return { restricted: false, reason: null };
      default:
        return state;
    }
  },
  decide(command, state) {
    if (!command.restricted) return state.restricted ? [{ type: 'processing_restriction.lifted', data: { userId: command.userId } }] : [];
    if (state.restricted && state.reason === command.reason) return [];
    return [{ type: 'processing_restriction.applied', data: { userId: command.userId, reason: command.reason } }];
  },
};
