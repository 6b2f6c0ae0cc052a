// The change feed, realtime tickets, push, the site, settings, the configuration manifest and the
// editorial workflow.
import { z } from 'zod';
import type { OperationCatalogue } from '../operationEntry.ts';
import { noContent, nullableTimestamp, openObject, timestamp } from './shapes.ts';

const subscription = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['pull', 'webhook', 'nats']),
  state: z.enum(['active', 'paused', 'dead', 'stale']),
  stateReason: z.string().nullable(),
  webhook: z.object({ url: z.string(), hasSecret: z.boolean() }).nullable(),
  filters: z.object({ collections: z.array(z.string()).nullable(), operations: z.array(z.string()).nullable() }),
  cursor: z.string(),
  lag: z.object({ events: z.number(), seconds: z.number() }),
  delivery: z
    .object({
      consecutiveFailures: z.number(),
      nextAttemptAt: nullableTimestamp,
      lastAttemptAt: nullableTimestamp,
      lastSuccessAt: nullableTimestamp,
      lastError: z.string().nullable(),
    })
    .nullable(),
  createdBy: z.object({ kind: z.string(), id: z.string().nullable() }).nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
const delivery = z.object({
  id: z.number(),
  deliveryId: z.string(),
  sequence: z.number(),
  cursor: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  attempt: z.number(),
  outcome: z.enum(['succeeded', 'failed']),
  statusCode: z.number().nullable(),
  error: z.string().nullable(),
  durationMs: z.number(),
  attemptedAt: timestamp,
});
const ticket = z.object({ ticket: z.string(), expiresAt: timestamp, collections: z.array(z.string()) });
const setting = z.object({ key: z.string(), value: z.unknown(), isDefault: z.boolean() });
const importResult = z.object({
  valid: z.boolean(),
  errors: z.array(z.object({ code: z.string(), message: z.string() }).catchall(z.unknown())),
  diff: openObject.nullable().describe('Per resource, the counts to create, update, leave and delete, and the `risk`'),
  applied: z.object({ created: z.number(), updated: z.number(), deleted: z.number() }).optional(),
});
const frontendRealm = 'Frontend-realm tokens are refused.';

