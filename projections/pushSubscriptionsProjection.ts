// Web push subscriptions per site and user, as the push sender reads them.
import { PUSH_SUBSCRIPTION_EVENT_TYPES, type PushSubscriptionEvent } from '../domain/changeFeed/pushSubscription.ts';
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const pushSubscriptionsProjection = defineProjection({
  name: 'push-subscriptions',
  mode: 'inline',
  eventTypes: PUSH_SUBSCRIPTION_EVENT_TYPES,
  tables: ['push_subscriptions'],
  async apply(tx, event) {
    const typed = { type: event.type, data: event.data } as PushSubscriptionEvent;
    if (typed.type === 'push_subscription.registered') {
      const d = typed.data;
      await tx.query(sql`
        INSERT INTO push_subscriptions (site_id, id, user_id, endpoint, p256dh, auth, created_at, updated_at)
        VALUES (${event.siteId}, ${d.subscriptionId}, ${d.userId}, ${d.endpoint}, ${d.keys.p256dh}, ${d.keys.auth}, ${event.recordedAt}, ${event.recordedAt})
        ON CONFLICT (site_id, id) DO UPDATE SET user_id = excluded.user_id, endpoint = excluded.endpoint, p256dh = excluded.p256dh,
               auth = excluded.auth, updated_at = excluded.updated_at`);
      return;
    }
    await tx.query(sql`DELETE FROM push_subscriptions WHERE site_id = ${event.siteId} AND id = ${typed.data.subscriptionId}`);
  },
});
