// Erasure under dual control (site administrators; docs/privacy.md).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandCaller, pageMeta, pageQuery, SITE_ADMIN, uuidOr404 } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { erasureCommands, requestErasureBody } from './commands.ts';
import { readErasure } from './erasureHandlers.ts';
import { listErasures } from './erasureRequests.ts';
import { erasureReceipt } from './receipt.ts';

const tags = ['privacy'];
// An id that is not a UUID names no erasure: 404, as in every area (uuidOr404).
const idParams = z.object({ id: z.string() });

export async function erasureRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/admin/erasure',
    {
      config: SITE_ADMIN,
      schema: { tags, querystring: pageQuery },
    },
    async (request) => {
      const result = await context.database.withSiteReads(request.siteId, (tx) => listErasures(tx, request.siteId, request.query));
      return { data: result.data, meta: pageMeta(result.total, request.query) };
    },
  );

  api.post('/admin/erasure', { config: SITE_ADMIN, schema: { tags, body: requestErasureBody } }, async (request, reply) => {
    const erasure = await context.commands.runValidated(erasureCommands.request, request.body, commandCaller(request));
    return reply.code(201).send({ data: erasure });
  });

  api.get('/admin/erasure/:id', { config: SITE_ADMIN, schema: { tags, params: idParams } }, async (request) => ({
    data: await readErasure(context, request.siteId, uuidOr404(request.params.id, 'Erasure')),
  }));

  api.post('/admin/erasure/:id/confirm', { config: { site: 'required', access: 'personAdmin' }, schema: { tags, params: idParams } }, async (request) => ({
    data: await context.commands.runValidated(erasureCommands.confirm, request.params, commandCaller(request)),
  }));

  api.post('/admin/erasure/:id/execute', { config: SITE_ADMIN, schema: { tags, params: idParams } }, async (request) => ({
    data: await context.commands.runValidated(erasureCommands.execute, request.params, commandCaller(request)),
  }));

  api.get('/admin/erasure/:id/receipt', { config: SITE_ADMIN, schema: { tags, params: idParams } }, async (request) => ({
    data: erasureReceipt(request.siteId, await readErasure(context, request.siteId, uuidOr404(request.params.id, 'Erasure')), context.signingKey),
  }));
}
