// The webhook reactor: delivers change-feed entries to webhook subscriptions, one subscription at a
// time in feed order, through the job queue (one job per subscription key). Each POST is signed;
// every attempt is recorded; the subscription's delivered cursor advances in the same transaction
// that records the successful attempt, so a restart never re-sends an acknowledged delivery (the
// one in flight during a crash is sent again with the same X-Svc-Delivery id).
// Failing subscriptions back off exponentially with jitter and die after SVC_WEBHOOK_MAX_ATTEMPTS
// consecutive failures; one whose next entry was pruned by retention goes stale.
// A subscription delivers what its creator may read, evaluated at each batch (subscriptionReader.ts):
// entries the creator may not see are skipped (the cursor moves past them), the others carry only
// what it may read, and pii/phi values are logged as the creator's reads before they are sent.
import { createHash } from 'node:crypto';
import { isExhausted, retryDelayMs, type RetryPolicy } from '../../../domain/changeFeed/retryPolicy.ts';
import { subscriptionDecider, type SubscriptionCommand } from '../../../domain/changeFeed/subscription.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { OutboundRequestError, type OutboundHttp } from '../../../infra/http/outboundHttp.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { join, sql } from '../../../infra/postgres/sql.ts';
import type { JobOutcome, JobQueue } from '../../../infra/queue/jobQueue.ts';
import type { FeedCursors } from './feedCursors.ts';
import type { FeedWatcher } from './feedWatcher.ts';
import { startDueSubscriptionWaker } from './dueSubscriptions.ts';
import type { SubscriptionRow } from './subscriptionQueries.ts';
import { readSubscriptionBatch, type BatchEntry } from './subscriptionBatch.ts';
import { subscriptionReader, type SubscriptionReader } from './subscriptionReader.ts';
import type { SecretBox } from './webhookSecrets.ts';
import { logSensitiveReads } from '../items/sensitiveReads.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { DELIVERY_HEADER, SIGNATURE_HEADER, signatureHeader } from './webhookSignature.ts';

export const WEBHOOK_QUEUE = 'cdc-webhooks';
/** Entries read per transaction; a pause or delete takes effect at the next batch. */
const BATCH_SIZE = 25;
/** Successful attempts are recorded (with the cursor) at least this often, and at the end of each batch. */
const RECORD_EVERY_MS = 100;
/** One job run works at most this long, then hands the key back to the queue. */
const RUN_BUDGET_MS = 20_000;
/** How often a subscription whose creator can no longer sign in looks again (its entries wait, within retention). */
const CREATOR_RECHECK_MS = 60_000;

export interface WebhookReactorOptions {
  context: AppContext;
  queue: JobQueue;
  http: OutboundHttp;
  secrets: SecretBox;
  cursors: FeedCursors;
  watcher: FeedWatcher;
  policy: RetryPolicy;
  timeoutMs: number;
  sweepMs: number;
  concurrency: number;
}

export interface WebhookReactor {
  /** Looks for due subscriptions of a site (or of every site) and queues them. */
  wake(siteId: string | null): void;
  stop(): Promise<void>;
}

interface JobPayload {
  siteId: string;
  subscriptionId: string;
}

interface WebhookStateRow {
  generation: number;
  delivered_seq: number;
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
  | { kind: 'deliver'; subscription: SubscriptionRow; state: WebhookStateRow; entries: Delivery[]; secret: string; actor: EventMetadata['actor'] };

/** An entry to deliver, as the subscription's creator sees it. */
type Delivery = BatchEntry;

interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  attemptedAt: Date;
}

