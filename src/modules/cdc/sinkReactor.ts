// The sink reactor: publishes the entries of sink subscriptions (kind nats) to their broker through
// the sink port (feedSink.ts), one subscription at a time in feed order, through the job queue (one
// job per subscription key, as webhooks). A batch is read as the subscription's creator sees it
// (subscriptionBatch.ts), published with every message in flight at once, and the subscription's
// delivered cursor (cdc_sink_state.delivered_seq) moves past what the broker acknowledged, after the
// acknowledgements (compare-and-set, so a replay meanwhile wins), with the broker's position of the
// last of them. While a batch's acknowledgements are awaited the next batch is read (nothing written,
// nothing locked); it is published only once the batch before it is acknowledged and checkpointed,
// and only if the subscription did not change in between (its version, as the checkpoint's statement
// reads it: a pause, a replay, new filters or a dispatch throw the batch read ahead away and the round
// is planned afresh), so the order, the checkpoint and pause take effect as without it.
// A crash between the acknowledgements and the checkpoint leaves the batch in the broker without its
// checkpoint: the next process to take the subscription (and any round after a failed one) first reads
// back the message ids the broker holds past that position and skips them, and what it publishes again
// carries the same ids, which the broker drops within its duplicate window: each entry reaches a
// consumer once. A broker that cannot be reached is retried with a backoff; the
// subscription's lag grows and `delivery.lastError` says why; it never dies of it.
import { LRUCache } from 'lru-cache';
import { retryDelayMs, type RetryPolicy } from '../../../domain/changeFeed/retryPolicy.ts';
import { natsMessageIdOf } from '../../../domain/changeFeed/natsSubject.ts';
import { subscriptionDecider, type SubscriptionCommand } from '../../../domain/changeFeed/subscription.ts';
import { streamId } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { JobOutcome, JobQueue } from '../../../infra/queue/jobQueue.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { logSensitiveReads } from '../items/sensitiveReads.ts';
import type { FeedCursors } from './feedCursors.ts';
import type { FeedSink, SinkMessage } from './feedSink.ts';
import type { FeedWatcher } from './feedWatcher.ts';
import { startDueSubscriptionWaker } from './dueSubscriptions.ts';
import { readSubscriptionBatch, type BatchEntry } from './subscriptionBatch.ts';
import type { SubscriptionRow } from './subscriptionQueries.ts';
import { subscriptionReader, type SubscriptionReader } from './subscriptionReader.ts';

export const SINK_QUEUE = 'cdc-sinks';
/** Entries read, published and acknowledged per round: many in flight at once, one cursor move. */
const BATCH_SIZE = 1_000;
/** One job run works at most this long, then hands the key back to the queue. */
const RUN_BUDGET_MS = 20_000;
/** How often a subscription whose creator can no longer sign in looks again (its entries wait, within retention). */
const CREATOR_RECHECK_MS = 60_000;
/** A broker outage is retried from 1 s, doubling to 30 s: the subscription lags, it never dies of it. */
export const SINK_RETRY_POLICY: RetryPolicy = { baseMs: 1_000, maxMs: 30_000, maxAttempts: Number.POSITIVE_INFINITY };

export interface SinkReactorOptions {
  context: AppContext;
  queue: JobQueue;
  sink: FeedSink;
  cursors: FeedCursors;
  watcher: FeedWatcher;
  policy: RetryPolicy;
  sweepMs: number;
  concurrency: number;
}

export interface SinkReactor {
  /** Looks for due subscriptions of a site (or of every site) and queues them. */
  wake(siteId: string | null): void;
  stop(): Promise<void>;
}

interface JobPayload {
  siteId: string;
  subscriptionId: string;
}

interface SinkStateRow {
  generation: number;
  delivered_seq: number;
  broker_position: string | null;
  consecutive_failures: number;
  next_attempt_at: Date | null;
  dispatch_seen_at: Date | null;
}

type Plan =
  | { kind: 'idle' }
  | { kind: 'wait'; ms: number }
  | { kind: 'stale' }
  /** A batch held nothing the creator may read: the cursor moved past it; plan again. */
  | { kind: 'skipped' }
  | ({ kind: 'publish'; state: SinkStateRow } & Batch);

