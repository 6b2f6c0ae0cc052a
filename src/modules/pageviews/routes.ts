// /pageviews: the public beacon (POST /pageviews/:site_id/hit, always 204), the site's daily stats
// (GET /pageviews/stats, capability pageviews:read) and an instance flush (POST /pageviews/flush).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CustomRateLimit } from '../../rateLimit/limits.ts';
import { toAppError } from '../../server/errorHandler.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { beaconPath, MAX_PATH_LENGTH, uncountedReason } from './beaconInput.ts';
import { pageviewRateLimit, type PageviewService } from './pageviewService.ts';
import { dailyStats } from './queries.ts';
import { resolveStatsRange, statsQuery, statsResponse } from './schemas.ts';

/** Room for a path of MAX_PATH_LENGTH characters, each JSON-escaped (\uXXXX), and the rest of the body. */
const BEACON_BODY_LIMIT = MAX_PATH_LENGTH * 6 + 1024;

/** `pageviews` is the area's counters and their flush timer (pageviewService.ts, started by its manifest). */
export async function pageviewsRoutes(app: FastifyInstance, { context }: ServerDeps, pageviews: PageviewService): Promise<void> {
  await app.register(async (scope) => beaconRoute(scope, pageviewRateLimit(context.config), pageviews));
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/pageviews/stats',
    {
      config: { site: 'required', access: 'bearer', capability: 'pageviews:read' },
      schema: { tags: ['pageviews'], querystring: statsQuery, response: { 200: statsResponse } },
    },
    async (request) => {
      const range = resolveStatsRange(request.query, new Date());
      const path = request.query.path ?? null;
      const data = await context.database.withSiteReads(request.siteId, (tx) => dailyStats(tx, request.siteId, range, path));
      return { data, meta: { ...range, path } };
    },
  );

  api.post(
    '/pageviews/flush',
    {
      config: { access: 'instance' },
      schema: { tags: ['pageviews'], response: { 200: z.object({ data: z.object({ days: z.number().int(), views: z.number().int() }) }) } },
    },
    async () => ({ data: await pageviews.flush() }),
  );
}

/**
 * The beacon, in a scope of its own whose error handler answers every refusal (a malformed or
 * oversized body, an unsupported content type, the rate limit) with the same empty 204 as a counted
 * hit: a page's script learns nothing from it, and a scraper cannot tell a known site from another.
 */
async function beaconRoute(app: FastifyInstance, rateLimit: CustomRateLimit, pageviews: PageviewService): Promise<void> {
  app.setErrorHandler((error, request, reply) => {
    const known = toAppError(error);
    if (!known || known.status >= 500) request.log.error({ err: error }, 'pageview beacon failed');
    return reply.code(204).send();
  });
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.post(
    '/pageviews/:site_id/hit',
    {
      config: { site: 'none', access: 'public', rateLimit },
      bodyLimit: BEACON_BODY_LIMIT,
      schema: {
        tags: ['pageviews'],
        summary: 'Count a page view (always 204): JSON { path } as application/json or text/plain',
        params: z.object({ site_id: z.string() }),
      },
    },
    async (request, reply) => {
      const path = beaconPath(request.body);
      if (path !== null && uncountedReason(request.headers) === null) {
        const userAgent = request.headers['user-agent'] ?? '';
        await pageviews.record({ siteId: request.params.site_id, path, ip: request.ip, userAgent });
      }
      return reply.code(204).send();
    },
  );
}
