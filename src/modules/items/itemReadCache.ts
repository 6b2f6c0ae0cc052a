// The per-instance cache of item reads by id (docs/content.md "The read cache"): GET
// /items/:collection/:id answers, serialized, by site, collection, id, reader, locale and fields.
// An answer is served while all of these hold:
// - its site has had no committed event since it was built. Every write that can change it is an
//   event of its site: the item, an item it points at, the schema, the reader's grants, a setting.
//   This instance's commits retire it before their callers go on (read your writes); other
//   instances' through the svc_events NOTIFY (src/runtime/siteChanges.ts), as delivery's
//   fingerprints are.
// - the reader's grants and the site's schema are the very objects it was built with (their caches
//   hand out new ones after a change, and revalidate against the site's versions): a read that ran
//   between a schema commit and the schema cache's reload cannot pass its answer off as current.
// - it is younger than MAX_AGE_MS: a notification lost while the listener reconnects costs at most that.
// Only reads whose answer depends on nothing else are stored (`readCacheKey`). A read
// begun before a change does not store its (older) answer. At most `maxEntries` answers and
// MAX_BYTES of them are kept (an answer above MAX_ANSWER_BYTES never is: the locale header and the
// field list make many keys of one large item); the oldest not served since it was stored (or last
// spared) goes first (second chance).
import { usesNow, type Access } from '../../access/access.ts';
import type { Grants } from '../../access/grants.ts';
import type { CollectionSchema, SiteSchema } from '../../schema/siteSchema.ts';
import { cacheStats, type CacheStats } from '../../../infra/metrics/metrics.ts';
import type { AppContext } from '../../runtime/context.ts';
import { watchSiteChanges } from '../../runtime/siteChanges.ts';

export interface CachedRead {
  /** The serialized `{ data }` envelope. */
  body: string;
  version: number;
}

/** What an answer was built for besides its key: the reader's grants and the site's schema, as cached now. */
export interface ReadBasis {
  grants: Grants;
  schema: SiteSchema;
}

interface Entry extends CachedRead {
  generation: number;
  grants: Grants;
  schema: SiteSchema;
  storedAt: number;
  /** Served since it was stored or last spared: the eviction spares it once (second chance). */
  used: boolean;
}

/** A safety net for a commit notification lost while the listener reconnects: no answer is older. */
const MAX_AGE_MS = 5_000;

export interface ItemReadCache {
  /** The answer stored under `key` if its site has not changed since and it was built for `basis`. */
  get(siteId: string, key: string, basis: ReadBasis): CachedRead | null;
  /** Called before a read: stores its answer unless the site changed while it ran (or it is too large). */
  begin(siteId: string): (key: string, basis: ReadBasis, answer: CachedRead) => void;
  /** Answers held now (at most maxEntries), and their bytes (at most maxBytes). */
  readonly size: number;
  readonly bytes: number;
  readonly stats: CacheStats;
  close(): void;
}

export interface ItemReadCacheRuntime {
  /** null when SVC_ITEM_READ_CACHE is 0. */
  cache: ItemReadCache | null;
  close(): void;
}

export interface ReadOfOne {
  access: Access;
  collection: CollectionSchema;
  id: string;
  fields: string[] | null;
  deep: Record<string, unknown>;
  locale: string | null;
}

/**
 * The cache key of a read by id whose answer depends only on the item's row, its site's schema and
 * settings, and the reader's grants and identity; null for any other read. Left out: a nested field
 * or `deep` (a related collection's pii/phi values are logged read by read), a collection with
 * pii/phi fields (the same), and readers with a read rule that uses $NOW, of any collection (the
 * clock alone changes what they see). Time travel, drafts and release previews are never asked (the route).
 */
export function readCacheKey({ access, collection, id, fields, deep, locale }: ReadOfOne): string | null {
  if (collection.sensitiveFields.size > 0 || Object.keys(deep).length > 0) return null;
  if (fields?.some((field) => field.includes('.'))) return null;
  if (!access.admin && readsVaryWithTime(access.grants)) return null;
  const { principal } = access;
  const reader = principal.kind === 'user' ? `${principal.userId}\u0000${principal.roleId ?? ''}\u0000${access.admin ? 1 : 0}` : principal.kind;
  // NUL separates the parts: no request may carry it (a 400 at its path), and names, ids, user ids
  // and language tags have patterns without it.
  return `${collection.name}\u0000${id}\u0000${reader}\u0000${locale ?? ''}\u0000${JSON.stringify(fields)}`;
}

