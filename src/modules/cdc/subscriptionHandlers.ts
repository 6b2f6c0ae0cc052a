// Commands on change-feed subscriptions. Name uniqueness and the per-site limit span streams, so
// they are checked under a per-site lock in the transaction that appends.
import { randomUUID } from 'node:crypto';
import { natsChannelProblem } from '../../../domain/changeFeed/natsSubject.ts';
import {
  subscriptionDecider,
  type SubscriptionChanges,
  type SubscriptionCommand,
  type SubscriptionDefinition,
  type SubscriptionKind,
} from '../../../domain/changeFeed/subscription.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { OutboundRequestError, type OutboundHttp } from '../../../infra/http/outboundHttp.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { advisoryKey } from '../../runtime/projectionRunner.ts';
import type { FeedCursors, SiteFeedCursors } from './feedCursors.ts';
import { readFeedHead, type FeedHead } from './feedQueries.ts';
import type { SecretBox } from './webhookSecrets.ts';

/** The spec's limit; one more is refused with 403. */
export const MAX_SUBSCRIPTIONS_PER_SITE = 50;

export interface SubscriptionDeps {
  context: AppContext;
  http: OutboundHttp;
  secrets: SecretBox;
  cursors: FeedCursors;
  /** Whether the deployment has a NATS server (NATS_URL): nats subscriptions are refused without one. */
  natsConfigured: boolean;
  /** Called after a change that may give the delivery reactors work (create, resume, replay, dispatch). */
  wake(siteId: string): void;
}

export interface WebhookInput {
  url?: string;
  secret?: string;
}

export interface NatsInput {
  /** The subscription's own subject token; null or absent: the site's default subjects. */
  channel?: string | null;
}

export interface CreateSubscriptionInput {
  name: string;
  kind: SubscriptionKind;
  webhook?: WebhookInput;
  nats?: NatsInput;
  filters?: { collections?: string[] | null; operations?: string[] | null };
  /** Where it starts: `end` (default: what happens from now on), `start` (the oldest retained entry) or after a cursor. */
  from?: string;
}

/** Where a new subscription starts, before the feed's head is known. */
export type StartPoint = { at: 'end' } | { at: 'start' } | { at: 'cursor'; sequence: number; cursors: SiteFeedCursors };

function parseStartPoint(from: string | undefined, cursors: SiteFeedCursors): StartPoint {
  if (from === undefined || from === 'end') return { at: 'end' };
  if (from === 'start') return { at: 'start' };
  return { at: 'cursor', sequence: cursors.decode(from, ['body', 'from']), cursors };
}

/** The cursor a new subscription starts after: within retention (410 otherwise) and not past the feed's end (400). */
function startSequence(start: StartPoint, head: FeedHead): number {
  switch (start.at) {
    case 'end':
      return head.lastSeq;
    case 'start':
      return head.prunedThrough;
    case 'cursor':
      if (start.sequence < head.prunedThrough) throw start.cursors.expired(head.prunedThrough);
      if (start.sequence > head.lastSeq) throw new AppError('VALIDATION_FAILED', 'The cursor is ahead of the feed', { path: ['body', 'from'] });
      return start.sequence;
  }
}

export interface UpdateSubscriptionInput {
  name?: string;
  webhook?: WebhookInput;
  nats?: NatsInput;
  filters?: { collections?: string[] | null; operations?: string[] | null };
  action?: 'pause' | 'resume';
  state?: 'active' | 'paused';
}

export function subscriptionStream(siteId: string, id: string): string {
  return streamId(siteId, 'cdc-subscription', id);
}

async function checkWebhookUrl(http: OutboundHttp, url: string): Promise<void> {
  try {
    await http.checkUrl(url);
  } catch (error) {
    if (error instanceof OutboundRequestError) {
      throw new AppError('VALIDATION_FAILED', `Webhook URL refused: ${error.message}`, { path: ['body', 'webhook', 'url'] });
    }
    throw error;
  }
}

const NATS_CHANNEL_PATH = ['body', 'nats', 'channel'];

