// Events of the change-feed context (change-feed subscriptions, web push subscriptions,
// notifications): the zod schema of each event's data, and the event types inferred from them. The
// event store checks every event it reads against these (domain/shared/eventCatalogue.ts).
import { z } from 'zod';
import type { EventOf } from '../shared/eventSchema.ts';

const nullableText = z.string().nullable();

// Change-feed subscriptions

export const SUBSCRIPTION_KINDS = ['pull', 'webhook', 'nats'] as const;
export type SubscriptionKind = (typeof SUBSCRIPTION_KINDS)[number];
export const SUBSCRIPTION_STATES = ['active', 'paused', 'dead', 'stale'] as const;
export type SubscriptionStateName = (typeof SUBSCRIPTION_STATES)[number];

const subscriptionDefinitionShape = {
  name: z.string(),
  kind: z.enum(SUBSCRIPTION_KINDS),
  url: nullableText,
  /** The webhook signing secret, encrypted; never the secret itself. */
  secretCiphertext: nullableText,
  /** null = every collection / every operation. */
  collections: z.array(z.string()).nullable(),
  operations: z.array(z.string()).nullable(),
  /** A nats subscription's own subject token (natsSubject.ts); null (or absent, before nats) = the site's default subjects. */
  natsChannel: nullableText.optional(),
};
const subscriptionDefinitionSchema = z.object(subscriptionDefinitionShape);
export type SubscriptionDefinition = z.infer<typeof subscriptionDefinitionSchema>;

const subscriptionChangesSchema = subscriptionDefinitionSchema.omit({ kind: true }).partial();
export type SubscriptionChanges = z.infer<typeof subscriptionChangesSchema>;

const subscriptionId = { subscriptionId: z.string() };

export const subscriptionEventSchemas = {
  'cdc_subscription.created': z.object({ ...subscriptionDefinitionShape, ...subscriptionId, cursorSeq: z.number() }),
  'cdc_subscription.updated': z.object({ ...subscriptionId, changes: subscriptionChangesSchema }),
  'cdc_subscription.paused': z.object(subscriptionId),
  'cdc_subscription.resumed': z.object(subscriptionId),
  'cdc_subscription.acknowledged': z.object({ ...subscriptionId, cursorSeq: z.number() }),
  'cdc_subscription.replayed': z.object({
    ...subscriptionId,
    cursorSeq: z.number(),
    generation: z.number(),
    previousState: z.enum(SUBSCRIPTION_STATES),
    state: z.enum(SUBSCRIPTION_STATES),
  }),
  'cdc_subscription.dispatch_requested': z.object(subscriptionId),
  'cdc_subscription.died': z.object({ ...subscriptionId, reason: z.string() }),
  'cdc_subscription.went_stale': z.object({ ...subscriptionId, reason: z.string() }),
  'cdc_subscription.deleted': z.object(subscriptionId),
};
export type SubscriptionEvent = EventOf<typeof subscriptionEventSchemas>;

export const SUBSCRIPTION_EVENT_TYPES = Object.keys(subscriptionEventSchemas) as readonly SubscriptionEvent['type'][];

// Web push subscriptions

const pushKeysSchema = z.object({ p256dh: z.string(), auth: z.string() });
export type PushKeys = z.infer<typeof pushKeysSchema>;

export const pushSubscriptionEventSchemas = {
  'push_subscription.registered': z.object({ subscriptionId: z.string(), userId: z.string(), endpoint: z.string(), keys: pushKeysSchema }),
  'push_subscription.removed': z.object({ subscriptionId: z.string(), reason: z.enum(['user', 'gone']) }),
};
export type PushSubscriptionEvent = EventOf<typeof pushSubscriptionEventSchemas>;

export const PUSH_SUBSCRIPTION_EVENT_TYPES = Object.keys(pushSubscriptionEventSchemas) as readonly PushSubscriptionEvent['type'][];

// Notifications

export const NOTIFICATION_SEVERITIES = ['info', 'success', 'warning', 'error', 'critical'] as const;
export type NotificationSeverity = (typeof NOTIFICATION_SEVERITIES)[number];

const notificationContentShape = {
  kind: z.string(),
  severity: z.enum(NOTIFICATION_SEVERITIES),
  title: z.string(),
  body: nullableText,
  deepLink: nullableText,
  entityId: nullableText,
};
export type NotificationContent = z.infer<z.ZodObject<typeof notificationContentShape>>;

export const notificationEventSchemas = {
  'notification.published': z.object({ ...notificationContentShape, notificationId: z.string() }),
};
export type NotificationEvent = EventOf<typeof notificationEventSchemas>;

/** Every event type of the change-feed context with the schema of its data. */
export const changeFeedEventSchemas = {
  ...subscriptionEventSchemas,
  ...pushSubscriptionEventSchemas,
  ...notificationEventSchemas,
};
