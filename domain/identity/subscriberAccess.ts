// Which collections the site's subscribers may read: one stream per collection, granted or revoked.
// The permissions layer reads the resulting read model; this only records the decision.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type SubscriberAccessEvent, subscriberAccessEventSchemas } from './events.ts';

export type { SubscriberAccessEvent };

export type SubscriberAccessCommand = { type: 'grantSubscriberAccess'; collection: string } | { type: 'revokeSubscriberAccess'; collection: string };

export interface SubscriberAccessState {
  granted: boolean;
}

export const subscriberAccessDecider: Decider<SubscriberAccessState, SubscriberAccessCommand, SubscriberAccessEvent> = {
  eventTypes: eventTypesOf(subscriberAccessEventSchemas),
  initialState: () => ({ granted: false }),
  evolve(state, event) {
    switch (event.type) {
      case 'subscriber_access.granted':
        return { granted: true };
      case 'subscriber_access.revoked':
        return { granted: false };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'grantSubscriberAccess':
        // Granting twice is a no-op: the caller gets the existing grant.
        return state.granted ? [] : [{ type: 'subscriber_access.granted', data: { collection: command.collection } }];
      case 'revokeSubscriberAccess':
        if (!state.granted) throw new AppError('NOT_FOUND', `Subscribers have no grant on ${command.collection}`);
        return [{ type: 'subscriber_access.revoked', data: { collection: command.collection } }];
    }
  },
};
