// /me/*: the signed-in user's password, sessions and preferences. A role-bound API key has no user
// behind it and gets 403 here.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import { userPrincipal } from '../../auth/principal.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { accountCommands, changePasswordBody, preferencesBody } from './commands.ts';
import { listActiveSessions, readPreferences } from './queries.ts';
import { sessionSchema } from './schemas.ts';
import { commandCaller } from '../../server/routeKit.ts';

const me = { site: 'required' as const, access: 'user' as const };

export async function accountRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/me/change-password',
    { config: { ...me, rateLimit: 'auth' }, schema: { tags: ['account'], body: changePasswordBody } },
    async (request, reply) => {
      await context.commands.runValidated(accountCommands.changePassword, request.body, commandCaller(request));
      return reply.status(204).send();
    },
  );

  api.get('/me/sessions', { config: me, schema: { tags: ['account'], response: { 200: z.object({ data: z.array(sessionSchema) }) } } }, async (request) => {
    const user = userPrincipal(request.principal);
    return { data: await context.database.withSite(request.siteId, (tx) => listActiveSessions(tx, request.siteId, user.userId, user.sessionId)) };
  });

  api.delete('/me/sessions/:id', { config: me, schema: { tags: ['account'], params: z.object({ id: z.string() }) } }, async (request, reply) => {
    await context.commands.runValidated(accountCommands.revokeSession, { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });

  api.delete('/me/sessions', { config: me, schema: { tags: ['account'] } }, async (request, reply) => {
    await context.commands.runValidated(accountCommands.revokeAllSessions, {}, commandCaller(request));
    return reply.status(204).send();
  });

  api.get('/me/preferences', { config: me, schema: { tags: ['account'] } }, async (request) => {
    const user = userPrincipal(request.principal);
    const preferences = await context.database.withSite(request.siteId, (tx) => readPreferences(tx, request.siteId, user.userId));
    if (!preferences) throw errors.notFound('User not found');
    return { data: preferences };
  });

  api.patch('/me/preferences', { config: me, schema: { tags: ['account'], body: preferencesBody } }, async (request) => ({
    data: await context.commands.runValidated(accountCommands.updatePreferences, request.body, commandCaller(request)),
  }));
}
