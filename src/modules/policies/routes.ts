// /policies (site admin): policy CRUD, its permission rules (/policies/:id/permissions) and its
// attachments to roles, users and teams (/policies/:id/attach, /policies/:id/detach).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { attachmentTargetBody, createPolicyBody, permissionRuleBody, policyCommands, removePermissionsBody, updatePolicyBody } from './commands.ts';
import { findPolicy, listPermissions, listPolicies } from './queries.ts';
import { commandCaller, pageMeta, pageQuery, SITE_ADMIN, uuidOr404 } from '../../server/routeKit.ts';

const policySchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  attachments: z.object({ roles: z.array(z.string()), users: z.array(z.string()), teams: z.array(z.string()) }),
  permissionCount: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const permissionSchema = z.object({
  id: z.string(),
  policyId: z.string(),
  collection: z.string().nullable(),
  action: z.string(),
  fields: z.array(z.string()),
  conditions: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string(),
});
const idParams = z.object({ id: z.string() });

export async function policiesRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/policies',
    {
      config: SITE_ADMIN,
      schema: {
        tags: ['policies'],
        querystring: pageQuery,
      },
    },
    async (request) => {
      const result = await context.database.withSite(request.siteId, (tx) => listPolicies(tx, request.siteId, request.query));
      return { data: result.policies, meta: pageMeta(result.total, request.query) };
    },
  );

  api.post(
    '/policies',
    { config: SITE_ADMIN, schema: { tags: ['policies'], body: createPolicyBody, response: { 201: z.object({ data: policySchema }) } } },
    async (request, reply) => reply.status(201).send({ data: await context.commands.runValidated(policyCommands.create, request.body, commandCaller(request)) }),
  );

  api.get('/policies/:id', { config: SITE_ADMIN, schema: { tags: ['policies'], params: idParams } }, async (request) => {
    const id = uuidOr404(request.params.id, 'Policy');
    const found = await context.database.withSite(request.siteId, async (tx) => {
      const policy = await findPolicy(tx, request.siteId, id);
      return policy ? { ...policy, permissions: await listPermissions(tx, request.siteId, id) } : null;
    });
    if (!found) throw errors.notFound('Policy not found');
    return { data: found };
  });

  api.patch(
    '/policies/:id',
    { config: SITE_ADMIN, schema: { tags: ['policies'], params: idParams, body: updatePolicyBody, response: { 200: z.object({ data: policySchema }) } } },
    async (request) => ({
      data: await context.commands.runValidated(policyCommands.update, { ...request.body, id: request.params.id }, commandCaller(request)),
    }),
  );

  api.delete('/policies/:id', { config: SITE_ADMIN, schema: { tags: ['policies'], params: idParams } }, async (request, reply) => {
    await context.commands.runValidated(policyCommands.delete, { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });

  // ---------- permission rules ----------
  api.get(
    '/policies/:id/permissions',
    { config: SITE_ADMIN, schema: { tags: ['policies'], params: idParams, response: { 200: z.object({ data: z.array(permissionSchema) }) } } },
    async (request) => {
      const id = uuidOr404(request.params.id, 'Policy');
      const permissions = await context.database.withSite(request.siteId, async (tx) => {
        if (!(await findPolicy(tx, request.siteId, id))) throw errors.notFound('Policy not found');
        return listPermissions(tx, request.siteId, id);
      });
      return { data: permissions };
    },
  );

  api.post(
    '/policies/:id/permissions',
    { config: SITE_ADMIN, schema: { tags: ['policies'], params: idParams, body: permissionRuleBody, response: { 201: z.object({ data: permissionSchema }) } } },
    async (request, reply) =>
      reply.status(201).send({
        data: await context.commands.runValidated(policyCommands.addPermission, { ...request.body, id: request.params.id }, commandCaller(request)),
      }),
  );

  api.delete(
    '/policies/:id/permissions/:permissionId',
    { config: SITE_ADMIN, schema: { tags: ['policies'], params: z.object({ id: z.string(), permissionId: z.string() }) } },
    async (request, reply) => {
      await context.commands.runValidated(policyCommands.removePermission, request.params, commandCaller(request));
      return reply.status(204).send();
    },
  );

  // DELETE /policies/:id/permissions with `{ ids }`: several rules at once, all or none.
  api.delete(
    '/policies/:id/permissions',
    {
      config: SITE_ADMIN,
      schema: { tags: ['policies'], params: idParams, body: removePermissionsBody },
    },
    async (request, reply) => {
      await context.commands.runValidated(policyCommands.removePermissions, { ...request.body, id: request.params.id }, commandCaller(request));
      return reply.status(204).send();
    },
  );

  // ---------- attachments ----------
  api.post(
    '/policies/:id/attach',
    { config: SITE_ADMIN, schema: { tags: ['policies'], params: idParams, body: attachmentTargetBody, response: { 200: z.object({ data: policySchema }) } } },
    async (request) => ({
      data: await context.commands.runValidated(policyCommands.attach, { ...request.body, id: request.params.id }, commandCaller(request)),
    }),
  );

  api.post(
    '/policies/:id/detach',
    { config: SITE_ADMIN, schema: { tags: ['policies'], params: idParams, body: attachmentTargetBody, response: { 200: z.object({ data: policySchema }) } } },
    async (request) => ({
      data: await context.commands.runValidated(policyCommands.detach, { ...request.body, id: request.params.id }, commandCaller(request)),
    }),
  );
}