/** The channel as given (null: the default subjects), or 400 saying why it is not one subject token. */
function checkedNatsChannel(channel: string | null | undefined): string | null {
  if (channel === undefined || channel === null) return null;
  const problem = natsChannelProblem(channel);
  if (problem) throw new AppError('VALIDATION_FAILED', `nats.channel ${problem}`, { path: NATS_CHANNEL_PATH });
  return channel;
}

/** Two nats subscriptions of a site never publish to the same subjects: consumers would get both. */
async function assertNatsChannelFree(tx: Queryable, siteId: string, channel: string | null, exceptId: string | null): Promise<void> {
  const [other] = await tx.query<{ name: string }>(sql`
    SELECT name FROM cdc_subscriptions
     WHERE site_id = ${siteId} AND kind = 'nats' AND nats_channel IS NOT DISTINCT FROM ${channel} AND (${exceptId}::uuid IS NULL OR id <> ${exceptId}::uuid)`);
  if (other) {
    const subjects = channel === null ? "the site's default subjects" : `channel "${channel}"`;
    throw new AppError('CONFLICT', `The nats subscription "${other.name}" already publishes to ${subjects}; give this one a nats.channel of its own`, {
      path: NATS_CHANNEL_PATH,
    });
  }
}

async function lockSiteSubscriptions(tx: Queryable, siteId: string): Promise<void> {
  await tx.query(sql`SELECT pg_advisory_xact_lock(${advisoryKey(`cdc-subscriptions:${siteId}`)})`);
}

async function assertNameFree(tx: Queryable, siteId: string, name: string, exceptId: string | null): Promise<void> {
  const rows = await tx.query(sql`
    SELECT 1 FROM cdc_subscriptions WHERE site_id = ${siteId} AND name = ${name} AND (${exceptId}::uuid IS NULL OR id <> ${exceptId}::uuid)`);
  if (rows.length > 0) throw new AppError('CONFLICT', `A subscription named "${name}" already exists`, { path: ['body', 'name'] });
}

export async function createSubscription(deps: SubscriptionDeps, siteId: string, input: CreateSubscriptionInput, metadata: EventMetadata): Promise<string> {
  const { context } = deps;
  let url: string | null = null;
  let secretCiphertext: string | null = null;
  if (input.kind === 'webhook') {
    if (!input.webhook?.url) throw new AppError('VALIDATION_FAILED', 'A webhook subscription needs webhook.url', { path: ['body', 'webhook', 'url'] });
    if (!input.webhook.secret) {
      throw new AppError('VALIDATION_FAILED', 'A webhook subscription needs webhook.secret to sign its deliveries', { path: ['body', 'webhook', 'secret'] });
    }
    await checkWebhookUrl(deps.http, input.webhook.url);
    url = input.webhook.url;
    secretCiphertext = deps.secrets.seal(input.webhook.secret);
  } else if (input.webhook !== undefined) {
    throw new AppError('VALIDATION_FAILED', 'Only webhook subscriptions take a webhook', { path: ['body', 'webhook'] });
  }
  let natsChannel: string | null = null;
  if (input.kind === 'nats') {
    if (!deps.natsConfigured) {
      throw new AppError('VALIDATION_FAILED', 'This deployment has no NATS server (NATS_URL is not set): a nats subscription cannot be created', {
        path: ['body', 'kind'],
        extensions: { dependency: 'nats' },
      });
    }
    natsChannel = checkedNatsChannel(input.nats?.channel);
  } else if (input.nats !== undefined) {
    throw new AppError('VALIDATION_FAILED', 'Only nats subscriptions take nats', { path: ['body', 'nats'] });
  }
  const cursors = deps.cursors.forSite(siteId);
  const start = parseStartPoint(input.from, cursors);
  const subscriptionId = randomUUID();
  const definition = {
    name: input.name,
    kind: input.kind,
    url,
    secretCiphertext,
    collections: input.filters?.collections ?? null,
    operations: input.filters?.operations ?? null,
    ...(input.kind === 'nats' ? { natsChannel } : {}),
  };
  await inSiteTransaction(context, siteId, (tx) => createSubscriptionIn(context, tx, siteId, { subscriptionId, ...definition }, start, metadata));
  deps.wake(siteId);
  return subscriptionId;
}

/**
 * Creates a subscription inside the caller's transaction (a config manifest creates webhooks with
 * its schema changes): the per-site limit and name uniqueness under the site's lock, the start cursor.
 */
