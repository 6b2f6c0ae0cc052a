// Collections the subscriber role of each site may read, granted by an administrator.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const subscriberAccessProjection = defineProjection({
  name: 'subscriber_access',
  mode: 'inline',
  tables: ['subscriber_access'],
  handlers: {
    'subscriber_access.granted': async (tx, event) => {
      await tx.query(sql`
        INSERT INTO subscriber_access (site_id, collection, granted_by, granted_at)
        VALUES (${event.siteId}, ${event.data.collection}, ${event.metadata.actor?.id ?? null}, ${event.recordedAt})`);
    },
    'subscriber_access.revoked': async (tx, event) => {
      await tx.query(sql`DELETE FROM subscriber_access WHERE site_id = ${event.siteId} AND collection = ${event.data.collection}`);
    },
  },
});
