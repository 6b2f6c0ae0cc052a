// The per-site schema cache of one instance. Every schema event NOTIFYs `svc_schema` with its site
// (delivered at commit, to every instance), which drops that site here; an instance's own schema
// commands drop it at once. As a safety net for a notification lost while the listener reconnects,
// an entry older than REVALIDATE_MS is checked against the site's schema version (one small query)
// before use; that also picks up a changed default language.
import { cacheStats, type CacheStats } from '../../infra/metrics/metrics.ts';
import type { LogNotifier } from '../../infra/eventstore/logNotifier.ts';
import type { Database, Queryable } from '../../infra/postgres/database.ts';
import { sql } from '../../infra/postgres/sql.ts';
import { collectionOf, readSiteSchema, type CollectionSchema, type SiteSchema } from './siteSchema.ts';

const REVALIDATE_MS = 5_000;
const MAX_SITES = 2_000;

interface Entry {
  schema: SiteSchema;
  checkedAt: number;
  revalidating: Promise<void> | null;
}

export interface SchemaCache {
  /**
   * The site's schema, from this instance's cache. A caller inside a transaction passes it: a miss
   * is then read in it, never on a second connection (a burst of writers each holding one and
   * waiting for another would drain the pool).
   */
  site(siteId: string, tx?: Queryable): Promise<SiteSchema>;
  /** A live collection of the site, or 404 NOT_FOUND. */
  collection(siteId: string, name: string): Promise<CollectionSchema>;
  /** Drops a site's cached schema on this instance (after its own schema commands). */
  invalidate(siteId: string): void;
  /** Stops listening for schema notifications. */
  close(): void;
  /** Lookups answered from the cache and those that read the database (the metrics scrape reads them). */
  readonly stats: CacheStats;
}

/** Built once at boot (src/boot/boot.ts) and held in the application context as `schemas`. */
export function createSchemaCache(deps: { database: Database; notifier: LogNotifier }): SchemaCache {
  const entries = new Map<string, Entry>();
  const loading = new Map<string, Promise<SiteSchema>>();
  /** Bumped by every invalidation of a site: a load that started before it is not kept. */
  const generations = new Map<string, number>();
  const stats = cacheStats();

  function forget(siteId: string): void {
    entries.delete(siteId);
    loading.delete(siteId);
    generations.set(siteId, (generations.get(siteId) ?? 0) + 1);
  }
  const stop = deps.notifier.on('svc_schema', forget);

  const inSite = <T>(siteId: string, tx: Queryable | undefined, read: (tx: Queryable) => Promise<T>): Promise<T> =>
    tx ? read(tx) : deps.database.withSite(siteId, read);

  async function load(siteId: string, tx: Queryable | undefined): Promise<SiteSchema> {
    const pending = loading.get(siteId);
    if (pending) return pending;
    const generation = generations.get(siteId) ?? 0;
    const started = inSite(siteId, tx, (reader) => readSiteSchema(reader, siteId));
    loading.set(siteId, started);
    try {
      const schema = await started;
      if ((generations.get(siteId) ?? 0) === generation) {
        if (entries.size >= MAX_SITES) entries.delete(entries.keys().next().value!);
        entries.set(siteId, { schema, checkedAt: Date.now(), revalidating: null });
      }
      return schema;
    } finally {
      if (loading.get(siteId) === started) loading.delete(siteId);
    }
  }

  async function revalidate(siteId: string, entry: Entry, tx: Queryable | undefined): Promise<void> {
    const rows = await inSite(siteId, tx, (reader) =>
      reader.query<{ version: number | null; default_language: string }>(sql`
        SELECT (SELECT version FROM schema_versions WHERE site_id = ${siteId}) AS version, s.default_language
          FROM sites s WHERE s.id = ${siteId}`),
    );
    const row = rows[0];
    if (!row || (row.version ?? 0) !== entry.schema.version || row.default_language !== entry.schema.defaultLanguage) {
      if (entries.get(siteId) === entry) forget(siteId);
      return;
    }
    entry.checkedAt = Date.now();
  }

  async function site(siteId: string, tx?: Queryable): Promise<SiteSchema> {
    const entry = entries.get(siteId);
    if (entry) {
      if (Date.now() - entry.checkedAt < REVALIDATE_MS) {
        stats.hits += 1;
        return entry.schema;
      }
      entry.revalidating ??= revalidate(siteId, entry, tx).finally(() => {
        entry.revalidating = null;
      });
      await entry.revalidating;
      const current = entries.get(siteId);
      if (current) {
        stats.hits += 1;
        return current.schema;
      }
    }
    stats.misses += 1;
    return load(siteId, tx);
  }

  return {
    site,
    collection: async (siteId, name) => collectionOf(await site(siteId), name),
    invalidate: forget,
    stats,
    close() {
      stop();
      entries.clear();
    },
  };
}

export type { CollectionSchema, SiteSchema };
