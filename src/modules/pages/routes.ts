// /pages: the page builder's pages of the active site. Any signed-in member of the site reads them;
// site administrators create, change and delete them (as with /settings).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { pageCommands } from './commands.ts';
import { findPage, listPages } from './queries.ts';
import { createPageBody, listPagesQuery, pageSchema, updatePageBody } from './schemas.ts';
import { commandCaller, pageMeta, SITE_ADMIN, uuidOr404 } from '../../server/routeKit.ts';

const member = { site: 'required' as const, access: 'bearer' as const };
const idParams = z.object({ id: z.string() });

export async function pagesRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get('/pages', { config: member, schema: { tags: ['pages'], querystring: listPagesQuery } }, async (request) => {
    const result = await context.database.withSiteReads(request.siteId, (tx) => listPages(tx, request.siteId, request.query));
    return { data: result.pages, meta: pageMeta(result.total, request.query) };
  });

  api.post(
    '/pages',
    { config: SITE_ADMIN, schema: { tags: ['pages'], body: createPageBody, response: { 201: z.object({ data: pageSchema }) } } },
    async (request, reply) => reply.status(201).send({ data: await context.commands.runValidated(pageCommands.create, request.body, commandCaller(request)) }),
  );

  api.get('/pages/:id', { config: member, schema: { tags: ['pages'], params: idParams } }, async (request) => {
    const id = uuidOr404(request.params.id, 'Page');
    const page = await context.database.withSiteReads(request.siteId, (tx) => findPage(tx, request.siteId, id));
    if (!page) throw errors.notFound('Page not found');
    return { data: page };
  });

  api.patch(
    '/pages/:id',
    { config: SITE_ADMIN, schema: { tags: ['pages'], params: idParams, body: updatePageBody, response: { 200: z.object({ data: pageSchema }) } } },
    async (request) => ({ data: await context.commands.runValidated(pageCommands.update, { ...request.body, id: request.params.id }, commandCaller(request)) }),
  );

  api.delete('/pages/:id', { config: SITE_ADMIN, schema: { tags: ['pages'], params: idParams } }, async (request, reply) => {
    await context.commands.runValidated(pageCommands.delete, { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });
}
