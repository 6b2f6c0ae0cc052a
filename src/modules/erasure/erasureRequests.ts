// The erasure read model (projections/erasureRequestsProjection.ts) as the routes answer it.
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';

export interface ErasureRequest {
  id: string;
  status: 'requested' | 'confirmed' | 'executed';
  collection: string;
  subjectHash: string;
  reason: string;
  matchedCount: number;
  requestedBy: string;
  requestedAt: string;
  confirmedBy: string | null;
  confirmedAt: string | null;
  executedBy: string | null;
  executedAt: string | null;
  recordCount: number | null;
  shreddedValues: number | null;
}

interface ErasureRow {
  id: string;
  status: ErasureRequest['status'];
  collection: string;
  subject_hash: string;
  reason: string;
  matched: number;
  requested_by: string;
  requested_at: Date;
  confirmed_by: string | null;
  confirmed_at: Date | null;
  executed_by: string | null;
  executed_at: Date | null;
  record_count: number | null;
  shredded_values: number | null;
}

const COLUMNS = sql`id, status, collection, subject_hash, reason, cardinality(record_ids) AS matched, requested_by, requested_at,
  confirmed_by, confirmed_at, executed_by, executed_at, record_count, shredded_values`;

function present(row: ErasureRow): ErasureRequest {
  return {
    id: row.id,
    status: row.status,
    collection: row.collection,
    subjectHash: row.subject_hash,
    reason: row.reason,
    matchedCount: row.matched,
    requestedBy: row.requested_by,
    requestedAt: row.requested_at.toISOString(),
    confirmedBy: row.confirmed_by,
    confirmedAt: row.confirmed_at?.toISOString() ?? null,
    executedBy: row.executed_by,
    executedAt: row.executed_at?.toISOString() ?? null,
    recordCount: row.record_count,
    shreddedValues: row.shredded_values,
  };
}

export async function findErasure(tx: Queryable, siteId: string, id: string): Promise<ErasureRequest | null> {
  const [row] = await tx.query<ErasureRow>(sql`SELECT ${COLUMNS} FROM erasure_requests WHERE site_id = ${siteId} AND id = ${id}::uuid`);
  return row ? present(row) : null;
}

/** Newest first, on erasure_requests_time. */
export async function listErasures(tx: Queryable, siteId: string, page: { limit: number; page: number }): Promise<{ data: ErasureRequest[]; total: number }> {
  const rows = await tx.query<ErasureRow>(sql`
    SELECT ${COLUMNS} FROM erasure_requests WHERE site_id = ${siteId}
     ORDER BY requested_at DESC, id DESC LIMIT ${page.limit} OFFSET ${(page.page - 1) * page.limit}`);
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM erasure_requests WHERE site_id = ${siteId}`);
  return { data: rows.map(present), total: count?.total ?? 0 };
}
