// /agent/kill-switch (the capability agents:freeze; docs/agents.md "Kill switch"): the active freezes,
// engaging one, lifting one.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandCaller, pageMeta, pageMetaSchema, pageQuery } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { killSwitchCommands } from './killSwitchCommands.ts';
import { listActiveFreezes } from './killSwitchQueries.ts';
import { FREEZE_CAPABILITY, freezeBody, freezeSchema, liftBody } from './killSwitchSchemas.ts';

const tags = ['agents'];
const FREEZER = { site: 'required', access: 'bearer', capability: FREEZE_CAPABILITY } as const;

export async function agentKillSwitchRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/agent/kill-switch',
    { config: FREEZER, schema: { tags, querystring: pageQuery, response: { 200: z.object({ data: z.array(freezeSchema), meta: pageMetaSchema }) } } },
    async (request) => {
      const { freezes, total } = await context.database.withSiteReads(request.siteId, (tx) => listActiveFreezes(tx, request.siteId, request.query));
      return { data: freezes, meta: pageMeta(total, request.query) };
    },
  );
  api.post('/agent/kill-switch', { config: FREEZER, schema: { tags, body: freezeBody, response: { 201: z.object({ data: freezeSchema }) } } }, async (request, reply) =>
    reply.status(201).send({ data: await context.commands.runValidated(killSwitchCommands.freeze, request.body, commandCaller(request)) }),
  );
  api.post('/agent/kill-switch/lift', { config: FREEZER, schema: { tags, body: liftBody, response: { 200: z.object({ data: freezeSchema }) } } }, async (request) => ({
    data: await context.commands.runValidated(killSwitchCommands.lift, request.body, commandCaller(request)),
  }));
}
