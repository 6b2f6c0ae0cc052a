// /agent/roles (site administrators): the agent roles, their skills and collections (docs/agents.md).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import { commandCaller, pageMeta, pageMetaSchema, pageQuery, SITE_ADMIN } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { agentRoleCommands } from './rolesCommands.ts';
import { findAgentRole, listAgentRoles } from './rolesQueries.ts';
import { agentRoleSchema, createAgentRoleBody, updateAgentRoleBody } from './rolesSchemas.ts';

const tags = ['agents'];
const nameParams = z.object({ name: z.string() });

export async function agentRolesRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/agent/roles',
    { config: SITE_ADMIN, schema: { tags, querystring: pageQuery, response: { 200: z.object({ data: z.array(agentRoleSchema), meta: pageMetaSchema }) } } },
    async (request) => {
      const { roles, total } = await context.database.withSiteReads(request.siteId, (tx) => listAgentRoles(tx, request.siteId, request.query));
      return { data: roles, meta: pageMeta(total, request.query) };
    },
  );
  api.post(
    '/agent/roles',
    { config: SITE_ADMIN, schema: { tags, body: createAgentRoleBody, response: { 201: z.object({ data: agentRoleSchema }) } } },
    async (request, reply) => reply.status(201).send({ data: await context.commands.runValidated(agentRoleCommands.createRole, request.body, commandCaller(request)) }),
  );
  api.get('/agent/roles/:name', { config: SITE_ADMIN, schema: { tags, params: nameParams, response: { 200: z.object({ data: agentRoleSchema }) } } }, async (request) => {
    const role = await context.database.withSiteReads(request.siteId, (tx) => findAgentRole(tx, request.siteId, request.params.name));
    if (!role) throw errors.notFound('Agent role not found');
    return { data: role };
  });
  api.patch(
    '/agent/roles/:name',
    { config: SITE_ADMIN, schema: { tags, params: nameParams, body: updateAgentRoleBody, response: { 200: z.object({ data: agentRoleSchema }) } } },
    async (request) => ({
      data: await context.commands.runValidated(agentRoleCommands.updateRole, { ...request.body, name: request.params.name }, commandCaller(request)),
    }),
  );
  api.delete('/agent/roles/:name', { config: SITE_ADMIN, schema: { tags, params: nameParams } }, async (request, reply) => {
    await context.commands.runValidated(agentRoleCommands.deleteRole, { name: request.params.name }, commandCaller(request));
    return reply.status(204).send();
  });
}
