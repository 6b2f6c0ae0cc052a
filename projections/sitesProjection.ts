// The tenant registry (instance-level table `sites`).
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const sitesProjection = defineProjection({
  name: 'sites',
  mode: 'inline',
  tables: ['sites'],
  handlers: {
    'site.created': async (tx, { data }) => {
      await tx.query(sql`INSERT INTO sites (id, name, created_at) VALUES (${data.siteId}, ${data.name}, ${data.createdAt})`);
    },
    'site.deleted': async (tx, { data }) => {
      await tx.query(sql`UPDATE sites SET deleted_at = ${data.deletedAt} WHERE id = ${data.siteId}`);
    },
  },
});
