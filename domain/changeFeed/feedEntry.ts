// Which events of the log become change-feed entries, and how: `<resource>.<operation>` with the
// collection, the item (or schema object) id, the state after the change and the changed keys.
// Pure: the projection stores what this returns (an entry's data by reference to the log where it is
// a part of the event's data as it is), the realtime fan-out reads the same mapping.

const SCHEMA_RESOURCES = ['items', 'collections', 'fields', 'relations'] as const;
export const FEED_RESOURCES = [...SCHEMA_RESOURCES, 'releases', 'erasures'] as const;
export type FeedResource = (typeof FEED_RESOURCES)[number];
const CHANGE_OPERATIONS = ['create', 'update', 'delete'] as const;
/** A release's publish and revert are one entry each, besides the entries of the items they wrote. */
const RELEASE_OPERATIONS = ['publish', 'revert'] as const;
/** An executed erasure is one entry (besides its records' deletes), so that downstream copies are erased too. */
const ERASURE_OPERATIONS = ['execute'] as const;
export const FEED_OPERATIONS = [...CHANGE_OPERATIONS, ...RELEASE_OPERATIONS, ...ERASURE_OPERATIONS] as const;
export type FeedOperation = (typeof FEED_OPERATIONS)[number];
export type FeedType =
  | `${(typeof SCHEMA_RESOURCES)[number]}.${(typeof CHANGE_OPERATIONS)[number]}`
  | `releases.${(typeof RELEASE_OPERATIONS)[number]}`
  | `erasures.${(typeof ERASURE_OPERATIONS)[number]}`;

export const FEED_TYPES: readonly FeedType[] = [
  ...SCHEMA_RESOURCES.flatMap((resource) => CHANGE_OPERATIONS.map((operation) => `${resource}.${operation}` as FeedType)),
  ...RELEASE_OPERATIONS.map((operation) => `releases.${operation}` as FeedType),
  ...ERASURE_OPERATIONS.map((operation) => `erasures.${operation}` as FeedType),
];

/** Log event type → feed type. Restore brings an item back (create); revert and promote rewrite it (update). */
export const FEED_TYPE_OF_EVENT: Readonly<Record<string, FeedType>> = {
  'item.created': 'items.create',
  'item.updated': 'items.update',
  'item.reverted': 'items.update',
  'item.promoted': 'items.update',
  'item.restored': 'items.create',
  'item.deleted': 'items.delete',
  'item.hard_deleted': 'items.delete',
  'collection.created': 'collections.create',
  'collection.updated': 'collections.update',
  'collection.deleted': 'collections.delete',
  'field.added': 'fields.create',
  'field.updated': 'fields.update',
  'field.removed': 'fields.delete',
  'relation.created': 'relations.create',
  'relation.updated': 'relations.update',
  'relation.deleted': 'relations.delete',
  'release.published': 'releases.publish',
  'release.reverted': 'releases.revert',
  data_erased: 'erasures.execute',
};

export const FEED_EVENT_TYPES: readonly string[] = Object.keys(FEED_TYPE_OF_EVENT);

export interface FeedEntryDraft {
  type: FeedType;
  collection: string | null;
  itemId: string | null;
  /** The object after the change (item snapshot, collection meta, field definition, relation); null once deleted. */
  data: Record<string, unknown> | null;
  /**
   * The key of the event's data whose value is `data` itself, unchanged (items: `snapshot`, fields:
   * `field`): the feed reads it from the log at read time instead of keeping a copy. null when `data`
   * is built from the event (collections, relations) or is null.
   */
  dataKey: string | null;
  changedKeys: string[];
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** The feed entry for one log event, or null when the event is not part of the feed. */
export function feedEntryOf(event: { type: string; data: Record<string, unknown> }): FeedEntryDraft | null {
  const type = FEED_TYPE_OF_EVENT[event.type];
  if (!type) return null;
  const data = event.data;
  const [resource, operation] = type.split('.') as [FeedResource, FeedOperation];
  switch (resource) {
    case 'items': {
      const snapshot = record(data.snapshot);
      const delta = record(data.delta);
      return {
        type,
        collection: text(data.collection),
        itemId: text(data.itemId) ?? text(snapshot?.id),
        data: snapshot,
        dataKey: snapshot ? 'snapshot' : null,
        changedKeys: delta ? Object.keys(delta) : snapshot && operation === 'create' ? Object.keys(snapshot) : [],
      };
    }
    case 'collections': {
      const meta = record(data.meta);
      return {
        type,
        collection: text(data.collection),
        itemId: text(data.collection),
        data: operation === 'delete' ? null : { collection: text(data.collection), meta: meta ?? {} },
        dataKey: null,
        changedKeys: meta ? Object.keys(meta) : [],
      };
    }
    case 'fields': {
      const field = record(data.field);
      const name = field ? text(field.field) : text(data.field);
      return {
        type,
        collection: text(data.collection),
        itemId: name,
        data: operation === 'delete' ? null : field,
        dataKey: operation === 'delete' || !field ? null : 'field',
        changedKeys: field ? Object.keys(field) : [],
      };
    }
    case 'releases': {
      // Site administrators' entries (restricted readers never see them): the release and what happened to each item.
      const { releaseId, ...rest } = data;
      return { type, collection: null, itemId: text(releaseId), data: { releaseId: text(releaseId), ...rest }, dataKey: null, changedKeys: Object.keys(rest) };
    }
    case 'erasures': {
      // Site administrators' entries, like releases': the erased records by id, the subject by its keyed hash.
      const { erasureId, ...rest } = data;
      return { type, collection: text(data.collection), itemId: text(erasureId), data: { erasureId: text(erasureId), ...rest }, dataKey: null, changedKeys: Object.keys(rest) };
    }
    case 'relations': {
      const { relationId, ...rest } = data;
      return {
        type,
        // Relation events carry the definition under `relation`; its collection is the side that holds the key.
        collection: text(data.collection) ?? text(record(data.relation)?.collection) ?? text(data.manyCollection) ?? null,
        itemId: text(relationId),
        data: operation === 'delete' ? null : { relationId: text(relationId), ...rest },
        dataKey: null,
        changedKeys: Object.keys(rest),
      };
    }
  }
}

/** What a realtime `event` frame says about an item change: signal only, no row data. */
export interface ItemSignal {
  collection: string;
  action: FeedOperation;
  itemId: string;
}

export function itemSignalOf(event: { type: string; data: Record<string, unknown> }): ItemSignal | null {
  const type = FEED_TYPE_OF_EVENT[event.type];
  if (!type || !type.startsWith('items.')) return null;
  const collection = text(event.data.collection);
  const itemId = text(event.data.itemId) ?? text(record(event.data.snapshot)?.id);
  if (!collection || !itemId) return null;
  return { collection, action: type.slice('items.'.length) as FeedOperation, itemId };
}
