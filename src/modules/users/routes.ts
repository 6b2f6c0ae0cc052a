// /users (site admin): list, create, read, update, soft delete, invite, impersonate, sessions; and
// /sessions/:id for revoking any session of the site.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import { uuidSchema } from '../../../domain/shared/uuid.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { listActiveSessions } from '../account/queries.ts';
import { sessionSchema } from '../account/schemas.ts';
import { createUserBody, inviteUserBody, updateUserBody, userCommands } from './commands.ts';
import { findUser, listUsers } from './queries.ts';
import { subscriberAccessRoutes } from './subscriberAccessRoutes.ts';
import { commandCaller, pageMeta, pageQuery, SITE_ADMIN, uuidOr404 } from '../../server/routeKit.ts';

/** Kept here too: other areas import it from this module. */
export { uuidOr404 };

export const userSchema = z.object({
  id: z.string(),
  email: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  avatar: z.string().nullable(),
  roleId: z.string().nullable(),
  status: z.string(),
  emailVerified: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const idParams = z.object({ id: z.string() });


export async function usersRoutes(app: FastifyInstance, deps: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { context } = deps;
  await subscriberAccessRoutes(app, deps);

  api.get(
    '/users',
    {
      config: SITE_ADMIN,
      schema: {
        tags: ['users'],
        querystring: pageQuery.extend({
          status: z.enum(['active', 'invited', 'unverified', 'suspended']).optional(),
          roleId: uuidSchema.optional(),
          search: z.string().min(1).max(200).optional(),
        }),
      },
    },
    async (request) => {
      const result = await context.database.withSite(request.siteId, (tx) => listUsers(tx, request.siteId, request.query));
      return { data: result.users, meta: pageMeta(result.total, request.query) };
    },
  );

  api.post(
    '/users',
    {
      config: SITE_ADMIN,
      schema: {
        tags: ['users'],
        body: createUserBody,
        response: { 201: z.object({ data: userSchema }) },
      },
    },
    async (request, reply) => {
      const user = await context.commands.runValidated(userCommands.create, request.body, commandCaller(request));
      return reply.status(201).send({ data: user });
    },
  );

  api.post(
    '/users/invite',
    {
      config: SITE_ADMIN,
      schema: {
        tags: ['users'],
        body: inviteUserBody,
      },
    },
    async (request, reply) => {
      const { user, created } = await context.commands.runValidated(userCommands.invite, request.body, commandCaller(request));
      return reply.status(created ? 201 : 200).send({ data: user });
    },
  );

  api.get('/users/:id', { config: SITE_ADMIN, schema: { tags: ['users'], params: idParams } }, async (request) => {
    const id = uuidOr404(request.params.id, 'User');
    const user = await context.database.withSite(request.siteId, (tx) => findUser(tx, request.siteId, id));
    if (!user) throw errors.notFound('User not found');
    return { data: user };
  });

  api.patch(
    '/users/:id',
    {
      config: SITE_ADMIN,
      schema: {
        tags: ['users'],
        params: idParams,
        body: updateUserBody,
      },
    },
    async (request) => {
      const id = uuidOr404(request.params.id, 'User');
      return { data: await context.commands.runValidated(userCommands.update, { ...request.body, id }, commandCaller(request)) };
    },
  );

  api.delete('/users/:id', { config: SITE_ADMIN, schema: { tags: ['users'], params: idParams } }, async (request, reply) => {
    const id = uuidOr404(request.params.id, 'User');
    await context.commands.runValidated(userCommands.delete, { id }, commandCaller(request));
    return reply.status(204).send();
  });

  api.post('/users/:id/impersonate', { config: { site: 'required', access: 'personAdmin' }, schema: { tags: ['users'], params: idParams } }, async (request) => ({
    data: await context.commands.run('users.impersonate', { id: request.params.id }, commandCaller(request)),
  }));

  api.get(
    '/users/:id/sessions',
    { config: SITE_ADMIN, schema: { tags: ['users'], params: idParams, response: { 200: z.object({ data: z.array(sessionSchema) }) } } },
    async (request) => {
      const id = uuidOr404(request.params.id, 'User');
      const sessions = await context.database.withSite(request.siteId, async (tx) => {
        if (!(await findUser(tx, request.siteId, id))) throw errors.notFound('User not found');
        const current = request.principal.kind === 'user' ? request.principal.sessionId : null;
        return listActiveSessions(tx, request.siteId, id, current);
      });
      return { data: sessions };
    },
  );

  api.delete('/sessions/:id', { config: SITE_ADMIN, schema: { tags: ['users'], params: idParams } }, async (request, reply) => {
    const id = uuidOr404(request.params.id, 'Session');
    await context.commands.runValidated(userCommands.revokeSession, { id }, commandCaller(request));
    return reply.status(204).send();
  });
}
