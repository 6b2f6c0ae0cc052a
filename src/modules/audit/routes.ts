import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { listAudit, verifyChains, type AuditFilter } from './queries.ts';

/** Collects `filter[field][operator]=value` keys of a flat querystring into `{ field: { operator: value } }`. */
function bracketFilter(query: Record<string, unknown>): AuditFilter {
  const filter: AuditFilter = {};
  for (const [key, value] of Object.entries(query)) {
    const match = /^filter\[([A-Za-z]+)\]\[(_[a-z_]+)\]$/.exec(key);
    if (!match || typeof value !== 'string') continue;
    (filter[match[1]!] ??= {})[match[2]!] = value;
  }
  return filter;
}

export async function auditRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const siteAdmin = { site: 'required' as const, access: 'siteAdmin' as const };

  api.get(
    '/audit',
    {
      config: siteAdmin,
      schema: {
        tags: ['audit'],
        querystring: z
          .object({ limit: z.coerce.number().int().min(1).max(200).default(25), page: z.coerce.number().int().min(1).default(1) })
          .catchall(z.unknown()),
      },
    },
    async (request) => {
      const { limit, page } = request.query;
      const result = await context.database.withSite(request.siteId, (tx) =>
        listAudit(tx, request.siteId, { filter: bracketFilter(request.query), limit, page }),
      );
      return { data: result.entries, meta: { total: result.total, page, pageSize: limit } };
    },
  );

  api.get('/audit/verify', { config: siteAdmin, schema: { tags: ['audit'] } }, async (request) => ({
    data: await context.database.withSite(request.siteId, (tx) => verifyChains(tx, request.siteId)),
  }));
}
