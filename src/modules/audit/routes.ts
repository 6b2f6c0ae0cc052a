import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { dynamicValuesOf } from '../../query/dynamicValues.ts';
import { parseFilterParam } from '../../query/index.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { errors } from '../../../domain/shared/appError.ts';
import { listCheckpoints } from './checkpointQueries.ts';
import { findAuditEntry, listAudit, verifyLog } from './queries.ts';
import { pageMeta, pageQuery, SITE_ADMIN, uuidOr404 } from '../../server/routeKit.ts';

export async function auditRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/audit',
    {
      config: SITE_ADMIN,
      schema: {
        tags: ['audit'],
        // `filter` (bracket or JSON form) is read by the query language, against AUDIT_FIELDS.
        querystring: pageQuery.catchall(z.unknown()),
      },
    },
    async (request) => {
      const { limit, page } = request.query;
      const query = { filter: parseFilterParam(request.query), limit, page, dynamic: dynamicValuesOf(request.principal) };
      const result = await context.database.withSite(request.siteId, (tx) => listAudit(tx, request.siteId, query));
      return { data: result.entries, meta: pageMeta(result.total, request.query) };
    },
  );

  // One entry, by its event id; /audit/verify and /audit/checkpoints are static routes and win.
  api.get('/audit/:eventId', { config: SITE_ADMIN, schema: { tags: ['audit'], params: z.object({ eventId: z.string() }) } }, async (request) => {
    const eventId = uuidOr404(request.params.eventId, 'Audit entry');
    const entry = await context.database.withSite(request.siteId, (tx) => findAuditEntry(tx, request.siteId, eventId));
    if (!entry) throw errors.notFound(`Audit entry ${eventId} not found`);
    return { data: entry };
  });

  api.get('/audit/verify', { config: SITE_ADMIN, schema: { tags: ['audit'] } }, async (request) => ({
    data: await context.database.withSite(request.siteId, (tx) => verifyLog(tx, request.siteId, context.signingKey)),
  }));

  // The site's signed log checkpoints (docs/verifiable-history.md), with the public key that verifies them.
  api.get(
    '/audit/checkpoints',
    {
      config: SITE_ADMIN,
      schema: {
        tags: ['audit'],
        querystring: pageQuery,
      },
    },
    async (request) => {
      const result = await context.database.withSiteReads(request.siteId, (tx) => listCheckpoints(tx, request.siteId, request.query));
      const key = context.signingKey;
      return {
        data: result.checkpoints,
        meta: { ...pageMeta(result.total, request.query), publicKey: { keyId: key.keyId, algorithm: key.algorithm, pem: key.publicKeyPem, jwk: key.publicJwk } },
      };
    },
  );
}
