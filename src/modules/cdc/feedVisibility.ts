// What one reader sees of the change feed, by the rules its item and schema reads follow (src/access):
// `items.*` entries of collections it may read whose snapshot (the item as it was at that change, a
// delete's too) its read conditions admit, with only the fields it may read in `snapshot` and
// `changedKeys`; schema entries of what GET /collections, /fields and /relations show it.
// Administrators read the feed as stored, with no work per entry beyond the sensitive-read log.
import { ITEM_ACTIONS } from '../../../domain/access/permissionRule.ts';
import { HASH_MASK } from '../../../domain/content/fieldValues.ts';
import { STRUCTURAL_KEY_SET } from '../../../domain/content/schemaModel.ts';
import type { SensitiveRead } from '../../../domain/content/sensitiveReads.ts';
import { join, raw, sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import type { Access } from '../../access/access.ts';
import { canReadField, itemReadPermissions, maskItem, type ReadPermissions } from '../../access/itemAccess.ts';
import { canSeeCollection, canSeeField, canSeeRelation } from '../../access/schemaAccess.ts';
import { ITEMS_TABLE } from '../../query/index.ts';
import type { SiteSchema } from '../../schema/siteSchema.ts';
import { DECRYPT_EVERYTHING, mayDecryptFor, type MayDecrypt } from '../encryption/reveal.ts';
import { sensitiveReadOf } from '../items/historyItemRows.ts';
import { FEED_ROW_COLUMNS, FEED_SNAPSHOT_SQL, FEED_SOURCE, type FeedEnvelope, type FeedRow, type StoredFeedRow } from './feedEnvelope.ts';

/** What a reader's check of an entry's row says: `row_visible` is false when its read conditions exclude the entry's item. */
interface RowVisibility {
  collection: string | null;
  row_visible: boolean;
}

/** A feed row as a reader's query selects it (FeedView.from). */
export interface SelectedFeedRow extends StoredFeedRow, RowVisibility {}

/** A feed row as the view presents it: its envelope as served. */
export interface VisibleFeedRow extends FeedRow, RowVisibility {}

/** An entry as one reader receives it. */
export interface PresentedEntry {
  seq: number;
  /** The envelope as JSON text. */
  envelope: string;
  /** The pii/phi fields the entry shows with a value (logged like an item read), or null. */
  sensitive: SensitiveRead | null;
}

export interface FeedView {
  /** The reader reads every entry as stored (administrators). */
  readonly everything: boolean;
  /** The select list and FROM of a page (cdc_feed aliased `f`, FEED_SOURCE), giving SelectedFeedRow. */
  readonly from: SqlFragment;
  /** Entries the reader may see at all, by type and collection (alias `f`); null: every entry. */
  readonly scope: SqlFragment | null;
  /** The entry as the reader sees it, or null when it is left out. */
  present(row: VisibleFeedRow): PresentedEntry | null;
  /** Whether the reader sees a pii/phi field's value rather than its mask (`read_decrypted`). */
  readonly mayDecrypt: MayDecrypt;
}

/** The key an entry keeps whatever the field list: when the item was deleted (null otherwise), not a field of the collection. */
const DELETED_AT = 'deletedAt';
/** The actor of an item change is the item's `userUpdated` after it: shown to readers of that field. */
const ACTOR_FIELD = 'userUpdated';

export function feedViewFor(access: Access, schema: SiteSchema): FeedView {
  return access.admin ? everythingView(schema) : restrictedView(access, schema);
}

function everythingView(schema: SiteSchema): FeedView {
  const sensitive = new Set([...schema.collections.values()].filter((collection) => collection.sensitiveFields.size > 0).map((collection) => collection.name));
  return {
    everything: true,
    mayDecrypt: DECRYPT_EVERYTHING,
    from: sql`${FEED_ROW_COLUMNS}, f.collection, TRUE AS row_visible FROM ${FEED_SOURCE}`,
    scope: null,
    present(row) {
      if (sensitive.size === 0 || row.collection === null || !sensitive.has(row.collection) || !row.type.startsWith('items.')) {
        return { seq: row.seq, envelope: row.envelope, sensitive: null };
      }
      const envelope = JSON.parse(row.envelope) as FeedEnvelope;
      const read = row.item_id === null ? null : sensitiveReadOf(schema.collections.get(row.collection), row.item_id, [envelope.snapshot]);
      return { seq: row.seq, envelope: row.envelope, sensitive: read };
    },
  };
}

/**
 * The item a feed entry's snapshot describes, as a row of the items table (alias `i`), so that the
 * read conditions compile exactly as for item reads; relational conditions read the related items
 * as they are now.
 */
function snapshotRow(conditioned: string[]): SqlFragment {
  return sql`
    LEFT JOIN LATERAL (
      SELECT f.site_id, f.collection, s->>'id' AS id, s->>'status' AS status,
             CASE WHEN jsonb_typeof(s->'sort') = 'number' THEN (s->>'sort')::numeric::integer END AS sort,
             (s->>'createdAt')::timestamptz AS created_at, (s->>'updatedAt')::timestamptz AS updated_at,
             s->>'userCreated' AS user_created, s->>'userUpdated' AS user_updated, (s->>'deletedAt')::timestamptz AS deleted_at,
             coalesce(s, '{}'::jsonb) AS data
        FROM (SELECT ${FEED_SNAPSHOT_SQL} AS s) snapshot
       WHERE f.type LIKE 'items.%' AND f.collection = ANY(${conditioned}::text[])
    ) i ON true`;
}

function restrictedView(access: Access, schema: SiteSchema): FeedView {
  const permissions = itemReadPermissions(access)!;
  const named = new Set<string>();
  for (const rule of access.grants.rules) if (rule.collection !== null && (ITEM_ACTIONS as readonly string[]).includes(rule.action)) named.add(rule.collection);
  // Items of a collection that is gone are not read by item routes either (404): they stay out.
  const readable = [...named].filter((name) => schema.collections.has(name) && access.can('read', name) && !isNothing(access, name));
  const visibleSchema = [...named].filter((name) => canSeeCollection(access, name));
  const conditions = new Map<string, SqlFragment>();
  for (const name of readable) {
    const condition = permissions.rowCondition(name, 'i', ITEMS_TABLE);
    if (condition) conditions.set(name, condition);
  }

  const rowVisible =
    conditions.size === 0
      ? raw('TRUE')
      : sql`CASE WHEN f.type NOT LIKE 'items.%' THEN TRUE ${join(
          [...conditions].map(([name, condition]) => sql`WHEN f.collection = ${name}::text THEN coalesce(${condition}, FALSE)`),
          ' ',
        )} ELSE TRUE END`;
  const from =
    conditions.size === 0
      ? sql`${FEED_ROW_COLUMNS}, f.collection, TRUE AS row_visible FROM ${FEED_SOURCE}`
      : sql`${FEED_ROW_COLUMNS}, f.collection, ${rowVisible} AS row_visible FROM ${FEED_SOURCE} ${snapshotRow([...conditions.keys()])}`;
  const scopes = [sql`(f.type LIKE 'items.%' AND f.collection = ANY(${readable}::text[]))`];
  if (visibleSchema.length > 0) {
    scopes.push(sql`((f.type LIKE 'collections.%' OR f.type LIKE 'fields.%') AND f.collection = ANY(${visibleSchema}::text[]))`);
    // A deleted relation's entry has no definition to check (its snapshot is null): it stays out.
    scopes.push(sql`f.type IN ('relations.create', 'relations.update')`);
  }

  return {
    mayDecrypt: mayDecryptFor(permissions),
    everything: false,
    from,
    scope: sql`(${join(scopes, ' OR ')})`,
    present(row) {
      const [resource] = row.type.split('.');
      if (resource === 'items') return row.row_visible ? presentItem(access, permissions, schema, row) : null;
      const shown =
        resource === 'collections'
          ? row.collection !== null && canSeeCollection(access, row.collection)
          : resource === 'fields'
            ? row.collection !== null && row.item_id !== null && canSeeField(access, row.collection, row.item_id)
            : resource === 'relations' && relationVisible(access, row);
      return shown ? { seq: row.seq, envelope: row.envelope, sensitive: null } : null;
    },
  };
}

function isNothing(access: Access, collection: string): boolean {
  const node = access.rowFilter('read', collection);
  return node.kind === 'constant' && !node.value;
}

function relationVisible(access: Access, row: VisibleFeedRow): boolean {
  if (row.type === 'relations.delete') return false;
  const snapshot = (JSON.parse(row.envelope) as FeedEnvelope).snapshot;
  const nested = snapshot?.relation;
  const definition = (typeof nested === 'object' && nested !== null ? nested : snapshot) as Record<string, unknown> | null;
  if (!definition || typeof definition.collection !== 'string') return false;
  return canSeeRelation(access, definition as Parameters<typeof canSeeRelation>[1]);
}

/** An item entry with the snapshot fields and changed keys the reader may read (hash values masked as item reads mask them). */
function presentItem(access: Access, permissions: ReadPermissions, schema: SiteSchema, row: VisibleFeedRow): PresentedEntry | null {
  const collection = row.collection === null ? undefined : schema.collections.get(row.collection);
  if (!collection) return null;
  const envelope = JSON.parse(row.envelope) as FeedEnvelope;
  // Values of fields removed since are never shown again, as item reads never show them.
  const known = (key: string) => STRUCTURAL_KEY_SET.has(key) || (collection.fields.has(key) && !collection.aliasFields.has(key));
  let snapshot: Record<string, unknown> | null = null;
  if (envelope.snapshot) {
    const current: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(envelope.snapshot)) {
      if (!known(key)) continue;
      current[key] = collection.hashFields.has(key) && value !== null && value !== undefined ? HASH_MASK : value;
    }
    snapshot = maskItem(access, collection.name, current) as Record<string, unknown>;
    if (DELETED_AT in envelope.snapshot) snapshot[DELETED_AT] = envelope.snapshot[DELETED_AT];
  }
  const shown: FeedEnvelope = {
    ...envelope,
    actor: canReadField(access, collection.name, ACTOR_FIELD) ? envelope.actor : { ...envelope.actor, id: null },
    snapshot,
    changedKeys: envelope.changedKeys.filter((key) => key === DELETED_AT || (known(key) && canReadField(access, collection.name, key))),
  };
  // Only the pii/phi values this reader decrypts are reads of them: masked ones reveal nothing.
  const decrypted = snapshot && Object.fromEntries(Object.entries(snapshot).filter(([key]) => !collection.sensitiveFields.has(key) || permissions.mayDecrypt(collection.name, key, { ...snapshot, id: row.item_id })));
  return { seq: row.seq, envelope: JSON.stringify(shown), sensitive: row.item_id === null ? null : sensitiveReadOf(collection, row.item_id, [decrypted]) };
}
