// Reads of the presets read model (docs/presets.md). A caller's presets are those of their owner keys:
// `u:<their id>`, `r:<each role of their chain>` and `g`, ranked in that order of precedence. The
// chain walks `roles.parentId` up from the caller's role in the same query, bounded and cycle-safe.
import { scopeOf, type PresetScope } from '../../../domain/presets/events.ts';
import { isUuid } from '../../../domain/shared/uuid.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { MAX_ROLE_DEPTH } from '../../access/grants.ts';

export interface PresetView {
  id: string;
  collection: string;
  bookmark: string | null;
  userId: string | null;
  roleId: string | null;
  scope: PresetScope;
  layout: string;
  query: Record<string, unknown>;
  options: Record<string, unknown>;
  icon: string | null;
  color: string | null;
  createdAt: string;
  updatedAt: string;
}
export type AppliedPresetView = PresetView & { sourceScope: PresetScope };

interface PresetRow {
  id: string;
  collection: string;
  bookmark: string | null;
  user_id: string | null;
  role_id: string | null;
  layout: string;
  query: Record<string, unknown>;
  options: Record<string, unknown>;
  icon: string | null;
  color: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Whose presets a caller sees: their own (a user of the site), their role's chain, and the global ones. */
export interface PresetViewer {
  userId: string | null;
  roleId: string | null;
}

const viewOf = (row: PresetRow): PresetView => {
  const owner = { userId: row.user_id, roleId: row.role_id };
  return {
    id: row.id,
    collection: row.collection,
    bookmark: row.bookmark,
    ...owner,
    scope: scopeOf(owner),
    layout: row.layout,
    query: row.query,
    options: row.options,
    icon: row.icon,
    color: row.color,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
};
const appliedViewOf = (row: PresetRow): AppliedPresetView => {
  const view = viewOf(row);
  return { ...view, sourceScope: view.scope };
};

const COLUMNS = sql`p.id::text, p.collection, p.bookmark, p.user_id::text, p.role_id::text, p.layout, p.query, p.options, p.icon, p.color, p.created_at, p.updated_at`;
/** The rank of global presets: after every role of the chain. */
const GLOBAL_RANK = MAX_ROLE_DEPTH + 2;

/** `WITH RECURSIVE … owners(scope_key, rank)`: the viewer's owner keys, the nearest first. */
function ownersOf(siteId: string, viewer: PresetViewer): SqlFragment {
  const userId = viewer.userId !== null && isUuid(viewer.userId) ? viewer.userId : null;
  const roleId = viewer.roleId !== null && isUuid(viewer.roleId) ? viewer.roleId : null;
  return sql`
    WITH RECURSIVE chain(id, parent_id, depth) AS (
      SELECT r.id, r.parent_id, 0 FROM roles r WHERE r.site_id = ${siteId} AND r.id = ${roleId}::uuid
      UNION ALL
      SELECT r.id, r.parent_id, c.depth + 1 FROM roles r JOIN chain c ON r.site_id = ${siteId} AND r.id = c.parent_id
       WHERE c.depth < ${MAX_ROLE_DEPTH}
    ),
    owners(scope_key, rank) AS (
      SELECT 'u:' || ${userId}::uuid::text, 0 WHERE ${userId}::uuid IS NOT NULL
      UNION ALL
      SELECT 'r:' || id::text, 1 + min(depth) FROM chain GROUP BY id
      UNION ALL
      SELECT 'g', ${GLOBAL_RANK}::int
    )`;
}

const collectionIs = (collection: string | undefined) => (collection === undefined ? sql`` : sql`AND p.collection = ${collection}`);

/** A page of the site's presets (an administrator's list: every one), oldest first. */
export async function listAllPresets(tx: Queryable, siteId: string, query: { collection?: string; limit: number; page: number }) {
  const rows = await tx.query<PresetRow>(sql`
    SELECT ${COLUMNS} FROM presets p WHERE p.site_id = ${siteId} ${collectionIs(query.collection)}
     ORDER BY p.created_at, p.id LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`);
  const [count] = await tx.query<{ total: number }>(
    sql`SELECT count(*)::int AS total FROM presets p WHERE p.site_id = ${siteId} ${collectionIs(query.collection)}`,
  );
  return { presets: rows.map(viewOf), total: count?.total ?? 0 };
}

/** A page of the presets `viewer` sees: their own, their role chain's and the global ones, oldest first. */
export async function listVisiblePresets(tx: Queryable, siteId: string, viewer: PresetViewer, query: { collection?: string; limit: number; page: number }) {
  const owners = ownersOf(siteId, viewer);
  const rows = await tx.query<PresetRow>(sql`
    ${owners}
    SELECT ${COLUMNS} FROM presets p JOIN owners o ON o.scope_key = p.scope_key
     WHERE p.site_id = ${siteId} ${collectionIs(query.collection)}
     ORDER BY p.created_at, p.id LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`);
  const [count] = await tx.query<{ total: number }>(sql`
    ${owners}
    SELECT count(*)::int AS total FROM presets p JOIN owners o ON o.scope_key = p.scope_key
     WHERE p.site_id = ${siteId} ${collectionIs(query.collection)}`);
  return { presets: rows.map(viewOf), total: count?.total ?? 0 };
}

/** The default view of `collection` for `viewer`: theirs, else the nearest role's of the chain, else the global one; null when none. */
export async function findEffectivePreset(tx: Queryable, siteId: string, viewer: PresetViewer, collection: string): Promise<AppliedPresetView | null> {
  const [row] = await tx.query<PresetRow>(effectivePresetQuery(siteId, viewer, collection));
  return row ? appliedViewOf(row) : null;
}

/** The one statement of findEffectivePreset (the benchmark explains it): the slot index per owner key, the nearest that has one. */
export function effectivePresetQuery(siteId: string, viewer: PresetViewer, collection: string): SqlFragment {
  return sql`
    ${ownersOf(siteId, viewer)}
    SELECT ${COLUMNS} FROM presets p JOIN owners o ON o.scope_key = p.scope_key
     WHERE p.site_id = ${siteId} AND p.collection = ${collection} AND coalesce(lower(p.bookmark), '') = '' AND p.bookmark IS NULL
     ORDER BY o.rank LIMIT 1`;
}

/** The bookmarks of `collection` that `viewer` sees, by name (then the nearest scope first). */
export async function listVisibleBookmarks(tx: Queryable, siteId: string, viewer: PresetViewer, collection: string): Promise<AppliedPresetView[]> {
  const rows = await tx.query<PresetRow>(sql`
    ${ownersOf(siteId, viewer)}
    SELECT ${COLUMNS} FROM presets p JOIN owners o ON o.scope_key = p.scope_key
     WHERE p.site_id = ${siteId} AND p.collection = ${collection} AND p.bookmark IS NOT NULL
     ORDER BY lower(p.bookmark), p.bookmark, o.rank, p.id`);
  return rows.map(appliedViewOf);
}

/** Whether `viewer` sees the preset (it is theirs, their role chain's or global). */
export async function presetVisibleTo(tx: Queryable, siteId: string, viewer: PresetViewer, presetId: string): Promise<boolean> {
  const rows = await tx.query(sql`
    ${ownersOf(siteId, viewer)}
    SELECT 1 FROM presets p JOIN owners o ON o.scope_key = p.scope_key WHERE p.site_id = ${siteId} AND p.id = ${presetId}`);
  return rows.length > 0;
}

export async function findPreset(tx: Queryable, siteId: string, presetId: string): Promise<PresetView | null> {
  const [row] = await tx.query<PresetRow>(sql`SELECT ${COLUMNS} FROM presets p WHERE p.site_id = ${siteId} AND p.id = ${presetId}`);
  return row ? viewOf(row) : null;
}

/** The preset holding the slot (an owner's default view, or its bookmark of that name) of a collection, other than `exceptId`. */
export async function presetSlotTaken(
  tx: Queryable,
  siteId: string,
  slot: { collection: string; userId: string | null; roleId: string | null; bookmark: string | null },
  exceptId: string | null,
): Promise<boolean> {
  const rows = await tx.query(sql`
    SELECT 1 FROM presets
     WHERE site_id = ${siteId} AND collection = ${slot.collection}
       AND scope_key = CASE WHEN ${slot.userId}::uuid IS NOT NULL THEN 'u:' || ${slot.userId}::uuid::text
                            WHEN ${slot.roleId}::uuid IS NOT NULL THEN 'r:' || ${slot.roleId}::uuid::text ELSE 'g' END
       AND coalesce(lower(bookmark), '') = coalesce(lower(${slot.bookmark}::text), '')
       AND id IS DISTINCT FROM ${exceptId}::uuid`);
  return rows.length > 0;
}

/** Whether `userId` is a live user of the site. */
export async function isSiteMember(tx: Queryable, siteId: string, userId: string): Promise<boolean> {
  const rows = await tx.query(sql`SELECT 1 FROM users WHERE site_id = ${siteId} AND id = ${userId}::uuid AND deleted_at IS NULL`);
  return rows.length > 0;
}

/** Whether `roleId` is a role of the site. */
export async function isSiteRole(tx: Queryable, siteId: string, roleId: string): Promise<boolean> {
  const rows = await tx.query(sql`SELECT 1 FROM roles WHERE site_id = ${siteId} AND id = ${roleId}::uuid`);
  return rows.length > 0;
}
