// Web push over HTTP: the VAPID public key, status, a test notification, and the caller's
// browser subscriptions (upsert and remove).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError } from '../../../domain/shared/appError.ts';
import { userPrincipal } from '../../auth/principal.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { pushCommands, subscribeBody, testPushBody, unsubscribeBody } from './commands.ts';
import type { TestPushResult } from './handlers.ts';
import type { PushRuntime } from './pushRuntime.ts';
import { countUserPushSubscriptions } from './queries.ts';
import { commandCaller } from '../../server/routeKit.ts';

const signedIn = { site: 'required' as const, access: 'bearer' as const };

/** `runtime` holds the VAPID keys, the outbound HTTP client and the sender (pushRuntime.ts, started by the manifest). */
export async function pushRoutes(app: FastifyInstance, { context }: ServerDeps, runtime: PushRuntime): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { vapid } = runtime;

  api.get('/push/vapid-public-key', { config: signedIn, schema: { tags: ['push'] } }, async () => {
    if (!vapid) throw new AppError('PUSH_NOT_CONFIGURED', 'Web push is not configured (no VAPID keys)');
    return { data: { publicKey: vapid.publicKey } };
  });

  api.get('/push/status', { config: signedIn, schema: { tags: ['push'] } }, async (request) => {
    const user = userPrincipal(request.principal);
    const subscriptions = await context.database.withSite(request.siteId, (tx) => countUserPushSubscriptions(tx, request.siteId, user.userId));
    return { data: { vapidConfigured: vapid !== null, realtimeAvailable: true, subscriptions } };
  });

  api.post('/push/test', { config: signedIn, schema: { tags: ['push'], body: testPushBody.nullish() } }, async (request) => ({
    data: await context.commands.run<TestPushResult>('push.sendTest', request.body ?? {}, commandCaller(request)),
  }));

  api.post('/push/subscriptions', { config: signedIn, schema: { tags: ['push'], body: subscribeBody(runtime.allowPrivate) } }, async (request, reply) => {
    const { created, subscription } = await context.commands.run<{ created: boolean; subscription: unknown }>('push.subscribe', request.body, commandCaller(request));
    return reply.status(created ? 201 : 200).send({ data: subscription });
  });

  api.delete('/push/subscriptions', { config: signedIn, schema: { tags: ['push'], body: unsubscribeBody } }, async (request, reply) => {
    await context.commands.runValidated(pushCommands.unsubscribe, request.body, commandCaller(request));
    return reply.status(204).send();
  });
}
