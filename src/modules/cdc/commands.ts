// The change feed's commands in the command registry (docs/architecture.md): deleting a subscription,
// and, bound to the area's runtime (the outbound HTTP check of webhook URLs, the secret box, the sites'
// cursors, the reactor's wake-up), creating, changing, acknowledging, replaying and dispatching one
// (`subscriptionCommands`, registered by the manifest when the runtime starts). Each answers the
// subscription as GET /cdc/subscriptions/:id shows it.
import { z } from 'zod';
import { SUBSCRIPTION_KINDS } from '../../../domain/changeFeed/events.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import type { Principal } from '../../auth/principal.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { ChangeFeedRuntime } from './changeFeedRuntime.ts';
import { parseCollections, parseOperations } from './feedEnvelope.ts';
import {
  acknowledgeSubscription,
  createSubscription,
  deleteSubscription,
  dispatchSubscription,
  replaySubscription,
  updateSubscription,
  type SubscriptionDeps,
} from './subscriptionHandlers.ts';
import { findSubscription } from './subscriptionQueries.ts';

export const subscriptionIdParams = z.object({ id: z.string().min(1).max(100) });

const filtersSchema = z
  .object({
    collections: z.array(z.string()).max(100).nullable().optional(),
    operations: z.array(z.string()).max(20).nullable().optional(),
  })
  .strict();

const webhookSchema = z
  .object({
    url: z.url({ protocol: /^https?$/ }).max(2_000).optional(),
    secret: z.string().min(16, 'at least 16 characters').max(256).optional(),
  })
  .strict();

/** A nats subscription's own subject token (checked by the handler, which says what is wrong with it). */
const natsSchema = z.object({ channel: z.string().max(200).nullable().optional() }).strict();

export const createSubscriptionBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    kind: z.enum(SUBSCRIPTION_KINDS),
    webhook: webhookSchema.optional(),
    nats: natsSchema.optional(),
    filters: filtersSchema.optional(),
    from: z.string().min(1).max(200).optional(),
  })
  .strict();

export const updateSubscriptionBody = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    webhook: webhookSchema.optional(),
    nats: natsSchema.optional(),
    filters: filtersSchema.optional(),
    action: z.enum(['pause', 'resume']).optional(),
    state: z.enum(['active', 'paused']).optional(),
  })
  .strict();

export const acknowledgeBody = z.object({ cursor: z.string().min(1).max(200) }).strict();
export const replayBody = z.object({ cursor: z.string().min(1).max(200).optional(), occurred_after: z.iso.datetime({ offset: true }).optional() }).strict();

/** Frontend-realm tokens are refused by every change-feed route (routes.ts) and command. */
function refuseFrontend(principal: Principal): void {
  if (principal.kind === 'user' && principal.realm === 'frontend') throw errors.forbidden('Frontend tokens cannot use the change feed');
}

function normalizeFilters(filters: z.infer<typeof filtersSchema> | undefined) {
  if (!filters) return undefined;
  return {
    ...(filters.collections !== undefined ? { collections: parseCollections(filters.collections ?? undefined, ['body', 'filters', 'collections']) } : {}),
    ...(filters.operations !== undefined ? { operations: parseOperations(filters.operations ?? undefined, ['body', 'filters', 'operations']) } : {}),
  };
}

const deleteCommand = defineCommand({
  name: 'cdc.deleteSubscription',
  description: 'Delete a change-feed subscription, with its delivery state and history.',
  input: subscriptionIdParams,
  access: 'siteAdmin',
  dangerous: true,
  async handler(context, { siteId, principal, input, metadata }) {
    refuseFrontend(principal);
    await deleteSubscription(context, siteId, input.id, metadata);
  },
});

export const cdcCommands = { deleteSubscription: deleteCommand };