const timeDependence = new WeakMap<Grants, boolean>();

/**
 * Whether any read rule of the grants uses $NOW: the rules of every collection count, since an
 * answer also lists the ids of related items the reader may see (a one-to-many field, say).
 */
function readsVaryWithTime(grants: Grants): boolean {
  let varies = timeDependence.get(grants);
  if (varies === undefined) {
    varies = grants.rules.some((rule) => rule.action === 'read' && usesNow(rule.conditions));
    timeDependence.set(grants, varies);
  }
  return varies;
}

/** Bounds of the cache: answers (SVC_ITEM_READ_CACHE) and bytes, and the largest answer kept. */
export interface ItemReadCacheBounds {
  maxEntries: number;
  /** Bytes of answers held at most (UTF-16 code units counted: about the heap they take). */
  maxBytes?: number;
  /** A larger answer is served from the database each time: a few large items cannot fill the cache. */
  maxAnswerBytes?: number;
}

const MAX_BYTES = 32 * 1024 * 1024;
const MAX_ANSWER_BYTES = 64 * 1024;

export function createItemReadCache(context: Pick<AppContext, 'database' | 'notifier'>, bounds: ItemReadCacheBounds): ItemReadCache {
  const { maxEntries, maxBytes = MAX_BYTES, maxAnswerBytes = MAX_ANSWER_BYTES } = bounds;
  const entries = new Map<string, Entry>();
  let bytes = 0;
  const changes = watchSiteChanges(context, () => undefined);
  const stats = cacheStats();
  const idOf = (siteId: string, key: string) => `${siteId}\u0000${key}`;
  function drop(id: string): void {
    const entry = entries.get(id);
    if (!entry) return;
    entries.delete(id);
    bytes -= entry.body.length;
  }
  /** The least recently stored answer that was not served since; those served are kept once more. */
  function evictOne(): void {
    for (const [id, entry] of entries) {
      entries.delete(id);
      if (!entry.used) {
        bytes -= entry.body.length;
        return;
      }
      entry.used = false;
      entries.set(id, entry);
    }
  }
  return {
    stats,
    get size() {
      return entries.size;
    },
    get bytes() {
      return bytes;
    },
    get(siteId, key, reader) {
      const id = idOf(siteId, key);
      const entry = entries.get(id);
      const current =
        entry &&
        entry.generation === changes.generation(siteId) &&
        entry.grants === reader.grants &&
        entry.schema === reader.schema &&
        Date.now() - entry.storedAt < MAX_AGE_MS;
      if (!current) {
        drop(id);
        stats.misses += 1;
        return null;
      }
      // Marked, not moved: a move per hit would store this request's key string in the long-lived map
      // and rebuild its table now and then, both promoted to V8's old space at tens of thousands of hits a second.
      entry.used = true;
      stats.hits += 1;
      return entry;
    },
    begin(siteId) {
      const generation = changes.generation(siteId);
      return (key, reader, answer) => {
        if (changes.generation(siteId) !== generation || answer.body.length > maxAnswerBytes) return;
        const id = idOf(siteId, key);
        drop(id);
        while (entries.size > 0 && (entries.size >= maxEntries || bytes + answer.body.length > maxBytes)) evictOne();
        entries.set(id, { body: answer.body, version: answer.version, generation, grants: reader.grants, schema: reader.schema, storedAt: Date.now(), used: false });
        bytes += answer.body.length;
      };
    },
    close: changes.close,
  };
}

/** The items area's runtime (started by its manifest): the read cache and its metrics. */
export function startItemReadCache(context: AppContext): ItemReadCacheRuntime {
  const maxEntries = context.config.SVC_ITEM_READ_CACHE;
  if (maxEntries === 0) return { cache: null, close: () => undefined };
  const cache = createItemReadCache(context, { maxEntries });
  const unreport = context.metrics.cache('item_reads', cache.stats);
  return {
    cache,
    close() {
      unreport();
      cache.close();
    },
  };
}
