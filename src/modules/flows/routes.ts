// /flows (site administrators): the registered operations, flows, their webhook token, manual runs,
// the run history and replays (docs/flows.md). The webhook trigger is in webhookRoutes.ts.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FLOW_STATUSES, FLOW_TRIGGERS } from '../../../domain/flows/events.ts';
import { errors } from '../../../domain/shared/appError.ts';
import { commandCaller, pageMeta, pageMetaSchema, pageQuery, SITE_ADMIN, uuidOr404 } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { flowCommands } from './commands.ts';
import { flowOperations } from './operations/index.ts';
import { findFlow, findRunDetail, listFlows, listRuns } from './queries.ts';
import {
  createFlowBody,
  flowSchema,
  operationInfoSchema,
  replayBody,
  RUN_STATUSES,
  runDetailSchema,
  runSchema,
  runStartedSchema,
  updateFlowBody,
  type RunStarted,
} from './schemas.ts';

const tags = ['flows'];
const idParams = z.object({ id: z.string() });
const runParams = z.object({ id: z.string(), runId: z.string() });

export async function flowsRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const operations = flowOperations.map((operation) => ({
    key: operation.key,
    description: operation.description,
    sideEffects: operation.sideEffects,
    options: z.toJSONSchema(operation.options, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
  }));

  api.get('/flows/operations', { config: SITE_ADMIN, schema: { tags, response: { 200: z.object({ data: z.array(operationInfoSchema) }) } } }, async () => ({
    data: operations,
  }));

  api.get(
    '/flows',
    {
      config: SITE_ADMIN,
      schema: {
        tags,
        querystring: pageQuery.extend({ status: z.enum(FLOW_STATUSES).optional(), trigger: z.enum(FLOW_TRIGGERS).optional() }),
        response: { 200: z.object({ data: z.array(flowSchema), meta: pageMetaSchema }) },
      },
    },
    async (request) => {
      const { flows, total } = await context.database.withSite(request.siteId, (tx) => listFlows(tx, request.siteId, request.query));
      return { data: flows, meta: pageMeta(total, request.query) };
    },
  );
  api.post('/flows', { config: SITE_ADMIN, schema: { tags, body: createFlowBody, response: { 201: z.object({ data: flowSchema }) } } }, async (request, reply) =>
    reply.status(201).send({ data: await context.commands.runValidated(flowCommands.create, request.body, commandCaller(request)) }),
  );
  api.get('/flows/:id', { config: SITE_ADMIN, schema: { tags, params: idParams, response: { 200: z.object({ data: flowSchema }) } } }, async (request) => {
    const flow = await context.database.withSite(request.siteId, (tx) => findFlow(tx, request.siteId, uuidOr404(request.params.id, 'Flow')));
    if (!flow) throw errors.notFound('Flow not found');
    return { data: flow };
  });
  api.patch('/flows/:id', { config: SITE_ADMIN, schema: { tags, params: idParams, body: updateFlowBody, response: { 200: z.object({ data: flowSchema }) } } }, async (request) => ({
    data: await context.commands.runValidated(flowCommands.update, { ...request.body, id: request.params.id }, commandCaller(request)),
  }));
  api.delete('/flows/:id', { config: SITE_ADMIN, schema: { tags, params: idParams } }, async (request, reply) => {
    await context.commands.runValidated(flowCommands.delete, { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });

  api.post(
    '/flows/:id/token',
    { config: SITE_ADMIN, schema: { tags, params: idParams, response: { 201: z.object({ data: z.object({ token: z.string() }) }) } } },
    async (request, reply) => reply.status(201).send({ data: await context.commands.runValidated(flowCommands.setToken, { id: request.params.id }, commandCaller(request)) }),
  );
  api.delete('/flows/:id/token', { config: SITE_ADMIN, schema: { tags, params: idParams } }, async (request, reply) => {
    await context.commands.runValidated(flowCommands.clearToken, { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });

  api.post(
    '/flows/:id/run',
    { config: SITE_ADMIN, schema: { tags, params: idParams, body: z.unknown(), response: { 202: z.object({ data: runStartedSchema }) } } },
    async (request, reply) => {
      const started = await context.commands.run<RunStarted>('flows.run', { id: request.params.id, input: request.body ?? null }, commandCaller(request));
      return reply.status(202).send({ data: started });
    },
  );

  api.get(
    '/flows/:id/runs',
    {
      config: SITE_ADMIN,
      schema: {
        tags,
        params: idParams,
        querystring: pageQuery.extend({ status: z.enum(RUN_STATUSES).optional() }),
        response: { 200: z.object({ data: z.array(runSchema), meta: pageMetaSchema }) },
      },
    },
    async (request) => {
      const flowId = uuidOr404(request.params.id, 'Flow');
      const result = await context.database.withSite(request.siteId, async (tx) =>
        (await findFlow(tx, request.siteId, flowId)) ? listRuns(tx, request.siteId, flowId, request.query) : null,
      );
      if (!result) throw errors.notFound('Flow not found');
      return { data: result.runs, meta: pageMeta(result.total, request.query) };
    },
  );
  api.get('/flows/:id/runs/:runId', { config: SITE_ADMIN, schema: { tags, params: runParams, response: { 200: z.object({ data: runDetailSchema }) } } }, async (request) => {
    const flowId = uuidOr404(request.params.id, 'Flow');
    const runId = uuidOr404(request.params.runId, 'Run');
    const run = await context.database.withSite(request.siteId, (tx) => findRunDetail(tx, request.siteId, flowId, runId));
    if (!run) throw errors.notFound('Run not found');
    return { data: run };
  });
  api.post(
    '/flows/:id/runs/:runId/replay',
    { config: SITE_ADMIN, schema: { tags, params: runParams, body: replayBody.nullish(), response: { 202: z.object({ data: runStartedSchema }) } } },
    async (request, reply) => {
      const started = await context.commands.run<RunStarted>('flows.replay', { ...(request.body ?? {}), id: request.params.id, runId: request.params.runId }, commandCaller(request));
      return reply.status(202).send({ data: started });
    },
  );
}