/** Stable per (subscription, sequence, replay generation): a retry keeps it, a replay gets a new one. */
export function deliveryIdOf(subscriptionId: string, sequence: number, generation: number): string {
  const hex = createHash('sha256').update(`${subscriptionId}:${sequence}:${generation}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export function startWebhookReactor(options: WebhookReactorOptions): WebhookReactor {
  const { context, queue, http, secrets, policy } = options;
  const { database, logger } = context;
  let stopping = false;
  const outcomes = { succeeded: 0, failed: 0, dead: 0 };

  async function plan(tx: Queryable, payload: JobPayload, reader: SubscriptionReader | null): Promise<Plan> {
    const { siteId, subscriptionId } = payload;
    const [subscription] = await tx.query<SubscriptionRow>(
      sql`SELECT * FROM cdc_subscriptions WHERE site_id = ${siteId} AND id = ${subscriptionId}::uuid`,
    );
    if (!reader || !subscription || subscription.kind !== 'webhook' || subscription.state !== 'active' || !subscription.url || !subscription.secret_ciphertext) {
      return { kind: 'idle' };
    }
    let [state] = await tx.query<WebhookStateRow>(sql`
      SELECT * FROM cdc_webhook_state WHERE site_id = ${siteId} AND subscription_id = ${subscriptionId}::uuid FOR UPDATE`);
    if (!state || state.generation !== subscription.replay_generation) {
      // First run, or a replay moved the cursor: start from the subscription's cursor, failures forgiven.
      [state] = await tx.query<WebhookStateRow>(sql`
        INSERT INTO cdc_webhook_state (site_id, subscription_id, generation, delivered_seq)
        VALUES (${siteId}, ${subscriptionId}::uuid, ${subscription.replay_generation}, ${subscription.cursor_seq})
        ON CONFLICT (site_id, subscription_id) DO UPDATE SET generation = excluded.generation, delivered_seq = excluded.delivered_seq,
               consecutive_failures = 0, next_attempt_at = NULL
        RETURNING *`);
    }
    const requested = subscription.dispatch_requested_at;
    if (requested && (!state!.dispatch_seen_at || requested > state!.dispatch_seen_at)) {
      // "Dispatch now": skip the current backoff once.
      [state] = await tx.query<WebhookStateRow>(sql`
        UPDATE cdc_webhook_state SET dispatch_seen_at = ${requested}, next_attempt_at = NULL
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
      // Nothing is sent, nothing is skipped: the entries wait for the creator (or go stale with retention).
      if (batch.pending) {
        await tx.query(sql`
          UPDATE cdc_webhook_state SET next_attempt_at = ${new Date(Date.now() + CREATOR_RECHECK_MS)}, last_error = ${batch.reason}
           WHERE site_id = ${siteId} AND subscription_id = ${subscriptionId}::uuid`);
        return { kind: 'wait', ms: CREATOR_RECHECK_MS };
      }
      return { kind: 'idle' };
    }
    const { entries, skipTo } = batch;
    if (entries.length === 0) {
      if (skipTo > current.delivered_seq) {
        await tx.query(sql`
          UPDATE cdc_webhook_state SET delivered_seq = ${skipTo}
           WHERE site_id = ${siteId} AND subscription_id = ${subscriptionId}::uuid AND delivered_seq < ${skipTo}`);
      }
      return batch.caughtUp ? { kind: 'idle' } : { kind: 'skipped' };
    }
    return { kind: 'deliver', subscription, state: current, entries, secret: secrets.open(subscription.secret_ciphertext), actor: batch.actor };
  }

  async function post(work: Extract<Plan, { kind: 'deliver' }>, entry: Delivery, attempt: number): Promise<AttemptResult> {
    const body = entry.envelope;
    const attemptedAt = new Date();
    const started = performance.now();
    try {
      const response = await http.send({
        url: work.subscription.url!,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [SIGNATURE_HEADER]: signatureHeader(work.secret, body, Math.floor(attemptedAt.getTime() / 1000)),
          [DELIVERY_HEADER]: deliveryIdOf(work.subscription.id, entry.seq, work.state.generation),
          'x-svc-event': entry.type,
          'x-svc-subscription': work.subscription.id,
          'x-svc-attempt': attempt,
        },
        body,
        timeoutMs: options.timeoutMs,
      });
      const ok = response.status >= 200 && response.status < 300;
      return { ok, statusCode: response.status, error: ok ? null : `HTTP ${response.status}`, durationMs: Math.round(performance.now() - started), attemptedAt };
    } catch (error) {
      const message = error instanceof OutboundRequestError ? `${error.code}: ${error.message}` : (error as Error).message;
      return { ok: false, statusCode: null, error: message.slice(0, 500), durationMs: Math.round(performance.now() - started), attemptedAt };
    }
  }

  interface Attempt {
    entry: Delivery;
    attempt: number;
    result: AttemptResult;
  }

  /**
   * Records attempts in one statement: their rows, and the state after them — the cursor advanced
   * to the last success (compare-and-set, so a replay meanwhile wins), and the backoff when the last
   * attempt failed. Returns false when the cursor moved under us.
   */
  async function record(tx: Queryable, payload: JobPayload, work: Extract<Plan, { kind: 'deliver' }>, attempts: Attempt[], retryInMs: number): Promise<boolean> {
    const { siteId, subscriptionId } = payload;
    const generation = work.state.generation;
    const rows = attempts.map(
      ({ entry, attempt, result }) => sql`(${siteId}, ${subscriptionId}::uuid, ${deliveryIdOf(subscriptionId, entry.seq, generation)}, ${entry.seq},
        ${entry.event_id}::uuid, ${entry.type}, ${attempt}, ${result.ok ? 'succeeded' : 'failed'}, ${result.statusCode}::int, ${result.error}, ${result.durationMs},
        ${result.attemptedAt}::timestamptz)`,
    );
    const successes = attempts.filter((attempt) => attempt.result.ok);
    const failed = attempts.at(-1)!.result.ok ? null : attempts.at(-1)!;
    const delivered = successes.at(-1)?.entry.seq ?? null;
    const lastAttemptAt = attempts.at(-1)!.result.attemptedAt;
    const updated = await tx.query(sql`
      WITH recorded AS (
        INSERT INTO cdc_deliveries (site_id, subscription_id, delivery_id, seq, event_id, event_type, attempt, outcome, status_code, error, duration_ms, attempted_at)
        VALUES ${join(rows)}
      )
      UPDATE cdc_webhook_state SET
             delivered_seq = coalesce(${delivered}::bigint, delivered_seq),
             consecutive_failures = ${failed ? failed.attempt : 0},
             next_attempt_at = ${failed ? new Date(Date.now() + retryInMs) : null}::timestamptz,
             last_attempt_at = ${lastAttemptAt},
             last_success_at = coalesce(${successes.at(-1)?.result.attemptedAt ?? null}::timestamptz, last_success_at),
             last_error = ${failed?.result.error ?? null}
       WHERE site_id = ${siteId} AND subscription_id = ${subscriptionId}::uuid AND generation = ${generation}
         AND (${delivered}::bigint IS NULL OR delivered_seq < ${successes[0]?.entry.seq ?? 0})
      RETURNING 1`);
    return updated.length > 0;
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

  async function deliverPending(payload: JobPayload): Promise<JobOutcome | void> {
    const deadline = Date.now() + RUN_BUDGET_MS;
    for (;;) {
      if (stopping || Date.now() > deadline) return { retryInMs: 0 };
      // The creator's access is read before the plan's transaction, which holds the subscription's row lock.
      const reader = await subscriptionReader(context, payload.siteId, payload.subscriptionId);
      const work = await database.withSite(payload.siteId, (tx) => plan(tx, payload, reader));
      if (work.kind === 'idle') return;
      if (work.kind === 'skipped') continue;
      if (work.kind === 'wait') return { retryInMs: work.ms };
      if (work.kind === 'stale') {
        await transition(payload, { type: 'markStale', reason: 'The next entries were removed by retention before they were delivered' });
        return;
      }
      // pii/phi values are logged as the creator's reads before they leave, once per batch (a batch
      // cut short by a failure is logged again when it is sent again).
      const sensitive = work.entries.flatMap((entry) => (entry.sensitive ? [entry.sensitive] : []));
      if (sensitive.length > 0) {
        await logSensitiveReads(context, payload.siteId, sensitive, { actor: work.actor, correlationId: payload.subscriptionId });
      }
      // Successes are recorded a few at a time (the cursor with them); a failure is recorded at once.
      const unrecorded: Attempt[] = [];
      let firstUnrecordedAt = 0;
      const flush = (retryInMs = 0) => database.withSite(payload.siteId, (tx) => record(tx, payload, work, unrecorded.splice(0), retryInMs));
      let attempt = work.state.consecutive_failures + 1;
      let moved = false;
      for (const entry of work.entries) {
        const result = await post(work, entry, attempt);
        outcomes[result.ok ? 'succeeded' : 'failed'] += 1;
        if (unrecorded.length === 0) firstUnrecordedAt = Date.now();
        unrecorded.push({ entry, attempt, result });
        if (!result.ok) {
          const retryInMs = retryDelayMs(attempt, policy, Math.random());
          if (!(await flush(retryInMs))) break; // replayed meanwhile: plan again
          if (isExhausted(attempt, policy)) {
            outcomes.dead += 1;
            await transition(payload, { type: 'markDead', reason: `${attempt} consecutive failed attempts; last: ${result.error}` });
            return;
          }
          return { retryInMs };
        }
        attempt = 1;
        if (stopping || Date.now() - firstUnrecordedAt >= RECORD_EVERY_MS) {
          moved = !(await flush());
          if (moved || stopping) break;
        }
      }
      if (unrecorded.length > 0) await flush();
      if (stopping) return { retryInMs: 0 };
    }
  }

  queue.process<JobPayload>(WEBHOOK_QUEUE, deliverPending, { concurrency: options.concurrency });
  const unreport = options.context.metrics.sample(
    'svc_webhook_deliveries_total',
    'Webhook delivery attempts on this instance by outcome (succeeded, failed; dead: a subscription that failed its last allowed attempt)',
    ['outcome'],
    () => Object.entries(outcomes).map(([outcome, value]) => ({ labels: { outcome }, value })),
    'counter',
  );

  const waker = startDueSubscriptionWaker({
    database,
    logger,
    queue,
    queueName: WEBHOOK_QUEUE,
    watcher: options.watcher,
    sweepMs: options.sweepMs,
    due: (siteId) => sql`SELECT * FROM svc_cdc_due_webhooks(${siteId})`,
    what: 'webhook reactor',
  });

  return {
    wake: waker.wake,
    async stop() {
      stopping = true;
      unreport();
      await waker.stop();
    },
  };
}
