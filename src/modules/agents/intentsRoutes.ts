// /agent/intents (docs/agent-goals.md "Intents"): list, create, read, change, close. Authenticated and
// site-scoped; every member of the site sees the site's intents, their creator or an administrator
// changes and closes them.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import { commandCaller, pageMeta, pageMetaSchema, pageQuery, uuidOr404 } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { agentWorkCommands } from './agentWorkCommands.ts';
import { findIntent, listIntents } from './agentWorkQueries.ts';
import { closeIntentBody, createIntentBody, intentSchema, updateIntentBody } from './agentWorkSchemas.ts';

const tags = ['agents'];
const MEMBER = { site: 'required', access: 'bearer' } as const;
const idParams = z.object({ id: z.string() });
const one = { 200: z.object({ data: intentSchema }) };

export async function agentIntentsRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/agent/intents',
    {
      config: MEMBER,
      schema: { tags, querystring: pageQuery.extend({ status: z.enum(['open', 'closed']).optional() }), response: { 200: z.object({ data: z.array(intentSchema), meta: pageMetaSchema }) } },
    },
    async (request) => {
      const { intents, total } = await context.database.withSiteReads(request.siteId, (tx) => listIntents(tx, request.siteId, request.query));
      return { data: intents, meta: pageMeta(total, request.query) };
    },
  );
  api.post('/agent/intents', { config: MEMBER, schema: { tags, body: createIntentBody, response: { 201: z.object({ data: intentSchema }) } } }, async (request, reply) =>
    reply.status(201).send({ data: await context.commands.runValidated(agentWorkCommands.createIntent, request.body, commandCaller(request)) }),
  );
  api.get('/agent/intents/:id', { config: MEMBER, schema: { tags, params: idParams, response: one } }, async (request) => {
    const intent = await context.database.withSiteReads(request.siteId, (tx) => findIntent(tx, request.siteId, uuidOr404(request.params.id, 'Intent')));
    if (!intent) throw errors.notFound('Intent not found');
    return { data: intent };
  });
  api.patch('/agent/intents/:id', { config: MEMBER, schema: { tags, params: idParams, body: updateIntentBody, response: one } }, async (request) => ({
    data: await context.commands.runValidated(agentWorkCommands.updateIntent, { ...request.body, id: request.params.id }, commandCaller(request)),
  }));
  api.post('/agent/intents/:id/close', { config: MEMBER, schema: { tags, params: idParams, body: closeIntentBody.nullish(), response: one } }, async (request) => ({
    data: await context.commands.runValidated(agentWorkCommands.closeIntent, { ...(request.body ?? {}), id: request.params.id }, commandCaller(request)),
  }));
}
