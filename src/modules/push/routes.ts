// Web push over HTTP: the VAPID public key, status, a test notification, and the caller's
// browser subscriptions (upsert and remove).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../../domain/shared/appError.ts';
import { createOutboundHttp } from '../../../infra/http/outboundHttp.ts';
import { assertVapidDetails, createWebPushSender, type VapidDetails } from '../../../infra/webpush/webPushSender.ts';
import { userPrincipal } from '../../auth/principal.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { pushCommands, unsubscribeBody } from './commands.ts';
import { registerPushSubscription, sendTestPush, type PushDeps } from './handlers.ts';
import { countUserPushSubscriptions } from './queries.ts';
import { commandCaller } from '../../server/routeKit.ts';

const signedIn = { site: 'required' as const, access: 'bearer' as const };

export async function pushRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { config } = context;
  const vapid: VapidDetails | null =
    config.SVC_VAPID_PUBLIC_KEY && config.SVC_VAPID_PRIVATE_KEY
      ? { publicKey: config.SVC_VAPID_PUBLIC_KEY, privateKey: config.SVC_VAPID_PRIVATE_KEY, subject: config.SVC_VAPID_SUBJECT }
      : null;
  if (vapid) assertVapidDetails(vapid);
  const http = createOutboundHttp({ allowPrivate: config.SVC_WEBHOOK_ALLOW_PRIVATE, userAgent: `svc-push/${context.version}` });
  context.onClose(async () => http.close());
  const deps: PushDeps = { context, http, sender: createWebPushSender({ vapid, http, timeoutMs: config.SVC_WEBHOOK_TIMEOUT_MS }) };

  const endpointSchema = z
    .url({ protocol: config.SVC_WEBHOOK_ALLOW_PRIVATE ? /^https?$/ : /^https$/ })
    .max(2_000);

  api.get('/push/vapid-public-key', { config: signedIn, schema: { tags: ['push'] } }, async () => {
    if (!vapid) throw new AppError('PUSH_NOT_CONFIGURED', 'Web push is not configured (no VAPID keys)');
    return { data: { publicKey: vapid.publicKey } };
  });

  api.get('/push/status', { config: signedIn, schema: { tags: ['push'] } }, async (request) => {
    const user = userPrincipal(request.principal);
    const subscriptions = await context.database.withSite(request.siteId, (tx) => countUserPushSubscriptions(tx, request.siteId, user.userId));
    return { data: { vapidConfigured: vapid !== null, realtimeAvailable: true, subscriptions } };
  });

  api.post(
    '/push/test',
    {
      config: signedIn,
      schema: {
        tags: ['push'],
        body: z.object({ title: z.string().min(1).max(200).optional(), body: z.string().max(2_000).optional() }).strict().nullish(),
      },
    },
    async (request) => {
      const user = userPrincipal(request.principal);
      const content = { title: request.body?.title ?? 'Test notification', body: request.body?.body ?? 'Web push works for this browser.' };
      return { data: await sendTestPush(deps, request.siteId, user.userId, content, request.metadata) };
    },
  );

  api.post(
    '/push/subscriptions',
    {
      config: signedIn,
      schema: {
        tags: ['push'],
        body: z.object({
          endpoint: endpointSchema,
          expirationTime: z.number().nullable().optional(),
          keys: z.object({ p256dh: z.string().min(1).max(200), auth: z.string().min(1).max(100) }),
        }),
      },
    },
    async (request, reply) => {
      const user = userPrincipal(request.principal);
      const { endpoint, keys } = request.body;
      const created = await registerPushSubscription(deps, request.siteId, user.userId, { endpoint, keys }, request.metadata);
      return reply.status(created ? 201 : 200).send({ data: { endpoint, keys } });
    },
  );

  api.delete(
    '/push/subscriptions',
    { config: signedIn, schema: { tags: ['push'], body: unsubscribeBody } },
    async (request, reply) => {
      await context.commands.runValidated(pushCommands.unsubscribe, request.body, commandCaller(request));
      return reply.status(204).send();
    },
  );
}
