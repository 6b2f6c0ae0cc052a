// The per-instance cache of effective grants, by site and principal. Every access-relevant event
// (policies, rules, attachments, roles, team members, subscriber grants; see policiesProjection)
// announces its site on `svc_access` after commit: this instance drops the site at once (in process,
// before the writer's request continues), other instances when the NOTIFY arrives. As a safety net
// for a notification lost while the listener reconnects, a site's entries older than REVALIDATE_MS
// are checked against the site's access version (one small query) before use.
import type { LogNotifier } from '../../infra/eventstore/logNotifier.ts';
import type { Database } from '../../infra/postgres/database.ts';
import { cacheStats, type CacheStats } from '../../infra/metrics/metrics.ts';
import { ACCESS_CHANNEL } from '../../projections/policiesProjection.ts';
import { loadGrants, readAccessVersion, type Grants, type Subject } from './grants.ts';

const REVALIDATE_MS = 5_000;
const MAX_SITES = 2_000;
const MAX_PRINCIPALS_PER_SITE = 5_000;

interface SiteEntry {
  version: number;
  checkedAt: number;
  revalidating: Promise<void> | null;
  grants: Map<string, Grants>;
}

export interface GrantsCache {
  /** The grants of `subject` in `siteId`, from this instance's cache. */
  grantsOf(siteId: string, subject: Subject): Promise<Grants>;
  /** Drops a site's cached grants on this instance. */
  invalidate(siteId: string): void;
  /** Stops listening for access notifications. */
  close(): void;
  /** Lookups answered from the cache and those that read the database (the metrics scrape reads them). */
  readonly stats: CacheStats;
}

function subjectKey(subject: Subject): string {
  return subject.anonymous ? 'anonymous' : `${subject.userId ?? ''}\u0000${subject.roleId ?? ''}`;
}

/** Built once at boot (src/boot/boot.ts) and held in the application context as `grants`. */
export function createGrantsCache(deps: { database: Database; notifier: LogNotifier }): GrantsCache {
  const sites = new Map<string, SiteEntry>();
  const stats = cacheStats();
  const loading = new Map<string, Promise<Grants>>();
  /** Bumped by every invalidation of a site: a load that started before it is not kept. */
  const generations = new Map<string, number>();

  function forget(siteId: string): void {
    sites.delete(siteId);
    for (const key of loading.keys()) if (key.startsWith(`${siteId}\u0000`)) loading.delete(key);
    generations.set(siteId, (generations.get(siteId) ?? 0) + 1);
  }
  const stopRemote = deps.notifier.on(ACCESS_CHANNEL, forget);
  const stopLocal = deps.database.onCommitted((channel, siteId) => {
    if (channel === ACCESS_CHANNEL) forget(siteId);
  });

  async function revalidate(siteId: string, entry: SiteEntry): Promise<void> {
    const version = await deps.database.withSite(siteId, (tx) => readAccessVersion(tx, siteId));
    if (version !== entry.version) {
      if (sites.get(siteId) === entry) forget(siteId);
      return;
    }
    entry.checkedAt = Date.now();
  }

  async function load(siteId: string, subject: Subject, key: string): Promise<Grants> {
    const loadKey = `${siteId}\u0000${key}`;
    const pending = loading.get(loadKey);
    if (pending) return pending;
    const generation = generations.get(siteId) ?? 0;
    const started = deps.database.withSite(siteId, async (tx) => {
      const version = await readAccessVersion(tx, siteId);
      const grants = await loadGrants(tx, siteId, subject);
      return { version, grants };
    });
    const result = started.then(({ grants }) => grants);
    loading.set(loadKey, result);
    try {
      const { version, grants } = await started;
      if ((generations.get(siteId) ?? 0) === generation) {
        let entry = sites.get(siteId);
        if (!entry || entry.version !== version) {
          if (!entry && sites.size >= MAX_SITES) sites.delete(sites.keys().next().value!);
          entry = { version, checkedAt: Date.now(), revalidating: null, grants: new Map() };
          sites.set(siteId, entry);
        }
        if (entry.grants.size >= MAX_PRINCIPALS_PER_SITE) entry.grants.delete(entry.grants.keys().next().value!);
        entry.grants.set(key, grants);
      }
      return grants;
    } finally {
      if (loading.get(loadKey) === result) loading.delete(loadKey);
    }
  }

  return {
    async grantsOf(siteId, subject) {
      const key = subjectKey(subject);
      let entry = sites.get(siteId);
      if (entry && Date.now() - entry.checkedAt >= REVALIDATE_MS) {
        const stale = entry;
        stale.revalidating ??= revalidate(siteId, stale).finally(() => {
          stale.revalidating = null;
        });
        await stale.revalidating;
        entry = sites.get(siteId);
      }
      const found = entry?.grants.get(key);
      if (found) {
        stats.hits += 1;
        return found;
      }
      stats.misses += 1;
      return load(siteId, subject, key);
    },
    invalidate: forget,
    stats,
    close() {
      stopRemote();
      stopLocal();
      sites.clear();
    },
  };
}