/** The commands that need the change feed's runtime: the manifest registers them when it starts. */
export function subscriptionCommands(runtime: ChangeFeedRuntime) {
  const depsOf = (context: AppContext): SubscriptionDeps => ({
    context,
    http: runtime.http,
    secrets: runtime.secrets,
    cursors: runtime.cursors,
    natsConfigured: runtime.natsConfigured,
    wake: (siteId) => {
      runtime.reactor.wake(siteId);
      runtime.sinks.wake(siteId);
    },
  });
  const viewOf = async (context: AppContext, siteId: string, id: string) => {
    const view = await context.database.withSite(siteId, (tx) => findSubscription(tx, siteId, id, new Date(), runtime.cursors.forSite(siteId), runtime.natsSink));
    if (!view) throw new AppError('NOT_FOUND', 'Subscription not found');
    return view;
  };

  const create = defineCommand({
    name: 'cdc.createSubscription',
    description:
      'Create a change-feed subscription: `pull` (read with GET /cdc/events), `webhook` (a URL, checked, and a secret that signs each delivery) or `nats` (published to NATS JetStream, optionally under a `nats.channel` of its own), with filters by collection and operation and a start point (`from`: a cursor, `start` or `end`).',
    input: createSubscriptionBody,
    access: 'siteAdmin',
    // A webhook or a sink sends the site's changes outside: it grants read access.
    dangerous: true,
    async handler(context, { siteId, principal, input, metadata }) {
      refuseFrontend(principal);
      const id = await createSubscription(depsOf(context), siteId, { ...input, filters: normalizeFilters(input.filters) }, metadata);
      return viewOf(context, siteId, id);
    },
  });

  const update = defineCommand({
    name: 'cdc.updateSubscription',
    description: "Change a subscription's name, webhook URL or secret, nats channel, or filters, or pause or resume it.",
    input: updateSubscriptionBody.safeExtend(subscriptionIdParams.shape),
    access: 'siteAdmin',
    // It can point a webhook at another URL.
    dangerous: true,
    async handler(context, { siteId, principal, input, metadata }) {
      refuseFrontend(principal);
      const { id, ...changes } = input;
      await updateSubscription(depsOf(context), siteId, id, { ...changes, filters: normalizeFilters(changes.filters) }, metadata);
      return viewOf(context, siteId, id);
    },
  });

  const acknowledge = defineCommand({
    name: 'cdc.acknowledgeSubscription',
    description: "Acknowledge a pull subscription's entries up to a cursor of GET /cdc/events.",
    input: acknowledgeBody.safeExtend(subscriptionIdParams.shape),
    access: 'bearer',
    capability: 'cdc:subscribe',
    dangerous: false,
    async handler(context, { siteId, principal, input, metadata }) {
      refuseFrontend(principal);
      await acknowledgeSubscription(depsOf(context), siteId, input.id, input.cursor, metadata);
      return viewOf(context, siteId, input.id);
    },
  });

  const replay = defineCommand({
    name: 'cdc.replaySubscription',
    description: 'Move a subscription back to a cursor, or to the first entry after a time (`occurred_after`), to deliver again from there: one of the two.',
    input: replayBody.safeExtend(subscriptionIdParams.shape),
    access: 'siteAdmin',
    dangerous: false,
    async handler(context, { siteId, principal, input, metadata }) {
      refuseFrontend(principal);
      const { cursor, occurred_after: occurredAfter } = input;
      if ((cursor === undefined) === (occurredAfter === undefined)) {
        throw new AppError('VALIDATION_FAILED', 'Send either cursor or occurred_after', { path: ['body'] });
      }
      const target = cursor !== undefined ? { cursor } : { occurredAfter: new Date(occurredAfter!) };
      await replaySubscription(depsOf(context), siteId, input.id, target, metadata);
      return viewOf(context, siteId, input.id);
    },
  });

  const dispatch = defineCommand({
    name: 'cdc.dispatchSubscription',
    description: "Deliver a webhook or nats subscription's pending entries now, without waiting for its next attempt.",
    input: subscriptionIdParams,
    access: 'siteAdmin',
    dangerous: false,
    async handler(context, { siteId, principal, input, metadata }) {
      refuseFrontend(principal);
      await dispatchSubscription(depsOf(context), siteId, input.id, metadata);
      return viewOf(context, siteId, input.id);
    },
  });

  return { create, update, acknowledge, replay, dispatch };
}
