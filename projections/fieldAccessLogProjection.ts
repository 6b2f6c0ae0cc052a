// The field access log: one row per (item, pii/phi field) a read request returned, from the
// `item.sensitive_read` events item reads append. Never the values.
import type { SensitiveReadEventData } from '../domain/content/sensitiveReads.ts';
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const fieldAccessLogProjection = defineProjection({
  name: 'field_access_log',
  mode: 'async',
  eventTypes: ['item.sensitive_read'],
  tables: ['field_access_log'],
  async apply(tx, event) {
    const data = event.data as unknown as SensitiveReadEventData;
    const rows = data.reads.flatMap((read) =>
      read.fields.map((field) => ({ collection: read.collection, item_id: read.itemId, field: field.field, sensitivity: field.sensitivity })),
    );
    if (rows.length === 0) return;
    const { actor, requestId } = event.metadata;
    tx.defer(sql`
      INSERT INTO field_access_log (site_id, position, ordinal, user_id, actor_kind, collection, item_id, field, sensitivity, request_id, accessed_at)
      SELECT ${event.siteId}, ${event.position}, r.ordinal::integer, ${actor?.id ?? null}, ${actor?.kind ?? 'system'},
             r.value->>'collection', r.value->>'item_id', r.value->>'field', r.value->>'sensitivity', ${requestId ?? null}, ${event.recordedAt}
        FROM jsonb_array_elements(${JSON.stringify(rows)}::jsonb) WITH ORDINALITY AS r(value, ordinal)
      ON CONFLICT DO NOTHING`);
  },
});
