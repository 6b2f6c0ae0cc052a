// The per-instance cache of credential checks: for a site, what a token check found (a login
// token's user, session and role; an API key's binding, user and role). Every change to users, roles,
// sessions or API keys announces its site on `svc_identity` after commit (usersProjection and its
// neighbours): this instance drops the site's checks at once, before the writer's request continues
// (a logout or a key revocation refuses the credential on the very next request), other instances
// when the NOTIFY arrives. As a safety net for a notification lost while a listener reconnects, a
// check is also reloaded once it is MAX_AGE_MS old.
import { IDENTITY_CHANNEL } from '../../projections/usersProjection.ts';
import type { AppContext } from '../runtime/context.ts';

export const MAX_AGE_MS = 5_000;
const MAX_SITES = 2_000;
const MAX_CHECKS_PER_SITE = 10_000;

interface Check<Row> {
  row: Row | null;
  loadedAt: number;
}

export interface IdentityChecks<Row> {
  /** The check of `key` in the site: cached, or loaded (once, however many requests ask at the same time). */
  get(siteId: string, key: string, load: () => Promise<Row | null>): Promise<Row | null>;
}

type CacheContext = Pick<AppContext, 'database' | 'notifier' | 'onClose'>;

export function createIdentityChecks<Row>(context: CacheContext): IdentityChecks<Row> {
  const sites = new Map<string, Map<string, Check<Row>>>();
  const loading = new Map<string, Promise<Row | null>>();
  /** Bumped by every invalidation of a site: a load that started before it is not kept. */
  const generations = new Map<string, number>();

  function forget(siteId: string): void {
    sites.delete(siteId);
    generations.set(siteId, (generations.get(siteId) ?? 0) + 1);
    for (const key of loading.keys()) if (key.startsWith(`${siteId}\u0000`)) loading.delete(key);
  }
  const stopRemote = context.notifier.on(IDENTITY_CHANNEL, forget);
  const stopLocal = context.database.onCommitted((channel, siteId) => {
    if (channel === IDENTITY_CHANNEL) forget(siteId);
  });
  context.onClose(async () => {
    stopRemote();
    stopLocal();
    sites.clear();
  });

  async function reload(siteId: string, key: string, load: () => Promise<Row | null>): Promise<Row | null> {
    const generation = generations.get(siteId) ?? 0;
    const row = await load();
    if ((generations.get(siteId) ?? 0) === generation) {
      let checks = sites.get(siteId);
      if (!checks) {
        if (sites.size >= MAX_SITES) sites.delete(sites.keys().next().value!);
        sites.set(siteId, (checks = new Map()));
      }
      if (checks.size >= MAX_CHECKS_PER_SITE) checks.delete(checks.keys().next().value!);
      checks.set(key, { row, loadedAt: Date.now() });
    }
    return row;
  }

  return {
    async get(siteId, key, load) {
      const cached = sites.get(siteId)?.get(key);
      if (cached && Date.now() - cached.loadedAt < MAX_AGE_MS) return cached.row;
      const loadKey = `${siteId}\u0000${key}`;
      const pending = loading.get(loadKey);
      if (pending) return pending;
      const started = reload(siteId, key, load).finally(() => {
        if (loading.get(loadKey) === started) loading.delete(loadKey);
      });
      loading.set(loadKey, started);
      return started;
    },
  };
}
