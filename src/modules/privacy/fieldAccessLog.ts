// GET /admin/field-access-log: who read which pii/phi field of which record, and when, from the
// `field_access_log` read model (projections/fieldAccessLogProjection.ts). Never the values.
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { compileFilter, readModelFields, type DynamicValueContext, type FilterTree } from '../../query/index.ts';

/**
 * The fields a filter may name: columns of `field_access_log`, each with the operators its index
 * serves (infra/postgres/migrations/0100_content.sql and 0390_field_access_log_indexes.sql).
 */
export const FIELD_ACCESS_LOG_FIELDS = readModelFields({
  actor: { column: 'user_id', kind: 'text', operators: ['_eq', '_in'] },
  collection: { column: 'collection', kind: 'text', operators: ['_eq'] },
  itemId: { column: 'item_id', kind: 'text', operators: ['_eq'] },
  at: { column: 'accessed_at', kind: 'timestamptz', operators: ['_gt', '_gte', '_lt', '_lte'] },
});

export interface FieldAccessEntry {
  at: string;
  actor: { kind: string; id: string | null };
  collection: string;
  itemId: string;
  fields: string[];
  sensitivity: string;
  requestId?: string;
}

export interface FieldAccessLogQuery {
  /** The `filter` parameter as parsed by src/query (bracket or JSON form); null for none. */
  filter: FilterTree | null;
  limit: number;
  page: number;
  /** For $NOW and $CURRENT_USER in filter values. */
  dynamic: DynamicValueContext;
}

/**
 * The page's statement and the total's. The table holds one row per field; an entry is one read
 * (one event) of one record's fields of one sensitivity, newest first. Throws VALIDATION_FAILED on a
 * bad filter.
 */
export function fieldAccessLogStatements(siteId: string, query: FieldAccessLogQuery): { page: SqlFragment; total: SqlFragment } {
  const filter = compileFilter(query.filter, { ...query.dynamic, fields: FIELD_ACCESS_LOG_FIELDS, alias: 'f' });
  const where = sql`f.site_id = ${siteId} AND ${filter}`;
  const entry = sql`f.position, f.collection, f.item_id, f.sensitivity, f.actor_kind, f.user_id, f.request_id, f.accessed_at`;
  const offset = (query.page - 1) * query.limit;
  return {
    page: sql`
      SELECT ${entry}, array_agg(f.field ORDER BY f.ordinal) AS fields
        FROM field_access_log f WHERE ${where}
       GROUP BY ${entry}
       ORDER BY f.accessed_at DESC, f.position DESC, min(f.ordinal)
       LIMIT ${query.limit} OFFSET ${offset}`,
    total: sql`SELECT count(*)::int AS total FROM (SELECT 1 FROM field_access_log f WHERE ${where} GROUP BY ${entry}) AS entries`,
  };
}

export async function listFieldAccessLog(tx: Queryable, siteId: string, query: FieldAccessLogQuery): Promise<{ entries: FieldAccessEntry[]; total: number }> {
  const statements = fieldAccessLogStatements(siteId, query);
  const rows = await tx.query<{
    collection: string; item_id: string; sensitivity: string; actor_kind: string; user_id: string | null;
    request_id: string | null; accessed_at: Date; fields: string[];
  }>(statements.page);
  const [count] = await tx.query<{ total: number }>(statements.total);
  return {
    total: count?.total ?? 0,
    entries: rows.map((row) => ({
      at: row.accessed_at.toISOString(),
      actor: { kind: row.actor_kind, id: row.user_id },
      collection: row.collection,
      itemId: row.item_id,
      fields: row.fields,
      sensitivity: row.sensitivity,
      ...(row.request_id ? { requestId: row.request_id } : {}),
    })),
  };
}
