// The audit log: who did what to which target, when, in which request, for every event of a site.
// It keeps no event data (that may hold personal data); the log itself has the full record.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const auditProjection = defineProjection({
  name: 'audit',
  mode: 'async',
  eventTypes: '*',
  tables: ['audit_log'],
  async apply(tx, event) {
    const { actor, requestId } = event.metadata;
    const target = event.streamId.slice(event.siteId.length + 1);
    tx.defer(sql`
      INSERT INTO audit_log (site_id, position, event_id, action, actor_kind, actor_id, impersonator_id, target, request_id, occurred_at)
      VALUES (${event.siteId}, ${event.position}, ${event.eventId}, ${event.type}, ${actor?.kind ?? 'system'}, ${actor?.id ?? null},
              ${actor?.impersonatorId ?? null}, ${target}, ${requestId ?? null}, ${event.recordedAt})
      ON CONFLICT DO NOTHING`);
  },
});
