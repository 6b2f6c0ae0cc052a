// /me/*: the signed-in user's password, sessions and preferences. A role-bound API key has no user
// behind it and gets 403 here.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import { userPrincipal } from '../../auth/principal.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { passwordSchema } from '../auth/schemas.ts';
import { changePassword, revokeAllSessions, revokeSession, updatePreferences } from './handlers.ts';
import { listActiveSessions, readPreferences } from './queries.ts';
import { sessionSchema } from './schemas.ts';
import { uuidOr404 } from '../../server/routeKit.ts';

export const SAVE_ACTIONS = ['stay', 'return', 'create_new'] as const;

const preferencesSchema = z
  .object({ saveAction: z.enum(SAVE_ACTIONS).nullable().optional() })
  .catchall(z.json())
  .refine((value) => Object.keys(value).length <= 100, { message: 'at most 100 preferences' });

const me = { site: 'required' as const, access: 'user' as const };

export async function accountRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/me/change-password',
    {
      config: { ...me, rateLimit: 'auth' },
      schema: { tags: ['account'], body: z.object({ currentPassword: z.string().min(1).max(512), newPassword: passwordSchema }) },
    },
    async (request, reply) => {
      const user = userPrincipal(request.principal);
      await changePassword(context, request.siteId, user.userId, request.body, request.metadata);
      return reply.status(204).send();
    },
  );

  api.get('/me/sessions', { config: me, schema: { tags: ['account'], response: { 200: z.object({ data: z.array(sessionSchema) }) } } }, async (request) => {
    const user = userPrincipal(request.principal);
    return { data: await context.database.withSite(request.siteId, (tx) => listActiveSessions(tx, request.siteId, user.userId, user.sessionId)) };
  });

  api.delete('/me/sessions/:id', { config: me, schema: { tags: ['account'], params: z.object({ id: z.string() }) } }, async (request, reply) => {
    const user = userPrincipal(request.principal);
    await revokeSession(context, request.siteId, uuidOr404(request.params.id, 'Session'), user.userId, request.metadata);
    return reply.status(204).send();
  });

  api.delete('/me/sessions', { config: me, schema: { tags: ['account'] } }, async (request, reply) => {
    const user = userPrincipal(request.principal);
    await revokeAllSessions(context, request.siteId, user.userId, request.metadata);
    return reply.status(204).send();
  });

  api.get('/me/preferences', { config: me, schema: { tags: ['account'] } }, async (request) => {
    const user = userPrincipal(request.principal);
    const preferences = await context.database.withSite(request.siteId, (tx) => readPreferences(tx, request.siteId, user.userId));
    if (!preferences) throw errors.notFound('User not found');
    return { data: preferences };
  });

  api.patch('/me/preferences', { config: me, schema: { tags: ['account'], body: preferencesSchema } }, async (request) => {
    const user = userPrincipal(request.principal);
    return { data: await updatePreferences(context, request.siteId, user.userId, request.body, request.metadata) };
  });
}
