// Collections the subscriber role of each site may read, granted by an administrator.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const subscriberAccessProjection = defineProjection({
  name: 'subscriber_access',
  mode: 'inline',
  eventTypes: ['subscriber_access.granted', 'subscriber_access.revoked'],
  tables: ['subscriber_access'],
  async apply(tx, event) {
    const { collection } = event.data as { collection: string };
    if (event.type === 'subscriber_access.granted') {
      await tx.query(sql`
        INSERT INTO subscriber_access (site_id, collection, granted_by, granted_at)
        VALUES (${event.siteId}, ${collection}, ${event.metadata.actor?.id ?? null}, ${event.recordedAt})`);
    } else {
      await tx.query(sql`DELETE FROM subscriber_access WHERE site_id = ${event.siteId} AND collection = ${collection}`);
    }
  },
});
