// /cloud-sync/pipelines (site admin): pipeline CRUD, its attempt log and backfill. Bodies that do not
// match answer 400 VALIDATION_ERROR with the path of the first problem; credentials are never answered.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { commandCaller, pageMeta, pageQuery, SITE_ADMIN, uuidOr404, validationErrorOnInvalidBody } from '../../server/routeKit.ts';
import { cloudSyncCommands } from './commands.ts';
import { findPipeline, listAttempts, listPipelines, viewOf } from './queries.ts';
import { backfillResultSchema, createPipelineBody, pipelineSchema, syncAttemptSchema, updatePipelineBody, type BackfillResult } from './schemas.ts';

const idParams = z.object({ id: z.string() });
const logQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) });
const tags = ['cloud-sync'];

export async function cloudSyncRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get('/cloud-sync/pipelines', { config: SITE_ADMIN, schema: { tags, querystring: pageQuery } }, async (request) => {
    const result = await context.database.withSiteReads(request.siteId, (tx) => listPipelines(tx, request.siteId, request.query));
    return { data: result.pipelines, meta: pageMeta(result.total, request.query) };
  });

  api.post(
    '/cloud-sync/pipelines',
    { config: SITE_ADMIN, errorHandler: validationErrorOnInvalidBody, schema: { tags, body: createPipelineBody, response: { 201: z.object({ data: pipelineSchema }) } } },
    async (request, reply) => reply.status(201).send({ data: await context.commands.runValidated(cloudSyncCommands.create, request.body, commandCaller(request)) }),
  );

  api.get('/cloud-sync/pipelines/:id', { config: SITE_ADMIN, schema: { tags, params: idParams } }, async (request) => {
    const id = uuidOr404(request.params.id, 'Cloud-sync pipeline');
    const pipeline = await context.database.withSiteReads(request.siteId, (tx) => findPipeline(tx, request.siteId, id));
    if (!pipeline) throw errors.notFound('Cloud-sync pipeline not found');
    return { data: viewOf(pipeline) };
  });

  api.patch(
    '/cloud-sync/pipelines/:id',
    { config: SITE_ADMIN, errorHandler: validationErrorOnInvalidBody, schema: { tags, params: idParams, body: updatePipelineBody, response: { 200: z.object({ data: pipelineSchema }) } } },
    async (request) => ({
      data: await context.commands.runValidated(cloudSyncCommands.update, { ...request.body, id: request.params.id }, commandCaller(request)),
    }),
  );

  api.delete('/cloud-sync/pipelines/:id', { config: SITE_ADMIN, schema: { tags, params: idParams } }, async (request, reply) => {
    await context.commands.runValidated(cloudSyncCommands.delete, { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });

  api.get(
    '/cloud-sync/pipelines/:id/log',
    { config: SITE_ADMIN, schema: { tags, params: idParams, querystring: logQuery, response: { 200: z.object({ data: z.array(syncAttemptSchema) }) } } },
    async (request) => {
      const id = uuidOr404(request.params.id, 'Cloud-sync pipeline');
      const attempts = await context.database.withSiteReads(request.siteId, async (tx) => {
        if (!(await findPipeline(tx, request.siteId, id))) throw errors.notFound('Cloud-sync pipeline not found');
        return listAttempts(tx, request.siteId, id, request.query.limit);
      });
      return { data: attempts };
    },
  );

  api.post(
    '/cloud-sync/pipelines/:id/backfill',
    { config: SITE_ADMIN, schema: { tags, params: idParams, response: { 200: z.object({ data: backfillResultSchema }) } } },
    async (request) => ({ data: await context.commands.run<BackfillResult>('cloudSync.backfill', { id: request.params.id }, commandCaller(request)) }),
  );
}

