// A user's consent of one type (stream `consent/<userId>/<type>`): granted or withdrawn, with the
// source and version of the choice. Repeating the current choice records nothing.
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type ConsentEvent, consentEventSchemas, type ConsentType } from './events.ts';

export type { ConsentEvent, ConsentType };

export interface SetConsent {
  type: 'setConsent';
  userId: string;
  consentType: ConsentType;
  granted: boolean;
  source: string;
  version: string;
}

export interface ConsentState {
  /** null: never recorded. */
  granted: boolean | null;
  source: string | null;
  version: string | null;
}

export const consentDecider: Decider<ConsentState, SetConsent, ConsentEvent> = {
  eventTypes: eventTypesOf(consentEventSchemas),
  initialState: () => ({ granted: null, source: null, version: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'consent_granted':
        return { granted: true, source: event.data.source, version: event.data.version };
      case 'consent_withdrawn':
        return { granted: false, source: event.data.source, version: event.data.version };
      default:
        return state;
    }
  },
  decide(command, state) {
    if (state.granted === command.granted && state.source === command.source && state.version === command.version) return [];
    const data = { userId: command.userId, consentType: command.consentType, source: command.source, version: command.version };
    return [command.granted ? { type: 'consent_granted', data } : { type: 'consent_withdrawn', data }];
  },
};
