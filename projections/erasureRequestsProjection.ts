// Erasure requests and where each stands (streams `<siteId>/erasure/<id>`): never the subject, only its
// keyed hash and the ids of the records it matched.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const erasureRequestsProjection = defineProjection({
  name: 'erasure_requests',
  mode: 'inline',
  tables: ['erasure_requests'],
  handlers: {
    erasure_requested: async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO erasure_requests (site_id, id, collection, subject_hash, reason, status, record_ids, requested_by, requested_at)
        VALUES (${event.siteId}, ${d.erasureId}, ${d.collection}, ${d.subjectHash}, ${d.reason}, 'requested', ${d.recordIds}, ${d.requestedBy}, ${event.recordedAt})`);
    },
    erasure_confirmed: async (tx, event) => {
      await tx.query(sql`
        UPDATE erasure_requests SET status = 'confirmed', confirmed_by = ${event.data.confirmedBy}, confirmed_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${event.data.erasureId}`);
    },
    data_erased: async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        UPDATE erasure_requests
           SET status = 'executed', executed_by = ${event.metadata.actor.id ?? event.metadata.actor.kind}, executed_at = ${event.recordedAt},
               record_count = ${d.recordCount}, shredded_values = ${d.shreddedValues}
         WHERE site_id = ${event.siteId} AND id = ${d.erasureId}`);
    },
  },
});