export const platformOperations: OperationCatalogue = {
  'GET /cdc/events': {
    summary: 'Read the change feed (keyset-paged, long-poll)',
    description: `\`cursor\` continues where the last page ended (\`meta.nextCursor\`); \`wait\` long-polls up to 25 s. A cursor past retention is 410 \`CURSOR_EXPIRED\` with \`earliestCursor\`. ${frontendRealm}`,
    errors: ['CURSOR_EXPIRED'],
    response: {
      data: z.array(openObject.describe('A change: its cursor, the operation, the collection and item, the event and its data')),
      meta: z.object({ nextCursor: z.string(), hasMore: z.boolean() }),
    },
  },
  'GET /cdc/subscriptions': { summary: 'List change-feed subscriptions with their lag', response: { data: z.array(subscription), meta: z.object({ total: z.number() }) } },
  'POST /cdc/subscriptions': {
    summary: 'Create a change-feed subscription (pull, webhook or nats)',
    description: 'More than 50 per site is 403; a duplicate name 409; a webhook without a secret 400; a nats subscription without NATS_URL configured 400.',
    errors: ['CONFLICT'],
    response: { status: 201, data: subscription },
  },
  'GET /cdc/subscriptions/{id}': { summary: 'One subscription', response: { data: subscription } },
  'PATCH /cdc/subscriptions/{id}': { summary: 'Update a subscription’s filters, pause or resume it', errors: ['CONFLICT'], response: { data: subscription } },
  'DELETE /cdc/subscriptions/{id}': { summary: 'Delete a subscription (audited)', response: noContent('The subscription is deleted.') },
  'POST /cdc/subscriptions/{id}/ack': {
    summary: 'Commit a pull subscription’s checkpoint',
    description: `Forward only: a rewind is 409 \`ACK_REGRESSION\`. ${frontendRealm}`,
    errors: ['ACK_REGRESSION', 'CURSOR_EXPIRED'],
    response: { data: subscription },
  },
  'POST /cdc/subscriptions/{id}/replay': {
    summary: 'Rewind a subscription within retention',
    description: 'Body `{ cursor }` or `{ occurred_after }`; a dead or stale subscription becomes active. Audited.',
    errors: ['CURSOR_EXPIRED'],
    response: { data: subscription },
  },
  'POST /cdc/subscriptions/{id}/dispatch': { summary: 'Dispatch a webhook subscription now', response: { status: 202, data: subscription } },
  'GET /cdc/subscriptions/{id}/deliveries': {
    summary: 'A subscription’s delivery attempts, newest first',
    response: { data: z.array(delivery), meta: z.object({ total: z.number(), page: z.number(), pageSize: z.number() }) },
  },
  'POST /realtime/ticket': { summary: 'A studio ticket for the realtime WebSocket (one minute)', response: { data: ticket } },
  'POST /realtime/audience-ticket': { summary: 'An end-user ticket for the realtime WebSocket', response: { data: ticket } },
  'GET /push/vapid-public-key': {
    summary: 'The web push application-server public key',
    errors: ['PUSH_NOT_CONFIGURED'],
    response: { data: z.object({ publicKey: z.string() }) },
  },
  'GET /push/status': {
    summary: 'Whether push is configured, and the caller’s subscriptions',
    response: { data: z.object({ vapidConfigured: z.boolean(), realtimeAvailable: z.boolean(), subscriptions: z.unknown() }) },
  },
  'POST /push/test': {
    summary: 'Send a test notification to the caller’s subscriptions',
    errors: ['PUSH_NOT_CONFIGURED', 'DELIVERY_FAILED'],
    response: { data: z.object({ sent: z.number(), failed: z.number(), removed: z.number() }) },
  },
  'POST /push/subscriptions': {
    summary: 'Subscribe a browser to push (upsert by endpoint)',
    description: 'Answers 201 for a new subscription, 200 for a known endpoint.',
    errors: ['PUSH_NOT_CONFIGURED'],
    response: { status: 201, data: openObject.describe('The subscription (its endpoint, never its keys)') },
  },
  'DELETE /push/subscriptions': { summary: 'Unsubscribe a push endpoint', response: noContent('The subscription is removed.') },
  'GET /site': { summary: 'The active site’s configuration' },
  'PATCH /site': {
    summary: 'Update the site’s configuration (any subset of its fields)',
    description: 'An empty string clears a nullable field; a domain another site uses is 409 `DOMAIN_TAKEN`.',
    errors: ['DOMAIN_TAKEN'],
  },
  'GET /settings': { summary: 'Every setting, with defaults for unset known ones', response: { data: openObject } },
  'PATCH /settings': { summary: 'Update several settings', response: { data: openObject } },
  'GET /settings/{key}': { summary: 'One setting (its default when unset)', response: { data: setting } },
  'PUT /settings/{key}': { summary: 'Set one setting', response: { data: setting } },
  'POST /settings/export': {
    summary: 'Export the settings as a bundle',
    response: { data: z.object({ version: z.string(), exportedAt: timestamp, settings: openObject }) },
  },
  'POST /settings/apply': { summary: 'Apply a settings bundle', response: { data: openObject } },
  'GET /config/export': { summary: 'Export the configuration manifest (`scope`: all, schema, settings or webhooks)', response: { data: openObject.describe('A `svc.config@v1` manifest') } },
  'POST /config/import': {
    summary: 'Validate and diff (`dryRun=true`) or apply a configuration manifest',
    description:
      '`mode`: `merge`, `replace-managed` or `replace-all`. Destructive changes are refused (409 `DESTRUCTIVE_BLOCKED`) unless `allowDestructive=true`; ' +
      'the apply runs in one transaction.',
    errors: ['DESTRUCTIVE_BLOCKED', 'UNSUPPORTED_MANIFEST_VERSION', 'DANGLING_REFERENCE', 'DUPLICATE_KEY'],
    response: { data: importResult },
  },
  'GET /editorial/reviews': { summary: 'Review requests (filter by status, assignee)' , response: { data: z.array(openObject.describe('A review: collection, item, status, reviewer, author, versions, reason')), meta: z.object({ total: z.number(), page: z.number(), pageSize: z.number() }) } },
  'POST /editorial/{collection}/{id}/submit-review': { summary: 'Submit an item’s draft for review', notFound: 'RECORD_NOT_FOUND', errors: ['CONFLICT'] },
  'POST /editorial/{collection}/{id}/approve': {
    summary: 'Approve an item in review',
    description: 'With `requireSeparateReviewer`, the reviewer must not be the author.',
    notFound: 'RECORD_NOT_FOUND',
    errors: ['CONFLICT'],
  },
  'POST /editorial/{collection}/{id}/reject': { summary: 'Reject an item in review, with a reason', notFound: 'RECORD_NOT_FOUND', errors: ['CONFLICT'] },
};
