// Reading the audit log and checking a site's hash chains.
import { AppError } from '../../../domain/shared/appError.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { identifier, join, sql, type SqlFragment } from '../../../infra/postgres/sql.ts';

export interface AuditEntry {
  position: number;
  eventId: string;
  action: string;
  actor: { kind: string; id: string | null; impersonatorId: string | null };
  target: string;
  requestId: string | null;
  siteId: string;
  occurredAt: string;
}

/** The audit fields a filter may name, their columns, and the operators each allows. */
const FILTERABLE: Record<string, { column: string; operators: readonly string[] }> = {
  action: { column: 'action', operators: ['_eq', '_neq', '_in', '_starts_with'] },
  actor: { column: 'actor_id', operators: ['_eq', '_in'] },
  actorKind: { column: 'actor_kind', operators: ['_eq', '_in'] },
  target: { column: 'target', operators: ['_eq', '_starts_with'] },
  requestId: { column: 'request_id', operators: ['_eq'] },
  occurredAt: { column: 'occurred_at', operators: ['_gt', '_gte', '_lt', '_lte'] },
};

/** `{ field: { operator: value } }`, parsed from `filter[field][operator]=value`. */
export type AuditFilter = Record<string, Record<string, string>>;

function condition(field: string, operator: string, value: string): SqlFragment {
  const spec = FILTERABLE[field];
  if (!spec) throw new AppError('VALIDATION_FAILED', `Unknown audit field ${field}`, { path: ['filter', field] });
  if (!spec.operators.includes(operator)) {
    throw new AppError('VALIDATION_FAILED', `Operator ${operator} is not allowed on ${field}`, { path: ['filter', field, operator] });
  }
  if (field === 'occurredAt' && Number.isNaN(Date.parse(value))) {
    throw new AppError('VALIDATION_FAILED', 'occurredAt needs an ISO 8601 time', { path: ['filter', field, operator] });
  }
  const column = identifier(spec.column);
  switch (operator) {
    case '_eq':
      return sql`${column} = ${value}`;
    case '_neq':
      return sql`${column} IS DISTINCT FROM ${value}`;
    case '_in':
      return sql`${column} = ANY(${value.split(',')}::text[])`;
    case '_starts_with':
      return sql`${column} LIKE ${value.replace(/[\\%_]/g, '\\$&') + '%'}`;
    case '_gt':
      return sql`${column} > ${value}::timestamptz`;
    case '_gte':
      return sql`${column} >= ${value}::timestamptz`;
    case '_lt':
      return sql`${column} < ${value}::timestamptz`;
    default:
      return sql`${column} <= ${value}::timestamptz`;
  }
}

export async function listAudit(
  tx: Queryable,
  siteId: string,
  query: { filter: AuditFilter; limit: number; page: number },
): Promise<{ entries: AuditEntry[]; total: number }> {
  const conditions = [sql`site_id = ${siteId}`];
  for (const [field, operators] of Object.entries(query.filter)) {
    for (const [operator, value] of Object.entries(operators)) conditions.push(condition(field, operator, value));
  }
  const where = join(conditions, ' AND ');
  const offset = (query.page - 1) * query.limit;
  const rows = await tx.query<{
    position: number; event_id: string; action: string; actor_kind: string; actor_id: string | null;
    impersonator_id: string | null; target: string; request_id: string | null; site_id: string; occurred_at: Date;
  }>(sql`SELECT * FROM audit_log WHERE ${where} ORDER BY position DESC LIMIT ${query.limit} OFFSET ${offset}`);
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM audit_log WHERE ${where}`);
  return {
    total: count?.total ?? 0,
    entries: rows.map((row) => ({
      position: row.position,
      eventId: row.event_id,
      action: row.action,
      actor: { kind: row.actor_kind, id: row.actor_id, impersonatorId: row.impersonator_id },
      target: row.target,
      requestId: row.request_id,
      siteId: row.site_id,
      occurredAt: row.occurred_at.toISOString(),
    })),
  };
}

export interface ChainVerification {
  valid: boolean;
  eventsChecked: number;
  streamsChecked: number;
  firstBrokenLink: null | { position: number; streamId: string; streamPosition: number; reason: 'hash_mismatch' | 'broken_link' | 'gap' };
}

/** Recomputes every event hash of the site and checks each links to its predecessor in its stream. */
export async function verifyChains(tx: Queryable, siteId: string): Promise<ChainVerification> {
  const [summary] = await tx.query<{ events: number; streams: number }>(
    sql`SELECT count(*)::int AS events, count(DISTINCT stream_id)::int AS streams FROM events WHERE site_id = ${siteId}`,
  );
  const [broken] = await tx.query<{ position: number; stream_id: string; stream_position: number; reason: 'hash_mismatch' | 'broken_link' | 'gap' }>(sql`
    WITH chained AS (
      SELECT position, stream_id, stream_position, hash, prev_hash,
             lag(hash) OVER w AS previous_hash,
             coalesce(lag(stream_position) OVER w, 0) AS previous_position,
             svc_event_hash(prev_hash, site_id, stream_id, stream_position, event_id, type, schema_version, data, metadata, recorded_at) AS recomputed
        FROM events WHERE site_id = ${siteId}
      WINDOW w AS (PARTITION BY stream_id ORDER BY stream_position))
    SELECT position, stream_id, stream_position,
           CASE WHEN recomputed <> hash THEN 'hash_mismatch'
                WHEN stream_position <> previous_position + 1 THEN 'gap'
                ELSE 'broken_link' END AS reason
      FROM chained
     WHERE recomputed <> hash OR prev_hash IS DISTINCT FROM previous_hash OR stream_position <> previous_position + 1
     ORDER BY position LIMIT 1`);
  return {
    valid: !broken,
    eventsChecked: summary?.events ?? 0,
    streamsChecked: summary?.streams ?? 0,
    firstBrokenLink: broken
      ? { position: broken.position, streamId: broken.stream_id, streamPosition: broken.stream_position, reason: broken.reason }
      : null,
  };
}
