// Reads of editorial_reviews, shaped for the answer.
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import type { ReviewStatus } from '../../../domain/editorial/events.ts';

export interface ReviewView {
  collection: string;
  itemId: string;
  status: ReviewStatus;
  reviewerId: string | null;
  authorId: string | null;
  submittedBy: string | null;
  submittedVersion: number | null;
  approvedVersion: number | null;
  reason: string | null;
  lastActorId: string | null;
  updatedAt: string;
}

interface ReviewRow {
  collection: string;
  item_id: string;
  status: ReviewStatus;
  reviewer_id: string | null;
  author_id: string | null;
  submitted_by: string | null;
  submitted_version: number | null;
  approved_version: number | null;
  last_reason: string | null;
  last_actor_id: string | null;
  updated_at: Date;
}

const viewOf = (row: ReviewRow): ReviewView => ({
  collection: row.collection,
  itemId: row.item_id,
  status: row.status,
  reviewerId: row.reviewer_id,
  authorId: row.author_id,
  submittedBy: row.submitted_by,
  submittedVersion: row.submitted_version,
  approvedVersion: row.approved_version,
  reason: row.last_reason,
  lastActorId: row.last_actor_id,
  updatedAt: row.updated_at.toISOString(),
});

export async function findReview(tx: Queryable, siteId: string, collection: string, itemId: string): Promise<ReviewView | null> {
  const [row] = await tx.query<ReviewRow>(sql`SELECT * FROM editorial_reviews WHERE site_id = ${siteId} AND collection = ${collection} AND item_id = ${itemId}`);
  return row ? viewOf(row) : null;
}

export interface ReviewListQuery {
  status?: ReviewStatus | undefined;
  assignee?: string | undefined;
  page: number;
  limit: number;
}

/** Newest move first; `status` and `assignee` (the reviewer assigned at submit) are served by the read model's indexes. */
export async function listReviews(tx: Queryable, siteId: string, query: ReviewListQuery): Promise<{ reviews: ReviewView[]; total: number }> {
  let where: SqlFragment = sql`site_id = ${siteId}`;
  if (query.status) where = sql`${where} AND status = ${query.status}`;
  if (query.assignee) where = sql`${where} AND reviewer_id = ${query.assignee}`;
  const rows = await tx.query<ReviewRow>(
    sql`SELECT * FROM editorial_reviews WHERE ${where} ORDER BY updated_at DESC, collection, item_id LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`,
  );
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM editorial_reviews WHERE ${where}`);
  return { reviews: rows.map(viewOf), total: count?.total ?? 0 };
}

/** The live item's version and last editor; null when it is missing or deleted. */
export async function reviewedItem(tx: Queryable, siteId: string, collection: string, itemId: string): Promise<{ version: number; userUpdated: string | null } | null> {
  const [row] = await tx.query<{ version: number; user_updated: string | null }>(
    sql`SELECT version, user_updated FROM items WHERE site_id = ${siteId} AND collection = ${collection} AND id = ${itemId} AND deleted_at IS NULL`,
  );
  return row ? { version: row.version, userUpdated: row.user_updated } : null;
}

export async function isLiveUser(tx: Queryable, siteId: string, userId: string): Promise<boolean> {
  const rows = await tx.query(sql`SELECT 1 FROM users WHERE site_id = ${siteId} AND id = ${userId}::uuid AND deleted_at IS NULL`);
  return rows.length > 0;
}
