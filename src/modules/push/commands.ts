// The web push area's commands (the command registry, docs/architecture.md): unsubscribe one of the
// caller's browsers. Subscribing stays a route for now: its endpoint is checked by the routes' outbound
// HTTP client and its schema follows SVC_WEBHOOK_ALLOW_PRIVATE, which a command's handler cannot reach.
import { z } from 'zod';
import { userPrincipal } from '../../auth/principal.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { removePushSubscription } from './handlers.ts';

export const unsubscribeBody = z.object({ endpoint: z.string().min(1).max(2_000) });

const unsubscribe = defineCommand({
  name: 'push.unsubscribe',
  description: "Remove one of the caller's browser push subscriptions, by its endpoint.",
  input: unsubscribeBody,
  access: 'bearer',
  dangerous: false,
  handler: (context, { siteId, principal, input, metadata }) => removePushSubscription(context, siteId, userPrincipal(principal).userId, input.endpoint, metadata),
});

export const pushCommands = { unsubscribe };
