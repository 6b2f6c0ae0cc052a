// Reads of the item history read models: revisions, named versions, pins, and the item as it stood
// at a past moment (item_history). None of them folds a stream.
import { isStagedCause } from '../../../domain/content/versions/itemSnapshot.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import type { AgentProvenance } from '../../../domain/shared/events.ts';
import { isUuid } from '../../../domain/shared/uuid.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { StoredItemRow } from './historyItemRows.ts';

export interface Revision {
  revisionId: string;
  collection: string;
  item: string;
  /** The item's version this revision made (its stream position). */
  version: number;
  event: string;
  actor: { kind: string; id: string | null };
  /** An agent's write (actor kind `agent`, docs/ai-skills.md): for whom it acted and who approved it; else null. */
  agent: AgentProvenance | null;
  timestamp: string;
  requestId: string | null;
  staged: boolean;
  cause: Record<string, unknown> | null;
  /** The item's draft after the change (`status`, `sort`, content), when it has one. */
  draft: Record<string, unknown> | null;
  /** The whole item after the change (for a staged revision: the live item, which it did not change). */
  data: Record<string, unknown>;
  /** The changed keys with their new values. */
  delta: Record<string, unknown>;
}

interface RevisionRow {
  revision_id: string;
  collection: string;
  item_id: string;
  version: number;
  event_type: string;
  snapshot: Record<string, unknown>;
  delta: Record<string, unknown>;
  cause: Record<string, unknown> | null;
  draft: Record<string, unknown> | null;
  staged: boolean;
  actor_kind: string;
  actor_id: string | null;
  request_id: string | null;
  recorded_at: Date;
  agent: AgentProvenance | null;
}

function revisionOf(row: RevisionRow): Revision {
  return {
    revisionId: row.revision_id,
    collection: row.collection,
    item: row.item_id,
    version: row.version,
    event: row.event_type,
    actor: { kind: row.actor_kind, id: row.actor_id },
    agent: row.agent ?? null,
    timestamp: row.recorded_at.toISOString(),
    requestId: row.request_id,
    staged: row.staged || isStagedCause(row.cause),
    cause: row.cause,
    draft: row.draft,
    data: row.snapshot,
    delta: row.delta,
  };
}

/**
 * A revision with its content: the row says which version, who and when; the content is the data of
 * its event, read from the log by position (the log's primary key) rather than stored twice.
 */
const REVISION_WITH_CONTENT = sql`
  SELECT r.*, e.data->'snapshot' AS snapshot, e.data->'delta' AS delta, e.data->'cause' AS cause, e.data->'draft' AS draft, e.metadata->'agent' AS agent
    FROM item_revisions r JOIN events e ON e.position = r.position`;

