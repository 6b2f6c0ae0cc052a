// The audit log: who did what to which target, when, in which request, for every event of a site,
// with the details its event type declares (domain/shared/auditEvents.ts: ids, counts, kinds and
// states, never a personal value). It copies no other event data; the log itself has the full record.
import { auditDetailsOf } from '../domain/shared/auditEvents.ts';
import type { StoredEvent } from '../domain/shared/events.ts';
import type { Queryable } from '../infra/postgres/database.ts';
import { prepared, sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

function rowOf(event: StoredEvent) {
  const { actor, requestId, agent } = event.metadata;
  return {
    site_id: event.siteId,
    position: event.position,
    event_id: event.eventId,
    action: event.type,
    actor_kind: actor?.kind ?? 'system',
    actor_id: actor?.id ?? null,
    impersonator_id: actor?.impersonatorId ?? null,
    target: event.streamId.slice(event.siteId.length + 1),
    request_id: requestId ?? null,
    occurred_at: event.recordedAt.toISOString(),
    details: auditDetailsOf(event),
    // An agent's write (docs/ai-skills.md): for whom, approved by whom, under which role and constitution.
    on_behalf_of: agent?.onBehalfOf ?? null,
    approved_by: agent?.approvedBy ?? null,
    approval_id: agent?.approvalId ?? null,
    agent_role: agent?.role ?? null,
    constitution_version: agent?.constitutionVersion ?? null,
  };
}

/** One statement for any number of events (the daemon hands a step's events of one site at once). */
async function insertRows(tx: Queryable, events: readonly StoredEvent[]): Promise<void> {
  tx.defer(prepared(sql`
    INSERT INTO audit_log (site_id, position, event_id, action, actor_kind, actor_id, impersonator_id, target, request_id, occurred_at, details,
                           on_behalf_of, approved_by, approval_id, agent_role, constitution_version)
    SELECT r.site_id, r.position, r.event_id, r.action, r.actor_kind, r.actor_id, r.impersonator_id, r.target, r.request_id, r.occurred_at, r.details,
           r.on_behalf_of, r.approved_by, r.approval_id, r.agent_role, r.constitution_version
      FROM jsonb_to_recordset(${JSON.stringify(events.map(rowOf))}::jsonb) AS r(
        site_id text, position bigint, event_id uuid, action text, actor_kind text, actor_id text, impersonator_id text,
        target text, request_id text, occurred_at timestamptz, details jsonb,
        on_behalf_of text, approved_by text, approval_id text, agent_role text, constitution_version integer)
    ON CONFLICT DO NOTHING`));
}

export const auditProjection = defineProjection({
  name: 'audit',
  mode: 'async',
  eventTypes: '*',
  tables: ['audit_log'],
  maintainers: [
    {
      table: 'audit_log',
      writer: 'scripts/bench/support/insightsReports.ts (seeding)',
      why: 'the compliance-report benchmark writes the entries of the events it seeded in one statement, as this projection would, before it measures a report.',
    },
  ],
  apply: (tx, event) => insertRows(tx, [event]),
  applyBatch: insertRows,
});
