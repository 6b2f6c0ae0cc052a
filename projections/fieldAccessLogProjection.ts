// The field access log: one row per (item, pii/phi field) a read request returned, from the
// `item.sensitive_read` events item reads append. Never the values.
import type { StoredEvent } from '../domain/shared/events.ts';
import type { Queryable } from '../infra/postgres/database.ts';
import { prepared, sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

type SensitiveReadEvent = StoredEvent<'item.sensitive_read'>;

function rowsOf(event: SensitiveReadEvent) {
  const { actor, requestId } = event.metadata;
  return event.data.reads
    .flatMap((read) => read.fields.map((field) => ({ collection: read.collection, item_id: read.itemId, field: field.field, sensitivity: field.sensitivity })))
    .map((row, index) => ({
      ...row,
      position: event.position,
      ordinal: index + 1,
      user_id: actor?.id ?? null,
      actor_kind: actor?.kind ?? 'system',
      request_id: requestId ?? null,
      accessed_at: event.recordedAt.toISOString(),
    }));
}

/** The rows of any number of reads (of one site) in one statement. */
async function insertRows(tx: Queryable, events: readonly SensitiveReadEvent[]): Promise<void> {
  const rows = events.flatMap(rowsOf);
  if (rows.length === 0) return;
  tx.defer(prepared(sql`
    INSERT INTO field_access_log (site_id, position, ordinal, user_id, actor_kind, collection, item_id, field, sensitivity, request_id, accessed_at)
    SELECT ${events[0]!.siteId}, r.position, r.ordinal, r.user_id, r.actor_kind, r.collection, r.item_id, r.field, r.sensitivity, r.request_id, r.accessed_at
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(
        position bigint, ordinal integer, user_id text, actor_kind text, collection text, item_id text, field text,
        sensitivity text, request_id text, accessed_at timestamptz)
    ON CONFLICT DO NOTHING`));
}

export const fieldAccessLogProjection = defineProjection({
  name: 'field_access_log',
  mode: 'async',
  tables: ['field_access_log'],
  handlers: { 'item.sensitive_read': (tx, event) => insertRows(tx, [event]) },
  applyBatch: insertRows,
});
