// Erasure under dual control (site administrators; docs/privacy.md).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { uuidSchema } from '../../../domain/shared/uuid.ts';
import { commandCaller } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { erasureCommands, requestErasureBody } from './commands.ts';
import { readErasure } from './erasureHandlers.ts';
import { listErasures } from './erasureRequests.ts';
import { erasureReceipt } from './receipt.ts';

const siteAdmin = { site: 'required' as const, access: 'siteAdmin' as const };
const tags = ['privacy'];
const idParams = z.object({ id: uuidSchema });


export async function erasureRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/admin/erasure',
    {
      config: siteAdmin,
      schema: { tags, querystring: z.object({ limit: z.coerce.number().int().min(1).max(200).default(25), page: z.coerce.number().int().min(1).default(1) }) },
    },
    async (request) => {
      const { limit, page } = request.query;
      const result = await context.database.withSiteReads(request.siteId, (tx) => listErasures(tx, request.siteId, { limit, page }));
      return { data: result.data, meta: { total: result.total, page, pageSize: limit } };
    },
  );

  api.post('/admin/erasure', { config: siteAdmin, schema: { tags, body: requestErasureBody } }, async (request, reply) => {
    const erasure = await context.commands.runValidated(erasureCommands.request, request.body, commandCaller(request));
    return reply.code(201).send({ data: erasure });
  });

  api.get('/admin/erasure/:id', { config: siteAdmin, schema: { tags, params: idParams } }, async (request) => ({
    data: await readErasure(context, request.siteId, request.params.id),
  }));

  api.post('/admin/erasure/:id/confirm', { config: siteAdmin, schema: { tags, params: idParams } }, async (request) => ({
    data: await context.commands.runValidated(erasureCommands.confirm, request.params, commandCaller(request)),
  }));

  api.post('/admin/erasure/:id/execute', { config: siteAdmin, schema: { tags, params: idParams } }, async (request) => ({
    data: await context.commands.runValidated(erasureCommands.execute, request.params, commandCaller(request)),
  }));

  api.get('/admin/erasure/:id/receipt', { config: siteAdmin, schema: { tags, params: idParams } }, async (request) => ({
    data: erasureReceipt(request.siteId, await readErasure(context, request.siteId, request.params.id), context.signingKey),
  }));
}
