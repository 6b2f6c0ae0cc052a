// Reads of the releases read model, and the item checks a release edit needs.
import type { ReleaseStatus } from '../../../domain/releases/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { ReleaseSummaryView, ReleaseView } from './schemas.ts';

interface ReleaseRow {
  id: string;
  name: string;
  status: ReleaseSummaryView['status'];
  atomicity_mode: ReleaseSummaryView['atomicityMode'];
  publish_at: Date | null;
  maintenance_window: ReleaseSummaryView['maintenanceWindow'];
  item_count: number;
  created_at: Date;
  updated_at: Date;
  published_at: Date | null;
  reverted_at: Date | null;
}

interface ReleaseItemRow {
  collection: string;
  item_id: string;
  target_status: string;
  revision_id: string | null;
  added_at: Date;
  outcome: ReleaseView['items'][number]['outcome'];
  outcome_reason: ReleaseView['items'][number]['reason'];
}

const summaryOf = (row: ReleaseRow): ReleaseSummaryView => ({
  id: row.id,
  name: row.name,
  status: row.status,
  atomicityMode: row.atomicity_mode,
  publishAt: row.publish_at?.toISOString() ?? null,
  maintenanceWindow: row.maintenance_window,
  itemCount: row.item_count,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
  publishedAt: row.published_at?.toISOString() ?? null,
  revertedAt: row.reverted_at?.toISOString() ?? null,
});

const RELEASE_SELECT = sql`
  SELECT r.id, r.name, r.status, r.atomicity_mode, r.publish_at, r.maintenance_window, r.created_at, r.updated_at,
         r.published_at, r.reverted_at,
         (SELECT count(*)::int FROM release_items i WHERE i.site_id = r.site_id AND i.release_id = r.id) AS item_count
    FROM releases r`;

export async function listReleases(
  tx: Queryable,
  siteId: string,
  query: { status?: ReleaseStatus; limit: number; page: number },
): Promise<{ releases: ReleaseSummaryView[]; total: number }> {
  const where = query.status ? sql`r.site_id = ${siteId} AND r.status = ${query.status}` : sql`r.site_id = ${siteId}`;
  const rows = await tx.query<ReleaseRow>(
    sql`${RELEASE_SELECT} WHERE ${where} ORDER BY r.created_at DESC, r.id LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`,
  );
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM releases r WHERE ${where}`);
  return { releases: rows.map(summaryOf), total: count?.total ?? 0 };
}

export async function findRelease(tx: Queryable, siteId: string, releaseId: string): Promise<ReleaseView | null> {
  const [row] = await tx.query<ReleaseRow>(sql`${RELEASE_SELECT} WHERE r.site_id = ${siteId} AND r.id = ${releaseId}`);
  if (!row) return null;
  const items = await tx.query<ReleaseItemRow>(sql`
    SELECT collection, item_id, target_status, revision_id::text, added_at, outcome, outcome_reason FROM release_items
     WHERE site_id = ${siteId} AND release_id = ${releaseId} ORDER BY added_at, collection, item_id`);
  return {
    ...summaryOf(row),
    items: items.map((item) => ({
      collection: item.collection,
      itemId: item.item_id,
      targetStatus: item.target_status,
      revisionId: item.revision_id,
      addedAt: item.added_at.toISOString(),
      outcome: item.outcome,
      reason: item.outcome_reason,
    })),
  };
}

/** Indexes (into `items`) of the entries that are not live items of the site. */
export async function missingItems(tx: Queryable, siteId: string, items: readonly { collection: string; itemId: string }[]): Promise<number[]> {
  if (items.length === 0) return [];
  const rows = await tx.query<{ collection: string; id: string }>(sql`
    SELECT i.collection, i.id FROM items i
      JOIN jsonb_to_recordset(${JSON.stringify(items)}::jsonb) AS k(collection text, "itemId" text)
        ON i.collection = k.collection AND i.id = k."itemId"
     WHERE i.site_id = ${siteId} AND i.deleted_at IS NULL`);
  const found = new Set(rows.map((row) => `${row.collection}/${row.id}`));
  return items.flatMap((item, index) => (found.has(`${item.collection}/${item.itemId}`) ? [] : [index]));
}

export interface ItemVersion {
  version: number;
  deleted: boolean;
}

/** The version of each item (soft-deleted ones too) by `<collection>/<itemId>`; an item that does not exist is absent. */
export async function itemVersions(tx: Queryable, siteId: string, items: readonly { collection: string; itemId: string }[]): Promise<Map<string, ItemVersion>> {
  if (items.length === 0) return new Map();
  const rows = await tx.query<{ collection: string; id: string; version: number; deleted: boolean }>(sql`
    SELECT i.collection, i.id, i.version, i.deleted_at IS NOT NULL AS deleted FROM items i
      JOIN jsonb_to_recordset(${JSON.stringify(items)}::jsonb) AS k(collection text, "itemId" text)
        ON i.collection = k.collection AND i.id = k."itemId"
     WHERE i.site_id = ${siteId}`);
  return new Map(rows.map((row) => [`${row.collection}/${row.id}`, { version: row.version, deleted: row.deleted }]));
}
