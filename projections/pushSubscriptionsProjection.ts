// Web push subscriptions per site and user, as the push sender reads them.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const pushSubscriptionsProjection = defineProjection({
  name: 'push-subscriptions',
  mode: 'inline',
  tables: ['push_subscriptions'],
  handlers: {
    'push_subscription.registered': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO push_subscriptions (site_id, id, user_id, endpoint, p256dh, auth, created_at, updated_at)
        VALUES (${event.siteId}, ${d.subscriptionId}, ${d.userId}, ${d.endpoint}, ${d.keys.p256dh}, ${d.keys.auth}, ${event.recordedAt}, ${event.recordedAt})
        ON CONFLICT (site_id, id) DO UPDATE SET user_id = excluded.user_id, endpoint = excluded.endpoint, p256dh = excluded.p256dh,
               auth = excluded.auth, updated_at = excluded.updated_at`);
    },
    'push_subscription.removed': async (tx, event) => {
      await tx.query(sql`DELETE FROM push_subscriptions WHERE site_id = ${event.siteId} AND id = ${event.data.subscriptionId}`);
    },
  },
});
