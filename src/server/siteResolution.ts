// Which site a request is for: the X-Svc-Site header, or the first label of the Host when the rest is
// the deployment's site domain (SVC_SITE_DOMAIN), or a domain a site registered.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../domain/shared/appError.ts';
import { SITE_ID_PATTERN } from '../../domain/sites/site.ts';
import { sql } from '../../infra/postgres/sql.ts';
import type { AppContext } from '../runtime/context.ts';

const CACHE_MS = 2_000;

export interface SiteResolver {
  resolve(request: FastifyRequest): Promise<string>;
  forget(siteId: string): void;
}

export function createSiteResolver(context: Pick<AppContext, 'database' | 'config'>): SiteResolver {
  const known = new Map<string, { exists: boolean; at: number }>();

  async function exists(siteId: string): Promise<boolean> {
    const cached = known.get(siteId);
    if (cached && Date.now() - cached.at < CACHE_MS) return cached.exists;
    const rows = await context.database.query(sql`SELECT 1 FROM sites WHERE id = ${siteId} AND deleted_at IS NULL`);
    known.set(siteId, { exists: rows.length > 0, at: Date.now() });
    return rows.length > 0;
  }

  async function fromHost(host: string | undefined): Promise<string | null> {
    if (!host) return null;
    const hostname = host.replace(/:\d+$/, '').toLowerCase();
    const domain = context.config.SVC_SITE_DOMAIN?.toLowerCase();
    if (domain && hostname.endsWith(`.${domain}`)) {
      const label = hostname.slice(0, -domain.length - 1);
      if (!label.includes('.')) return label;
    }
    const rows = await context.database.query<{ id: string }>(sql`SELECT id FROM sites WHERE domain = ${hostname} AND deleted_at IS NULL`);
    return rows[0]?.id ?? null;
  }

  return {
    async resolve(request) {
      const header = request.headers['x-svc-site'];
      const siteId = (Array.isArray(header) ? header[0] : header)?.trim() || (await fromHost(request.headers.host));
      if (!siteId) {
        throw new AppError('VALIDATION_FAILED', 'Missing site: send the X-Svc-Site header', { path: ['headers', 'x-svc-site'] });
      }
      if (!SITE_ID_PATTERN.test(siteId) || !(await exists(siteId))) {
        throw new AppError('SITE_NOT_FOUND', `Site ${siteId} not found`, { path: ['headers', 'x-svc-site'] });
      }
      return siteId;
    },
    forget(siteId) {
      known.delete(siteId);
    },
  };
}
