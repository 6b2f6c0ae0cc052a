// One address on a site's suppression list (stream `<siteId>/email-suppression/<hash>`): suppressed by
// an administrator, an unsubscribe or a hard bounce, and lifted by an administrator. Suppressing an
// address that is already suppressed records nothing (the first reason stands).
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type SuppressionEvent, suppressionEventSchemas } from './events.ts';

export type SuppressionCommand =
  | { type: 'suppress'; emailHash: string; email: string; reason: string }
  | { type: 'unsubscribe'; emailHash: string; email: string; method: 'link' | 'one_click' }
  | { type: 'unsuppress' };

export interface SuppressionState {
  suppressed: boolean;
  emailHash: string | null;
}

export const suppressionDecider: Decider<SuppressionState, SuppressionCommand, SuppressionEvent> = {
  eventTypes: eventTypesOf(suppressionEventSchemas),
  initialState: () => ({ suppressed: false, emailHash: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'email_suppressed':
      case 'email_unsubscribed':
        return { suppressed: true, emailHash: event.data.emailHash };
      case 'email_unsuppressed':
        return { ...state, suppressed: false };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'suppress':
        if (state.suppressed) return [];
        return [{ type: 'email_suppressed', data: { emailHash: command.emailHash, email: command.email, reason: command.reason } }];
      case 'unsubscribe':
        if (state.suppressed) return [];
        return [{ type: 'email_unsubscribed', data: { emailHash: command.emailHash, email: command.email, method: command.method } }];
      case 'unsuppress':
        if (!state.suppressed) throw new AppError('NOT_FOUND', 'This address is not suppressed');
        return [{ type: 'email_unsuppressed', data: { emailHash: state.emailHash! } }];
    }
  },
};
