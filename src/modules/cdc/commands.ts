// The change feed's commands in the command registry (docs/architecture.md): deleting a subscription.
// Create, update, ack, replay and dispatch stay routes for now: they need the area's runtime (the
// outbound HTTP check of webhook URLs, the secret box, the sites' cursors, the reactor's wake-up),
// which a command's handler, given the context only, cannot reach.
import { z } from 'zod';
import { defineCommand } from '../../runtime/appCommand.ts';
import { deleteSubscription } from './subscriptionHandlers.ts';

export const subscriptionIdParams = z.object({ id: z.string().min(1).max(100) });

const deleteCommand = defineCommand({
  name: 'cdc.deleteSubscription',
  description: 'Delete a change-feed subscription, with its delivery state and history.',
  input: subscriptionIdParams,
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => deleteSubscription(context, siteId, input.id, metadata),
});

export const cdcCommands = { deleteSubscription: deleteCommand };
