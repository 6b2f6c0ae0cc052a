// /roles (site admin): role CRUD. The list shows the site's public role (created with the site), to
// which administrators attach what requests without credentials may do.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { createRoleBody, roleCommands, updateRoleBody } from './commands.ts';
import { findRole, listRoles } from './queries.ts';
import { commandCaller, SITE_ADMIN, uuidOr404 } from '../../server/routeKit.ts';

export const roleSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  admin: z.boolean(),
  parentId: z.string().nullable(),
  systemKey: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const idParams = z.object({ id: z.string() });

export async function rolesRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get('/roles', { config: SITE_ADMIN, schema: { tags: ['roles'], response: { 200: z.object({ data: z.array(roleSchema), meta: z.object({ total: z.number() }) }) } } }, async (request) => {
    const roles = await context.database.withSite(request.siteId, (tx) => listRoles(tx, request.siteId));
    return { data: roles, meta: { total: roles.length } };
  });

  api.post(
    '/roles',
    { config: SITE_ADMIN, schema: { tags: ['roles'], body: createRoleBody, response: { 201: z.object({ data: roleSchema }) } } },
    async (request, reply) => reply.status(201).send({ data: await context.commands.runValidated(roleCommands.create, request.body, commandCaller(request)) }),
  );

  api.get('/roles/:id', { config: SITE_ADMIN, schema: { tags: ['roles'], params: idParams, response: { 200: z.object({ data: roleSchema }) } } }, async (request) => {
    const id = uuidOr404(request.params.id, 'Role');
    const role = await context.database.withSite(request.siteId, (tx) => findRole(tx, request.siteId, id));
    if (!role) throw errors.notFound('Role not found');
    return { data: role };
  });

  api.patch(
    '/roles/:id',
    { config: SITE_ADMIN, schema: { tags: ['roles'], params: idParams, body: updateRoleBody, response: { 200: z.object({ data: roleSchema }) } } },
    async (request) => {
      const id = uuidOr404(request.params.id, 'Role');
      return { data: await context.commands.runValidated(roleCommands.update, { ...request.body, id }, commandCaller(request)) };
    },
  );

  api.delete('/roles/:id', { config: SITE_ADMIN, schema: { tags: ['roles'], params: idParams } }, async (request, reply) => {
    const id = uuidOr404(request.params.id, 'Role');
    await context.commands.runValidated(roleCommands.delete, { id }, commandCaller(request));
    return reply.status(204).send();
  });
}