export async function listRevisions(
  tx: Queryable,
  key: { siteId: string; collection: string; itemId: string },
  page: { limit: number; page: number },
): Promise<{ revisions: Revision[]; total: number }> {
  const where = sql`r.site_id = ${key.siteId} AND r.collection = ${key.collection} AND r.item_id = ${key.itemId}`;
  const rows = await tx.query<RevisionRow>(sql`
    ${REVISION_WITH_CONTENT}
     WHERE ${where}
     ORDER BY r.version DESC LIMIT ${page.limit} OFFSET ${(page.page - 1) * page.limit}`);
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM item_revisions r WHERE ${where}`);
  return { revisions: rows.map(revisionOf), total: count?.total ?? 0 };
}

/** A revision of the site by id, or null (also for ids that are not UUIDs: revision ids are event ids). */
export async function findRevision(tx: Queryable, siteId: string, revisionId: string): Promise<Revision | null> {
  if (!isUuid(revisionId)) return null;
  const [row] = await tx.query<RevisionRow>(
    sql`${REVISION_WITH_CONTENT} WHERE r.site_id = ${siteId} AND r.revision_id = ${revisionId}::uuid`,
  );
  return row ? revisionOf(row) : null;
}

/** Revisions of the site by id, in one read (ids that are not UUIDs are skipped); in no particular order. */
export async function findRevisions(tx: Queryable, siteId: string, revisionIds: readonly string[]): Promise<Revision[]> {
  const ids = [...new Set(revisionIds.filter(isUuid))];
  if (ids.length === 0) return [];
  const rows = await tx.query<RevisionRow>(sql`${REVISION_WITH_CONTENT} WHERE r.site_id = ${siteId} AND r.revision_id = ANY(${ids}::uuid[])`);
  return rows.map(revisionOf);
}

/** The revision `revisionId` of this very item, or 404 RECORD_NOT_FOUND. */
export async function requireItemRevision(
  tx: Queryable,
  key: { siteId: string; collection: string; itemId: string },
  revisionId: string,
  path: (string | number)[],
): Promise<Revision> {
  const revision = await findRevision(tx, key.siteId, revisionId);
  if (!revision || revision.collection !== key.collection || revision.item !== key.itemId) {
    throw new AppError('RECORD_NOT_FOUND', `No revision ${revisionId} of this item`, { path });
  }
  return revision;
}

/** The revision that made version `version` of the item, or null. */
export async function findRevisionAtVersion(
  tx: Queryable,
  key: { siteId: string; collection: string; itemId: string },
  version: number,
): Promise<Revision | null> {
  const [row] = await tx.query<RevisionRow>(sql`
    ${REVISION_WITH_CONTENT}
     WHERE r.site_id = ${key.siteId} AND r.collection = ${key.collection} AND r.item_id = ${key.itemId} AND r.version = ${version}`);
  return row ? revisionOf(row) : null;
}

/** The live (not soft-deleted) item row, or null. */
export async function findLiveItem(tx: Queryable, siteId: string, collection: string, itemId: string): Promise<StoredItemRow | null> {
  const [row] = await tx.query<StoredItemRow>(sql`
    SELECT * FROM items WHERE site_id = ${siteId} AND collection = ${collection} AND id = ${itemId} AND deleted_at IS NULL`);
  return row ?? null;
}

export async function requireLiveItem(tx: Queryable, siteId: string, collection: string, itemId: string): Promise<StoredItemRow> {
  const row = await findLiveItem(tx, siteId, collection, itemId);
  if (!row) throw new AppError('RECORD_NOT_FOUND', `No item ${itemId} in ${collection}`);
  return row;
}

// ---- named versions ----

export interface ItemVersion {
  key: string;
  name: string;
  collection: string;
  item: string;
  data: Record<string, unknown>;
  /** Main's version when this version was created or last promoted. */
  baseVersion: number;
  /** True when main changed since then. */
  mainChanged: boolean;
  createdAt: string;
  updatedAt: string;
  userCreated: string | null;
  userUpdated: string | null;
  promotedAt: string | null;
}

interface VersionRow {
  key: string;
  name: string;
  collection: string;
  item_id: string;
  data: Record<string, unknown>;
  base_data: Record<string, unknown>;
  base_version: number;
  main_version: number | null;
  created_at: Date;
  updated_at: Date;
  user_created: string | null;
  user_updated: string | null;
  promoted_at: Date | null;
}

function versionOf(row: VersionRow): ItemVersion {
  return {
    key: row.key,
    name: row.name,
    collection: row.collection,
    item: row.item_id,
    data: row.data,
    baseVersion: row.base_version,
    mainChanged: row.main_version !== row.base_version,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    userCreated: row.user_created,
    userUpdated: row.user_updated,
    promotedAt: row.promoted_at?.toISOString() ?? null,
  };
}

const versionColumns = sql`v.key, v.name, v.collection, v.item_id, v.data, v.base_data, v.base_version, v.created_at, v.updated_at,
  v.user_created, v.user_updated, v.promoted_at, i.version AS main_version`;

export async function listVersions(tx: Queryable, key: { siteId: string; collection: string; itemId: string }): Promise<ItemVersion[]> {
  const rows = await tx.query<VersionRow>(sql`
    SELECT ${versionColumns}
      FROM item_versions v
      LEFT JOIN items i ON i.site_id = v.site_id AND i.collection = v.collection AND i.id = v.item_id
     WHERE v.site_id = ${key.siteId} AND v.collection = ${key.collection} AND v.item_id = ${key.itemId}
     ORDER BY v.created_at, v.key`);
  return rows.map(versionOf);
}

export async function findVersion(
  tx: Queryable,
  key: { siteId: string; collection: string; itemId: string },
  versionKey: string,
): Promise<ItemVersion | null> {
  const row = await findVersionRow(tx, key, versionKey);
  return row ? versionOf(row) : null;
}

/** A version with the base it was made from (main's content then), for promotion. */
export async function findVersionWithBase(
  tx: Queryable,
  key: { siteId: string; collection: string; itemId: string },
  versionKey: string,
): Promise<(ItemVersion & { baseData: Record<string, unknown> }) | null> {
  const row = await findVersionRow(tx, key, versionKey);
  return row ? { ...versionOf(row), baseData: row.base_data } : null;
}

async function findVersionRow(
  tx: Queryable,
  key: { siteId: string; collection: string; itemId: string },
  versionKey: string,
): Promise<VersionRow | null> {
  const [row] = await tx.query<VersionRow>(sql`
    SELECT ${versionColumns}
      FROM item_versions v
      LEFT JOIN items i ON i.site_id = v.site_id AND i.collection = v.collection AND i.id = v.item_id
     WHERE v.site_id = ${key.siteId} AND v.collection = ${key.collection} AND v.item_id = ${key.itemId} AND v.key = ${versionKey}`);
  return row ?? null;
}

export async function requireVersion(
  tx: Queryable,
  key: { siteId: string; collection: string; itemId: string },
  versionKey: string,
): Promise<ItemVersion> {
  const version = await findVersion(tx, key, versionKey);
  if (!version) throw new AppError('NOT_FOUND', `No version "${versionKey}" on this item`, { path: ['params', 'key'] });
  return version;
}

// ---- pins ----

export interface ItemPin {
  collection: string;
  item: string;
  field: string;
  revisionId: string;
  target: { collection: string; item: string };
  createdAt: string;
  userCreated: string | null;
  /** The pinned revision's item: what readers see through this pin. */
  pinned: Record<string, unknown>;
}

interface PinRow {
  collection: string;
  item_id: string;
  field: string;
  revision_id: string;
  target_collection: string;
  target_item_id: string;
  created_at: Date;
  user_created: string | null;
  snapshot: Record<string, unknown> | null;
}

function pinOf(row: PinRow): ItemPin {
  return {
    collection: row.collection,
    item: row.item_id,
    field: row.field,
    revisionId: row.revision_id,
    target: { collection: row.target_collection, item: row.target_item_id },
    createdAt: row.created_at.toISOString(),
    userCreated: row.user_created,
    pinned: row.snapshot ?? {},
  };
}

export async function listPins(
  tx: Queryable,
  key: { siteId: string; collection: string; itemId: string },
  field: string | null = null,
): Promise<ItemPin[]> {
  const rows = await tx.query<PinRow>(sql`
    SELECT p.*, e.data->'snapshot' AS snapshot
      FROM item_pins p
      LEFT JOIN item_revisions r ON r.site_id = p.site_id AND r.revision_id = p.revision_id
      LEFT JOIN events e ON e.position = r.position
     WHERE p.site_id = ${key.siteId} AND p.collection = ${key.collection} AND p.item_id = ${key.itemId}
       AND (${field}::text IS NULL OR p.field = ${field}::text)
     ORDER BY p.field`);
  return rows.map(pinOf);
}
