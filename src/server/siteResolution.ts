// Which site a request is for: the X-Svc-Site header, or the first label of the Host when the rest is
// the deployment's site domain (SVC_SITE_DOMAIN), or a domain a site registered.
//
// Anyone can name any site, so what a lookup remembers is bounded (least recently used out), and the
// lookups that reach the database (cache misses) are counted per client IP before they run.
import type { FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { AppError } from '../../domain/shared/appError.ts';
import { SITE_ID_PATTERN } from '../../domain/sites/site.ts';
import { sql } from '../../infra/postgres/sql.ts';
import type { AppContext } from '../runtime/context.ts';
import { watchSiteChanges } from '../runtime/siteChanges.ts';

const CACHE_MS = 2_000;
/** Site ids and host names remembered (known or not) per instance. */
export const SITE_CACHE_SIZE = 10_000;

export interface SiteResolver {
  resolve(request: FastifyRequest): Promise<string>;
  forget(siteId: string): void;
  /** How many site ids and hosts are remembered (at most twice SITE_CACHE_SIZE). */
  cached(): number;
  close(): void;
}

export interface SiteResolverOptions {
  /** Called before a lookup reaches the database; throws to refuse it (the per-IP lookup limit). */
  beforeLookup?: (request: FastifyRequest) => Promise<void>;
}

export function createSiteResolver(context: Pick<AppContext, 'database' | 'config' | 'notifier'>, options: SiteResolverOptions = {}): SiteResolver {
  const known = new LRUCache<string, boolean>({ max: SITE_CACHE_SIZE, ttl: CACHE_MS });
  // The site a registered domain names, and back (a site's change drops its hosts at once: its domain
  // may have moved). A host no site registered is not remembered: each such lookup is counted.
  const hostsOfSite = new Map<string, Set<string>>();
  const hosts = new LRUCache<string, string>({
    max: SITE_CACHE_SIZE,
    ttl: CACHE_MS,
    dispose: (siteId, host) => {
      const its = hostsOfSite.get(siteId);
      its?.delete(host);
      if (its?.size === 0) hostsOfSite.delete(siteId);
    },
  });
  // A lookup that overlapped its site's change may keep the older answer, for CACHE_MS at most.
  const changes = watchSiteChanges(context, (siteId) => {
    for (const host of [...(hostsOfSite.get(siteId) ?? [])]) hosts.delete(host);
  });
  const beforeLookup = options.beforeLookup ?? (async () => {});

  async function exists(request: FastifyRequest, siteId: string): Promise<boolean> {
    const cached = known.get(siteId);
    if (cached !== undefined) return cached;
    await beforeLookup(request);
    const rows = await context.database.query(sql`SELECT 1 FROM sites WHERE id = ${siteId} AND deleted_at IS NULL`);
    known.set(siteId, rows.length > 0);
    return rows.length > 0;
  }

  async function fromHost(request: FastifyRequest): Promise<string | null> {
    const host = request.headers.host;
    if (!host) return null;
    const hostname = host.replace(/:\d+$/, '').toLowerCase();
    const domain = context.config.SVC_SITE_DOMAIN?.toLowerCase();
    if (domain && hostname.endsWith(`.${domain}`)) {
      const label = hostname.slice(0, -domain.length - 1);
      if (!label.includes('.')) return label;
    }
    const cached = hosts.get(hostname);
    if (cached !== undefined) return cached;
    await beforeLookup(request);
    const rows = await context.database.query<{ id: string }>(sql`SELECT id FROM sites WHERE domain = ${hostname} AND deleted_at IS NULL`);
    const siteId = rows[0]?.id ?? null;
    if (siteId !== null) {
      hosts.set(hostname, siteId);
      hostsOfSite.set(siteId, (hostsOfSite.get(siteId) ?? new Set()).add(hostname));
    }
    return siteId;
  }

  return {
    async resolve(request) {
      const header = request.headers['x-svc-site'];
      const siteId = (Array.isArray(header) ? header[0] : header)?.trim() || (await fromHost(request));
      if (!siteId) {
        throw new AppError('VALIDATION_FAILED', 'Missing site: send the X-Svc-Site header', { path: ['headers', 'x-svc-site'] });
      }
      if (!SITE_ID_PATTERN.test(siteId) || !(await exists(request, siteId))) {
        throw new AppError('SITE_NOT_FOUND', `Site ${siteId} not found`, { path: ['headers', 'x-svc-site'] });
      }
      return siteId;
    },
    forget(siteId) {
      known.delete(siteId);
      for (const host of [...(hostsOfSite.get(siteId) ?? [])]) hosts.delete(host);
    },
    cached: () => known.size + hosts.size,
    close: () => changes.close(),
  };
}
