// The web push area's commands (the command registry, docs/architecture.md): unsubscribe one of the
// caller's browsers; and, bound to the area's runtime (the outbound HTTP client that checks endpoints,
// the sender), subscribe one and send a test notification (`pushSenderCommands`, registered by the
// manifest when the runtime starts).
import { z } from 'zod';
import { userPrincipal } from '../../auth/principal.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { registerPushSubscription, removePushSubscription, sendTestPush } from './handlers.ts';
import type { PushRuntime } from './pushRuntime.ts';

export const unsubscribeBody = z.object({ endpoint: z.string().min(1).max(2_000) });

/** A browser's subscription; plain-HTTP endpoints only with SVC_WEBHOOK_ALLOW_PRIVATE (the runtime's `allowPrivate`). */
export function subscribeBody(allowPrivate: boolean) {
  return z.object({
    endpoint: z.url({ protocol: allowPrivate ? /^https?$/ : /^https$/ }).max(2_000),
    expirationTime: z.number().nullable().optional(),
    keys: z.object({ p256dh: z.string().min(1).max(200), auth: z.string().min(1).max(100) }),
  });
}

export const testPushBody = z.object({ title: z.string().min(1).max(200).optional(), body: z.string().max(2_000).optional() }).strict();

const unsubscribe = defineCommand({
  name: 'push.unsubscribe',
  description: "Remove one of the caller's browser push subscriptions, by its endpoint.",
  input: unsubscribeBody,
  access: 'bearer',
  dangerous: false,
  handler: (context, { siteId, principal, input, metadata }) => removePushSubscription(context, siteId, userPrincipal(principal).userId, input.endpoint, metadata),
});

export const pushCommands = { unsubscribe };

/** The commands that need the push runtime: the manifest registers them when it starts. */
export function pushSenderCommands(runtime: PushRuntime) {
  const subscribe = defineCommand({
    name: 'push.subscribe',
    description: "Register one of the caller's browsers for web push (upsert by endpoint): the endpoint is checked as a webhook URL is; `created` says whether it is new.",
    input: subscribeBody(runtime.allowPrivate),
    access: 'bearer',
    dangerous: false,
    async handler(context, { siteId, principal, input, metadata }) {
      const user = userPrincipal(principal);
      const { endpoint, keys } = input;
      const created = await registerPushSubscription({ context, http: runtime.http, sender: runtime.sender }, siteId, user.userId, { endpoint, keys }, metadata);
      return { created, subscription: { endpoint, keys } };
    },
  });

  const sendTest = defineCommand({
    name: 'push.sendTest',
    description: "Send a test notification to every browser the caller registered: how many were sent, failed, and removed as gone.",
    input: testPushBody,
    access: 'bearer',
    dangerous: false,
    async handler(context, { siteId, principal, input, metadata }) {
      const user = userPrincipal(principal);
      const content = { title: input.title ?? 'Test notification', body: input.body ?? 'Web push works for this browser.' };
      return sendTestPush({ context, http: runtime.http, sender: runtime.sender }, siteId, user.userId, content, metadata);
    },
  });

  return { subscribe, sendTest };
}