/** A batch to publish: its entries, the sequence the cursor moves to once they are acknowledged, and whom they are read as. */
interface Batch {
  subscription: SubscriptionRow;
  entries: BatchEntry[];
  through: number;
  actor: Extract<SubscriptionReader, { signedIn: true }>['actor'];
  /** The batch was cut at BATCH_SIZE: more entries may follow, worth reading the next batch ahead. */
  more: boolean;
}

/** The state row after a round was recorded, with the subscription's version as the same statement read it. */
interface RecordedState extends SinkStateRow {
  subscription_version: number | null;
}

export function startSinkReactor(options: SinkReactorOptions): SinkReactor {
  const { context, queue, sink, policy } = options;
  const { database, logger } = context;
  let stopping = false;
  /** The generation of each subscription whose broker contents this process has read back. */
  const readBack = new LRUCache<string, number>({ max: 10_000 });

  async function plan(tx: Queryable, payload: JobPayload, reader: SubscriptionReader | null): Promise<Plan> {
    const { siteId, subscriptionId } = payload;
    const [subscription] = await tx.query<SubscriptionRow>(
      sql`SELECT * FROM cdc_subscriptions WHERE site_id = ${siteId} AND id = ${subscriptionId}::uuid`,
    );
    if (!reader || !subscription || subscription.kind !== sink.kind || subscription.state !== 'active') return { kind: 'idle' };
    let [state] = await tx.query<SinkStateRow>(sql`
      SELECT * FROM cdc_sink_state WHERE site_id = ${siteId} AND subscription_id = ${subscriptionId}::uuid FOR UPDATE`);
    if (!state || state.generation !== subscription.replay_generation) {
      // First run, or a replay moved the cursor: start from the subscription's cursor, failures forgiven.
      [state] = await tx.query<SinkStateRow>(sql`
        INSERT INTO cdc_sink_state (site_id, subscription_id, generation, delivered_seq)
        VALUES (${siteId}, ${subscriptionId}::uuid, ${subscription.replay_generation}, ${subscription.cursor_seq})
        ON CONFLICT (site_id, subscription_id) DO UPDATE SET generation = excluded.generation, delivered_seq = excluded.delivered_seq,
               consecutive_failures = 0, next_attempt_at = NULL
        RETURNING *`);
    }
    const requested = subscription.dispatch_requested_at;
    if (requested && (!state!.dispatch_seen_at || requested > state!.dispatch_seen_at)) {
      // "Dispatch now": skip the current backoff once.
      [state] = await tx.query<SinkStateRow>(sql`
        UPDATE cdc_sink_state SET dispatch_seen_at = ${requested}, next_attempt_at = NULL
         WHERE site_id = ${siteId} AND subscription_id = ${subscriptionId}::uuid RETURNING *`);
    }
    const current = state!;
    if (current.next_attempt_at && current.next_attempt_at.getTime() > Date.now()) {
      return { kind: 'wait', ms: current.next_attempt_at.getTime() - Date.now() };
    }
    const batch = await readSubscriptionBatch(context, tx, {
      subscription, afterSeq: current.delivered_seq, reader, cursors: options.cursors.forSite(siteId), limit: BATCH_SIZE,
    });
    if (batch.kind === 'stale') return { kind: 'stale' };
    if (batch.kind === 'creatorAway') {
      // Nothing is published, nothing is skipped: the entries wait for the creator (or go stale with retention).
      if (!batch.pending) return { kind: 'idle' };
      await tx.query(sql`
        UPDATE cdc_sink_state SET next_attempt_at = ${new Date(Date.now() + CREATOR_RECHECK_MS)}, last_error = ${batch.reason}
         WHERE site_id = ${siteId} AND subscription_id = ${subscriptionId}::uuid`);
      return { kind: 'wait', ms: CREATOR_RECHECK_MS };
    }
    if (batch.entries.length === 0) {
      if (batch.skipTo > current.delivered_seq) {
        await tx.query(sql`
          UPDATE cdc_sink_state SET delivered_seq = ${batch.skipTo}
           WHERE site_id = ${siteId} AND subscription_id = ${subscriptionId}::uuid AND delivered_seq < ${batch.skipTo}`);
      }
      return batch.caughtUp ? { kind: 'idle' } : { kind: 'skipped' };
    }
    return { kind: 'publish', subscription, state: current, entries: batch.entries, through: batch.skipTo, actor: batch.actor, more: batch.full };
  }

  /**
   * The batch after `previous`, read while `previous` is being acknowledged: reads only (no lock on the
   * state row, no skip, no dispatch bookkeeping), so that anything but a batch of the same active
   * subscription and generation is left to a plan of its own (null). Never throws: a failed read
   * ahead is planned again the ordinary way.
   */
  async function readAhead(payload: JobPayload, previous: Extract<Plan, { kind: 'publish' }>): Promise<Batch | null> {
    const { siteId, subscriptionId } = payload;
    try {
      const reader = await subscriptionReader(context, siteId, subscriptionId);
      if (!reader?.signedIn) return null;
      return await database.withSiteReads(siteId, async (tx) => {
        const [subscription] = await tx.query<SubscriptionRow>(
          sql`SELECT * FROM cdc_subscriptions WHERE site_id = ${siteId} AND id = ${subscriptionId}::uuid`,
        );
        if (!subscription || subscription.kind !== sink.kind || subscription.state !== 'active' || subscription.replay_generation !== previous.state.generation) return null;
        const batch = await readSubscriptionBatch(context, tx, {
          subscription, afterSeq: previous.through, reader, cursors: options.cursors.forSite(siteId), limit: BATCH_SIZE,
        });
        if (batch.kind !== 'entries' || batch.entries.length === 0) return null;
        return { subscription, entries: batch.entries, through: batch.skipTo, actor: batch.actor, more: batch.full };
      });
    } catch (error) {
      logger.debug({ err: error, subscriptionId }, 'sink reactor: reading the next batch ahead failed; it is planned again');
      return null;
    }
  }

  /**
   * Records a round: the cursor moved to `deliveredSeq` (null: not moved) if it is still where the
   * round started from in the same generation, and the failure (backoff) or success. The state as
   * recorded, with the subscription's version read in the same statement; null when a replay moved
   * it meanwhile.
   */
  async function record(
    payload: JobPayload,
    work: Extract<Plan, { kind: 'publish' }>,
    deliveredSeq: number | null,
    position: number | null,
    failure: { error: string; retryInMs: number } | null,
  ): Promise<RecordedState | null> {
    const { siteId, subscriptionId } = payload;
    const now = new Date();
    const [updated] = await database.withSite(siteId, (tx) =>
      tx.query<RecordedState>(sql`
        UPDATE cdc_sink_state SET
               delivered_seq = coalesce(${deliveredSeq}::bigint, delivered_seq),
               broker_position = greatest(${position}::bigint, broker_position),
               consecutive_failures = ${failure ? work.state.consecutive_failures + 1 : 0},
               next_attempt_at = ${failure ? new Date(now.getTime() + failure.retryInMs) : null}::timestamptz,
               last_attempt_at = ${now},
               last_success_at = CASE WHEN ${deliveredSeq}::bigint IS NOT NULL THEN ${now}::timestamptz ELSE last_success_at END,
               last_error = ${failure?.error ?? null}
         WHERE site_id = ${siteId} AND subscription_id = ${subscriptionId}::uuid AND generation = ${work.state.generation}
           AND delivered_seq = ${work.state.delivered_seq}
        RETURNING *, (SELECT s.version FROM cdc_subscriptions s WHERE s.site_id = ${siteId} AND s.id = ${subscriptionId}::uuid) AS subscription_version`),
    );
    return updated ?? null;
  }

  async function transition(payload: JobPayload, command: SubscriptionCommand): Promise<void> {
    await handleCommand(context, {
      siteId: payload.siteId,
      streamId: streamId(payload.siteId, 'cdc-subscription', payload.subscriptionId),
      decider: subscriptionDecider,
      command,
      metadata: { actor: { kind: 'system', id: null } },
    });
  }

  async function publishPending(payload: JobPayload): Promise<JobOutcome | void> {
    const deadline = Date.now() + RUN_BUDGET_MS;
    const cursors = options.cursors.forSite(payload.siteId);
    /** The round read ahead during the last one's acknowledgements, its starting point recorded. */
    let next: Extract<Plan, { kind: 'publish' }> | null = null;
    for (;;) {
      if (stopping || Date.now() > deadline) return { retryInMs: 0 };
      let work: Plan;
      if (next) {
        work = next;
        next = null;
      } else {
        // The creator's access is read before the plan's transaction, which holds the state row's lock.
        const reader = await subscriptionReader(context, payload.siteId, payload.subscriptionId);
        work = await database.withSite(payload.siteId, (tx) => plan(tx, payload, reader));
      }
      if (work.kind === 'idle') return;
      if (work.kind === 'skipped') continue;
      if (work.kind === 'wait') return { retryInMs: work.ms };
      if (work.kind === 'stale') {
        await transition(payload, { type: 'markStale', reason: 'The next entries were removed by retention before they were published' });
        return;
      }
      // pii/phi values are logged as the creator's reads before they leave, once per round (a round
      // cut short by the broker is logged again when it is published again).
      const sensitive = work.entries.flatMap((entry) => (entry.sensitive ? [entry.sensitive] : []));
      if (sensitive.length > 0) {
        await logSensitiveReads(context, payload.siteId, sensitive, { actor: work.actor, correlationId: payload.subscriptionId });
      }
      const channel = work.subscription.nats_channel;
      const generation = work.state.generation;
      const messages = work.entries.map((entry): SinkMessage => {
        const cursor = cursors.encode(entry.seq);
        return {
          siteId: payload.siteId,
          subscriptionId: payload.subscriptionId,
          channel,
          collection: entry.collection,
          type: entry.type,
          cursor,
          id: natsMessageIdOf(payload.subscriptionId, generation, cursor),
          body: entry.envelope,
        };
      });
      // What an earlier process (or a failed round) left in the broker past the checkpoint is not
      // published again: read back once per subscription and generation in this process, and after a failure.
      let stored = new Set<string>();
      if (work.state.broker_position !== null && (readBack.get(payload.subscriptionId) !== generation || work.state.consecutive_failures > 0)) {
        try {
          stored = await sink.storedAfter(payload.siteId, channel, Number(work.state.broker_position));
        } catch (error) {
          const retryInMs = retryDelayMs(work.state.consecutive_failures + 1, policy, Math.random());
          const message = `NATS unreachable: ${(error as Error).message}`.slice(0, 500);
          if (!(await record(payload, work, null, null, { error: message, retryInMs }))) continue;
          return { retryInMs };
        }
      }
      readBack.set(payload.subscriptionId, generation);
      const unpublished = stored.size === 0 ? messages : messages.filter((message) => !stored.has(message.id));
      const publishing = sink.publish(unpublished);
      // The next batch is read while the broker acknowledges this one (pipelining): it is published
      // after this one's checkpoint, so never before this batch is acknowledged.
      const ahead: Promise<Batch | null> | null = work.more && !stopping ? readAhead(payload, work) : null;
      const result = await publishing;
      // The entries done, from the first: already in the broker, or acknowledged now. All of them:
      // the cursor moves past the whole batch (entries the creator may not read included).
      let done = result.acknowledged;
      if (stored.size > 0) {
        const acknowledged = new Set(unpublished.slice(0, result.acknowledged).map((message) => message.id));
        done = 0;
        while (done < messages.length && (stored.has(messages[done]!.id) || acknowledged.has(messages[done]!.id))) done += 1;
      }
      const deliveredSeq = done === messages.length ? work.through : done > 0 ? work.entries[done - 1]!.seq : null;
      if (result.error === null) {
        // Recorded, or replayed meanwhile (the record refused): either way, plan the next round; the
        // batch read ahead is that round when the subscription is as it was when it was read.
        const recorded = await record(payload, work, deliveredSeq, result.position, null);
        const following: Batch | null = ahead && (await ahead);
        if (
          recorded && following &&
          recorded.delivered_seq === work.through && recorded.generation === following.subscription.replay_generation &&
          recorded.subscription_version === following.subscription.version
        ) {
          const { subscription_version: _version, ...state } = recorded;
          next = { kind: 'publish', state, ...following };
        }
        continue;
      }
      await ahead; // never rejects: let it finish before the next round reads again
      const retryInMs = retryDelayMs(work.state.consecutive_failures + 1, policy, Math.random());
      if (!(await record(payload, work, deliveredSeq, result.position, { error: result.error, retryInMs }))) continue; // replayed meanwhile: plan again
      return { retryInMs };
    }
  }

  queue.process<JobPayload>(SINK_QUEUE, publishPending, { concurrency: options.concurrency });

  const waker = startDueSubscriptionWaker({
    database,
    logger,
    queue,
    queueName: SINK_QUEUE,
    watcher: options.watcher,
    sweepMs: options.sweepMs,
    due: (siteId) => sql`SELECT * FROM svc_cdc_due_sinks(${sink.kind}, ${siteId})`,
    what: 'sink reactor',
  });

  return {
    wake: waker.wake,
    async stop() {
      stopping = true;
      await waker.stop();
    },
  };
}
