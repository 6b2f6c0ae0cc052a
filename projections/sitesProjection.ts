// The tenant registry (instance-level table `sites`).
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const sitesProjection = defineProjection({
  name: 'sites',
  mode: 'inline',
  eventTypes: ['site.created', 'site.deleted'],
  tables: ['sites'],
  async apply(tx, event) {
    const data = event.data as { siteId: string; name?: string; createdAt?: string; deletedAt?: string };
    if (event.type === 'site.created') {
      await tx.query(sql`INSERT INTO sites (id, name, created_at) VALUES (${data.siteId}, ${data.name}, ${data.createdAt})`);
    } else {
      await tx.query(sql`UPDATE sites SET deleted_at = ${data.deletedAt} WHERE id = ${data.siteId}`);
    }
  },
});
