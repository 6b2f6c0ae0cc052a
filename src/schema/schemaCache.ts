// The per-site schema cache of one instance. Every schema event NOTIFYs `svc_schema` with its site
// (delivered at commit, to every instance), which drops that site here; an instance's own schema
// commands drop it at once. As a safety net for a notification lost while the listener reconnects,
// an entry older than REVALIDATE_MS is checked against the site's schema version (one small query)
// before use; that also picks up a changed default language.
import { AppError } from '../../domain/shared/appError.ts';
import { sql } from '../../infra/postgres/sql.ts';
import type { AppContext } from '../runtime/context.ts';
import { readSiteSchema, type CollectionSchema, type SiteSchema } from './siteSchema.ts';

const REVALIDATE_MS = 5_000;
const MAX_SITES = 2_000;

interface Entry {
  schema: SiteSchema;
  checkedAt: number;
  revalidating: Promise<void> | null;
}

interface SchemaCache {
  entries: Map<string, Entry>;
  loading: Map<string, Promise<SiteSchema>>;
  /** Bumped by every invalidation of a site: a load that started before it is not kept. */
  generations: Map<string, number>;
}

const caches = new WeakMap<Pick<AppContext, 'database'>, SchemaCache>();

function cacheOf(context: Pick<AppContext, 'database' | 'notifier' | 'onClose'>): SchemaCache {
  let cache = caches.get(context);
  if (cache) return cache;
  const created: SchemaCache = { entries: new Map(), loading: new Map(), generations: new Map() };
  cache = created;
  caches.set(context, created);
  const stop = context.notifier.on('svc_schema', (siteId) => forget(created, siteId));
  context.onClose(async () => {
    stop();
    created.entries.clear();
  });
  return cache;
}

function forget(cache: SchemaCache, siteId: string): void {
  cache.entries.delete(siteId);
  cache.loading.delete(siteId);
  cache.generations.set(siteId, (cache.generations.get(siteId) ?? 0) + 1);
}

/** Drops a site's cached schema on this instance (after its own schema commands). */
export function invalidateSiteSchema(context: Pick<AppContext, 'database' | 'notifier' | 'onClose'>, siteId: string): void {
  forget(cacheOf(context), siteId);
}

type CacheContext = Pick<AppContext, 'database' | 'notifier' | 'onClose'>;

async function load(context: CacheContext, cache: SchemaCache, siteId: string): Promise<SiteSchema> {
  const pending = cache.loading.get(siteId);
  if (pending) return pending;
  const generation = cache.generations.get(siteId) ?? 0;
  const loading = context.database.withSite(siteId, (tx) => readSiteSchema(tx, siteId));
  cache.loading.set(siteId, loading);
  try {
    const schema = await loading;
    if ((cache.generations.get(siteId) ?? 0) === generation) {
      if (cache.entries.size >= MAX_SITES) cache.entries.delete(cache.entries.keys().next().value!);
      cache.entries.set(siteId, { schema, checkedAt: Date.now(), revalidating: null });
    }
    return schema;
  } finally {
    if (cache.loading.get(siteId) === loading) cache.loading.delete(siteId);
  }
}

async function revalidate(context: CacheContext, cache: SchemaCache, siteId: string, entry: Entry): Promise<void> {
  const rows = await context.database.withSite(siteId, (tx) =>
    tx.query<{ version: number | null; default_language: string }>(sql`
      SELECT (SELECT version FROM schema_versions WHERE site_id = ${siteId}) AS version, s.default_language
        FROM sites s WHERE s.id = ${siteId}`),
  );
  const row = rows[0];
  if (!row || (row.version ?? 0) !== entry.schema.version || row.default_language !== entry.schema.defaultLanguage) {
    if (cache.entries.get(siteId) === entry) forget(cache, siteId);
    return;
  }
  entry.checkedAt = Date.now();
}

/** The site's schema, from this instance's cache. */
export async function loadSiteSchema(context: CacheContext, siteId: string): Promise<SiteSchema> {
  const cache = cacheOf(context);
  const entry = cache.entries.get(siteId);
  if (entry) {
    if (Date.now() - entry.checkedAt < REVALIDATE_MS) return entry.schema;
    entry.revalidating ??= revalidate(context, cache, siteId, entry).finally(() => {
      entry.revalidating = null;
    });
    await entry.revalidating;
    const current = cache.entries.get(siteId);
    if (current) return current.schema;
  }
  return load(context, cache, siteId);
}

/** A live collection of the site, or 404 NOT_FOUND. */
export async function loadCollectionSchema(context: CacheContext, siteId: string, collection: string): Promise<CollectionSchema> {
  const schema = await loadSiteSchema(context, siteId);
  const found = schema.collections.get(collection);
  if (!found) throw new AppError('NOT_FOUND', `Collection "${collection}" not found`);
  return found;
}

export type { CollectionSchema, SiteSchema };
