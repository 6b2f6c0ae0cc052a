// The users whose processing is restricted (src/modules/privacy/restriction.ts reads it for every gated feature).
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const restrictionsProjection = defineProjection({
  name: 'processing_restrictions',
  mode: 'inline',
  tables: ['processing_restrictions'],
  handlers: {
    'processing_restriction.applied': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO processing_restrictions (site_id, user_id, reason, restricted_at)
        VALUES (${event.siteId}, ${d.userId}, ${d.reason}, ${event.recordedAt})
        ON CONFLICT (site_id, user_id) DO UPDATE SET reason = EXCLUDED.reason`);
    },
    'processing_restriction.lifted': async (tx, event) => {
      await tx.query(sql`DELETE FROM processing_restrictions WHERE site_id = ${event.siteId} AND user_id = ${event.data.userId}`);
    },
  },
});
