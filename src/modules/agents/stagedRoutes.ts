// /agent/staged (docs/agent-goals.md "Staged actions"): the staged actions (a site administrator sees
// all, anyone else those acting for them), one of them, and a person's veto.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { STAGED_STATUSES } from '../../../domain/agents/agentWorkEvents.ts';
import { errors } from '../../../domain/shared/appError.ts';
import { userPrincipal } from '../../auth/principal.ts';
import { commandCaller, pageMeta, pageMetaSchema, pageQuery, uuidOr404 } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { agentWorkCommands } from './agentWorkCommands.ts';
import { findStaged, listStaged, mayRead } from './agentWorkQueries.ts';
import { stagedSchema, vetoBody } from './agentWorkSchemas.ts';

const tags = ['agents'];
const MEMBER = { site: 'required', access: 'bearer' } as const;
const idParams = z.object({ id: z.string() });

export async function agentStagedRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/agent/staged',
    {
      config: MEMBER,
      schema: { tags, querystring: pageQuery.extend({ status: z.enum(STAGED_STATUSES).optional() }), response: { 200: z.object({ data: z.array(stagedSchema), meta: pageMetaSchema }) } },
    },
    async (request) => {
      const principal = userPrincipal(request.principal);
      const onBehalfOf = principal.admin ? null : principal.userId;
      const { staged, total } = await context.database.withSiteReads(request.siteId, (tx) => listStaged(tx, request.siteId, onBehalfOf, request.query));
      return { data: staged, meta: pageMeta(total, request.query) };
    },
  );
  api.get('/agent/staged/:id', { config: MEMBER, schema: { tags, params: idParams, response: { 200: z.object({ data: stagedSchema }) } } }, async (request) => {
    const staged = await context.database.withSiteReads(request.siteId, (tx) => findStaged(tx, request.siteId, uuidOr404(request.params.id, 'Staged action')));
    if (!staged || !mayRead(request.principal, staged)) throw errors.notFound('Staged action not found');
    return { data: staged };
  });
  api.post(
    '/agent/staged/:id/veto',
    { config: MEMBER, schema: { tags, params: idParams, body: vetoBody.nullish(), response: { 200: z.object({ data: stagedSchema }) } } },
    async (request) => ({
      data: await context.commands.runValidated(agentWorkCommands.vetoStaged, { ...(request.body ?? {}), id: request.params.id }, commandCaller(request)),
    }),
  );
}
