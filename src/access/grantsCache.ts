// The per-instance cache of effective grants, by site and principal. Every access-relevant event
// (policies, rules, attachments, roles, team members, subscriber grants; see policiesProjection)
// announces its site on `svc_access` after commit: this instance drops the site at once (in process,
// before the writer's request continues), other instances when the NOTIFY arrives. As a safety net
// for a notification lost while the listener reconnects, a site's entries older than REVALIDATE_MS
// are checked against the site's access version (one small query) before use.
import { ACCESS_CHANNEL } from '../../projections/policiesProjection.ts';
import type { AppContext } from '../runtime/context.ts';
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

interface GrantsCache {
  sites: Map<string, SiteEntry>;
  loading: Map<string, Promise<Grants>>;
  /** Bumped by every invalidation of a site: a load that started before it is not kept. */
  generations: Map<string, number>;
}

type CacheContext = Pick<AppContext, 'database' | 'notifier' | 'onClose'>;

const caches = new WeakMap<Pick<AppContext, 'database'>, GrantsCache>();

function cacheOf(context: CacheContext): GrantsCache {
  const existing = caches.get(context);
  if (existing) return existing;
  const cache: GrantsCache = { sites: new Map(), loading: new Map(), generations: new Map() };
  caches.set(context, cache);
  const stopRemote = context.notifier.on(ACCESS_CHANNEL, (siteId) => forget(cache, siteId));
  const stopLocal = context.database.onCommitted((channel, siteId) => {
    if (channel === ACCESS_CHANNEL) forget(cache, siteId);
  });
  context.onClose(async () => {
    stopRemote();
    stopLocal();
    cache.sites.clear();
  });
  return cache;
}

function forget(cache: GrantsCache, siteId: string): void {
  cache.sites.delete(siteId);
  for (const key of cache.loading.keys()) if (key.startsWith(`${siteId}\u0000`)) cache.loading.delete(key);
  cache.generations.set(siteId, (cache.generations.get(siteId) ?? 0) + 1);
}

/** Drops a site's cached grants on this instance. */
export function invalidateSiteGrants(context: CacheContext, siteId: string): void {
  forget(cacheOf(context), siteId);
}

export function subjectKey(subject: Subject): string {
  return subject.anonymous ? 'anonymous' : `${subject.userId ?? ''}\u0000${subject.roleId ?? ''}`;
}

async function revalidate(context: CacheContext, cache: GrantsCache, siteId: string, entry: SiteEntry): Promise<void> {
  const version = await context.database.withSite(siteId, (tx) => readAccessVersion(tx, siteId));
  if (version !== entry.version) {
    if (cache.sites.get(siteId) === entry) forget(cache, siteId);
    return;
  }
  entry.checkedAt = Date.now();
}

async function load(context: CacheContext, cache: GrantsCache, siteId: string, subject: Subject, key: string): Promise<Grants> {
  const loadKey = `${siteId}\u0000${key}`;
  const pending = cache.loading.get(loadKey);
  if (pending) return pending;
  const generation = cache.generations.get(siteId) ?? 0;
  const loading = context.database.withSite(siteId, async (tx) => {
    const version = await readAccessVersion(tx, siteId);
    const grants = await loadGrants(tx, siteId, subject);
    return { version, grants };
  });
  const result = loading.then(({ grants }) => grants);
  cache.loading.set(loadKey, result);
  try {
    const { version, grants } = await loading;
    if ((cache.generations.get(siteId) ?? 0) === generation) {
      let entry = cache.sites.get(siteId);
      if (!entry || entry.version !== version) {
        if (!entry && cache.sites.size >= MAX_SITES) cache.sites.delete(cache.sites.keys().next().value!);
        entry = { version, checkedAt: Date.now(), revalidating: null, grants: new Map() };
        cache.sites.set(siteId, entry);
      }
      if (entry.grants.size >= MAX_PRINCIPALS_PER_SITE) entry.grants.delete(entry.grants.keys().next().value!);
      entry.grants.set(key, grants);
    }
    return grants;
  } finally {
    if (cache.loading.get(loadKey) === result) cache.loading.delete(loadKey);
  }
}

/** The grants of `subject` in `siteId`, from this instance's cache. */
export async function cachedGrants(context: CacheContext, siteId: string, subject: Subject): Promise<Grants> {
  const cache = cacheOf(context);
  const key = subjectKey(subject);
  let entry = cache.sites.get(siteId);
  if (entry && Date.now() - entry.checkedAt >= REVALIDATE_MS) {
    const stale = entry;
    stale.revalidating ??= revalidate(context, cache, siteId, stale).finally(() => {
      stale.revalidating = null;
    });
    await stale.revalidating;
    entry = cache.sites.get(siteId);
  }
  const found = entry?.grants.get(key);
  if (found) return found;
  return load(context, cache, siteId, subject, key);
}