export async function createSubscriptionIn(
  context: AppContext,
  tx: Queryable,
  siteId: string,
  definition: { subscriptionId: string } & SubscriptionDefinition,
  start: StartPoint,
  metadata: EventMetadata,
): Promise<void> {
  await lockSiteSubscriptions(tx, siteId);
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM cdc_subscriptions WHERE site_id = ${siteId}`);
  if ((count?.total ?? 0) >= MAX_SUBSCRIPTIONS_PER_SITE) {
    throw new AppError('PERMISSION_DENIED', `A site has at most ${MAX_SUBSCRIPTIONS_PER_SITE} change-feed subscriptions`, {
      extensions: { limit: MAX_SUBSCRIPTIONS_PER_SITE },
    });
  }
  await assertNameFree(tx, siteId, definition.name, null);
  if (definition.kind === 'nats') await assertNatsChannelFree(tx, siteId, definition.natsChannel ?? null, null);
  // By default a new subscription starts at the feed's current end: it receives what happens from now on.
  const cursorSeq = startSequence(start, await readFeedHead(tx, siteId));
  await handleCommandIn(tx, context.projections, {
    siteId,
    streamId: subscriptionStream(siteId, definition.subscriptionId),
    decider: subscriptionDecider,
    command: { type: 'create', ...definition, cursorSeq },
    metadata,
  });
}

export async function updateSubscription(
  deps: SubscriptionDeps,
  siteId: string,
  subscriptionId: string,
  input: UpdateSubscriptionInput,
  metadata: EventMetadata,
): Promise<void> {
  const { context } = deps;
  if (input.action && input.state && (input.action === 'pause') !== (input.state === 'paused')) {
    throw new AppError('VALIDATION_FAILED', 'action and state disagree; send one of them', { path: ['body', 'state'] });
  }
  const move = input.action ?? (input.state === 'paused' ? 'pause' : input.state === 'active' ? 'resume' : null);
  const changes: SubscriptionChanges = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.filters?.collections !== undefined) changes.collections = input.filters.collections;
  if (input.filters?.operations !== undefined) changes.operations = input.filters.operations;
  if (input.webhook?.url !== undefined) {
    await checkWebhookUrl(deps.http, input.webhook.url);
    changes.url = input.webhook.url;
  }
  if (input.webhook?.secret !== undefined) changes.secretCiphertext = deps.secrets.seal(input.webhook.secret);
  if (input.nats?.channel !== undefined) changes.natsChannel = checkedNatsChannel(input.nats.channel);

  await inSiteTransaction(context, siteId, async (tx) => {
    await lockSiteSubscriptions(tx, siteId);
    const stream = subscriptionStream(siteId, subscriptionId);
    const run = (command: SubscriptionCommand | ((state: Parameters<typeof subscriptionDecider.decide>[1]) => SubscriptionCommand)) =>
      handleCommandIn(tx, context.projections, { siteId, streamId: stream, decider: subscriptionDecider, command, metadata });
    if (Object.keys(changes).length > 0) {
      if (changes.name !== undefined) await assertNameFree(tx, siteId, changes.name, subscriptionId);
      await run((state) => {
        if (state.exists && !state.deleted && state.kind !== 'webhook' && input.webhook !== undefined) {
          throw new AppError('VALIDATION_FAILED', 'Only webhook subscriptions take a webhook', { path: ['body', 'webhook'] });
        }
        if (state.exists && !state.deleted && state.kind !== 'nats' && input.nats !== undefined) {
          throw new AppError('VALIDATION_FAILED', 'Only nats subscriptions take nats', { path: ['body', 'nats'] });
        }
        return { type: 'update', changes };
      });
      // After the update (its kind checked), before the commit: the channel's other holders, under the site's lock.
      if (changes.natsChannel !== undefined) await assertNatsChannelFree(tx, siteId, changes.natsChannel, subscriptionId);
    }
    if (move) await run({ type: move });
    if (Object.keys(changes).length === 0 && !move) await run({ type: 'update', changes: {} });
  });
  if (move === 'resume') deps.wake(siteId);
}

export async function deleteSubscription(context: AppContext, siteId: string, subscriptionId: string, metadata: EventMetadata): Promise<void> {
  await inSiteTransaction(context, siteId, (tx) => deleteSubscriptionIn(context, tx, siteId, subscriptionId, metadata));
}

/** Deletes a subscription inside the caller's transaction, with the delivery reactors' rows of it. */
export async function deleteSubscriptionIn(context: AppContext, tx: Queryable, siteId: string, subscriptionId: string, metadata: EventMetadata): Promise<void> {
  await handleCommandIn(tx, context.projections, {
    siteId,
    streamId: subscriptionStream(siteId, subscriptionId),
    decider: subscriptionDecider,
    command: { type: 'delete' },
    metadata,
  });
  // The reactor's own rows go with it; the attempts are history of a subscription that is gone.
  await tx.query(sql`DELETE FROM cdc_webhook_state WHERE site_id = ${siteId} AND subscription_id = ${subscriptionId}::uuid`);
  await tx.query(sql`DELETE FROM cdc_sink_state WHERE site_id = ${siteId} AND subscription_id = ${subscriptionId}::uuid`);
  await tx.query(sql`DELETE FROM cdc_deliveries WHERE site_id = ${siteId} AND subscription_id = ${subscriptionId}::uuid`);
}

export async function acknowledgeSubscription(
  deps: SubscriptionDeps,
  siteId: string,
  subscriptionId: string,
  cursor: string,
  metadata: EventMetadata,
): Promise<void> {
  const sequence = deps.cursors.forSite(siteId).decode(cursor, ['body', 'cursor']);
  await inSiteTransaction(deps.context, siteId, async (tx) => {
    const head = await readFeedHead(tx, siteId);
    if (sequence > head.lastSeq) throw new AppError('VALIDATION_FAILED', 'The cursor is ahead of the feed', { path: ['body', 'cursor'] });
    await handleCommandIn(tx, deps.context.projections, {
      siteId,
      streamId: subscriptionStream(siteId, subscriptionId),
      decider: subscriptionDecider,
      command: { type: 'acknowledge', cursorSeq: sequence },
      metadata,
    });
  });
}

/** Rewinds (or moves) a subscription to a cursor, or to the last entry that occurred at or before a time. */
export async function replaySubscription(
  deps: SubscriptionDeps,
  siteId: string,
  subscriptionId: string,
  target: { cursor: string } | { occurredAfter: Date },
  metadata: EventMetadata,
): Promise<void> {
  const cursors = deps.cursors.forSite(siteId);
  await inSiteTransaction(deps.context, siteId, async (tx) => {
    const head = await readFeedHead(tx, siteId);
    let sequence: number;
    if ('cursor' in target) {
      sequence = cursors.decode(target.cursor, ['body', 'cursor']);
      if (sequence < head.prunedThrough) throw cursors.expired(head.prunedThrough);
      if (sequence > head.lastSeq) throw new AppError('VALIDATION_FAILED', 'The cursor is ahead of the feed', { path: ['body', 'cursor'] });
    } else {
      const [row] = await tx.query<{ seq: number | null }>(sql`
        SELECT max(seq) AS seq FROM cdc_feed WHERE site_id = ${siteId} AND occurred_at <= ${target.occurredAfter}`);
      // Nothing retained at or before that time: if entries were pruned, some after it may be gone.
      if (row?.seq == null && head.prunedThrough > 0) throw cursors.expired(head.prunedThrough);
      sequence = row?.seq ?? head.prunedThrough;
    }
    await handleCommandIn(tx, deps.context.projections, {
      siteId,
      streamId: subscriptionStream(siteId, subscriptionId),
      decider: subscriptionDecider,
      command: { type: 'replay', cursorSeq: sequence },
      metadata,
    });
  });
  deps.wake(siteId);
}

export async function dispatchSubscription(deps: SubscriptionDeps, siteId: string, subscriptionId: string, metadata: EventMetadata): Promise<void> {
  await inSiteTransaction(deps.context, siteId, (tx) =>
    handleCommandIn(tx, deps.context.projections, {
      siteId,
      streamId: subscriptionStream(siteId, subscriptionId),
      decider: subscriptionDecider,
      command: { type: 'dispatch' },
      metadata,
    }),
  );
  deps.wake(siteId);
}
