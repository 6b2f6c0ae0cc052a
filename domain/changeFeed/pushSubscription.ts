// A browser's web push subscription (stream <site>/push-subscription/<sha256 of the endpoint>):
// registered by a signed-in user, moved to whoever registers the same endpoint next, removed by its
// owner or when the push service says the endpoint is gone.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { PUSH_SUBSCRIPTION_EVENT_TYPES, type PushKeys, type PushSubscriptionEvent, pushSubscriptionEventSchemas } from './events.ts';

export { PUSH_SUBSCRIPTION_EVENT_TYPES, type PushKeys, type PushSubscriptionEvent };

export type PushSubscriptionCommand =
  | { type: 'register'; subscriptionId: string; userId: string; endpoint: string; keys: PushKeys }
  | { type: 'remove'; userId: string }
  | { type: 'removeGone' };

export interface PushSubscriptionState {
  active: boolean;
  subscriptionId: string;
  userId: string | null;
  keys: PushKeys | null;
}

export const pushSubscriptionDecider: Decider<PushSubscriptionState, PushSubscriptionCommand, PushSubscriptionEvent> = {
  eventTypes: eventTypesOf(pushSubscriptionEventSchemas),
  initialState: () => ({ active: false, subscriptionId: '', userId: null, keys: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'push_subscription.registered':
        return { active: true, subscriptionId: event.data.subscriptionId, userId: event.data.userId, keys: event.data.keys };
      case 'push_subscription.removed':
        return { ...state, active: false };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'register': {
        const unchanged =
          state.active && state.userId === command.userId && state.keys?.p256dh === command.keys.p256dh && state.keys.auth === command.keys.auth;
        if (unchanged) return [];
        const { type: _type, ...data } = command;
        return [{ type: 'push_subscription.registered', data }];
      }
      case 'remove':
        // Another user's endpoint is as invisible as an unknown one.
        if (!state.active || state.userId !== command.userId) throw new AppError('NOT_FOUND', 'Push subscription not found', { path: ['body', 'endpoint'] });
        return [{ type: 'push_subscription.removed', data: { subscriptionId: state.subscriptionId, reason: 'user' } }];
      case 'removeGone':
        return state.active ? [{ type: 'push_subscription.removed', data: { subscriptionId: state.subscriptionId, reason: 'gone' } }] : [];
    }
  },
};
