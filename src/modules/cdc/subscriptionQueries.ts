// Reading subscriptions (with their lag and delivery state) and their delivery attempts.
import { isUuid } from '../../../domain/shared/uuid.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { SubscriptionKind } from '../../../domain/changeFeed/subscription.ts';
import type { SiteFeedCursors } from './feedCursors.ts';
import type { FeedSink } from './feedSink.ts';

/** Where the sinks publish, to show with their subscriptions. */
export type SinkDestinations = Pick<FeedSink, 'destination'>;

export interface SubscriptionRow {
  site_id: string;
  id: string;
  name: string;
  kind: SubscriptionKind;
  state: 'active' | 'paused' | 'dead' | 'stale';
  state_reason: string | null;
  url: string | null;
  secret_ciphertext: string | null;
  collections: string[] | null;
  operations: string[] | null;
  /** A nats subscription's own subject token; null: the site's default subjects. */
  nats_channel: string | null;
  cursor_seq: number;
  replay_generation: number;
  dispatch_requested_at: Date | null;
  version: number;
  created_at: Date;
  updated_at: Date;
  /** The actor that created it: a webhook delivers what this principal may read. */
  creator_kind: string | null;
  creator_id: string | null;
}

interface SubscriptionListRow extends SubscriptionRow {
  effective_seq: number;
  head_seq: number;
  next_occurred_at: Date | null;
  consecutive_failures: number | null;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_success_at: Date | null;
  last_error: string | null;
}

export interface SubscriptionView {
  id: string;
  name: string;
  kind: SubscriptionKind;
  state: 'active' | 'paused' | 'dead' | 'stale';
  stateReason: string | null;
  webhook: { url: string; hasSecret: boolean } | null;
  /** Where a nats subscription publishes: its channel, the stream and the subjects to consume (docs/change-feed.md). */
  nats: { channel: string | null; stream: string; subjects: string } | null;
  filters: { collections: string[] | null; operations: string[] | null };
  /** Everything up to this cursor is acknowledged (pull), delivered (webhook) or published and acknowledged by the broker (nats). */
  cursor: string;
  lag: { events: number; seconds: number };
  delivery: {
    consecutiveFailures: number;
    nextAttemptAt: string | null;
    lastAttemptAt: string | null;
    lastSuccessAt: string | null;
    lastError: string | null;
  } | null;
  /** Who created it: a webhook or a sink delivers what this principal may read (docs/change-feed.md). */
  createdBy: { kind: string; id: string | null } | null;
  createdAt: string;
  updatedAt: string;
}

function toView(row: SubscriptionListRow, now: Date, cursors: SiteFeedCursors, nats: SinkDestinations): SubscriptionView {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    state: row.state,
    stateReason: row.state_reason,
    webhook: row.kind === 'webhook' && row.url ? { url: row.url, hasSecret: row.secret_ciphertext !== null } : null,
    nats: row.kind === 'nats' ? { channel: row.nats_channel, ...nats.destination(row.site_id, row.nats_channel) } : null,
    filters: { collections: row.collections, operations: row.operations },
    cursor: cursors.encode(row.effective_seq),
    lag: {
      events: Math.max(0, row.head_seq - row.effective_seq),
      seconds: row.next_occurred_at ? Math.max(0, Math.round((now.getTime() - row.next_occurred_at.getTime()) / 1000)) : 0,
    },
    delivery:
      row.kind !== 'pull'
        ? {
            consecutiveFailures: row.consecutive_failures ?? 0,
            nextAttemptAt: row.next_attempt_at?.toISOString() ?? null,
            lastAttemptAt: row.last_attempt_at?.toISOString() ?? null,
            lastSuccessAt: row.last_success_at?.toISOString() ?? null,
            lastError: row.last_error,
          }
        : null,
    createdBy: row.creator_kind === null ? null : { kind: row.creator_kind, id: row.creator_id },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

async function selectSubscriptions(tx: Queryable, siteId: string, id: string | null): Promise<SubscriptionListRow[]> {
  return tx.query<SubscriptionListRow>(sql`
    WITH subscriptions AS (
      SELECT s.*, w.consecutive_failures, w.next_attempt_at, w.last_attempt_at, w.last_success_at, w.last_error,
             coalesce(f.last_seq, 0) AS head_seq,
             CASE WHEN s.kind <> 'pull' AND w.generation = s.replay_generation THEN w.delivered_seq ELSE s.cursor_seq END AS effective_seq
        FROM cdc_subscriptions s
        -- A delivering subscription's state: the webhook reactor's, or the sink reactor's.
        LEFT JOIN LATERAL (
          SELECT generation, delivered_seq, consecutive_failures, next_attempt_at, last_attempt_at, last_success_at, last_error
            FROM cdc_webhook_state WHERE s.kind = 'webhook' AND site_id = s.site_id AND subscription_id = s.id
          UNION ALL
          SELECT generation, delivered_seq, consecutive_failures, next_attempt_at, last_attempt_at, last_success_at, last_error
            FROM cdc_sink_state WHERE s.kind = 'nats' AND site_id = s.site_id AND subscription_id = s.id) w ON true
        LEFT JOIN cdc_feed_sites f ON f.site_id = s.site_id
       WHERE s.site_id = ${siteId} AND (${id}::uuid IS NULL OR s.id = ${id}::uuid))
    SELECT subscriptions.*, next_entry.occurred_at AS next_occurred_at
      FROM subscriptions
      LEFT JOIN LATERAL (
        SELECT occurred_at FROM cdc_feed e WHERE e.site_id = subscriptions.site_id AND e.seq > subscriptions.effective_seq
         ORDER BY e.seq LIMIT 1) next_entry ON true
     ORDER BY subscriptions.created_at, subscriptions.id`);
}

export async function listSubscriptions(tx: Queryable, siteId: string, now: Date, cursors: SiteFeedCursors, nats: SinkDestinations): Promise<SubscriptionView[]> {
  return (await selectSubscriptions(tx, siteId, null)).map((row) => toView(row, now, cursors, nats));
}

export async function findSubscription(
  tx: Queryable,
  siteId: string,
  id: string,
  now: Date,
  cursors: SiteFeedCursors,
  nats: SinkDestinations,
): Promise<SubscriptionView | null> {
  if (!isUuid(id)) return null;
  const [row] = await selectSubscriptions(tx, siteId, id);
  return row ? toView(row, now, cursors, nats) : null;
}

export interface DeliveryView {
  id: number;
  deliveryId: string;
  sequence: number;
  cursor: string;
  eventId: string;
  eventType: string;
  attempt: number;
  outcome: 'succeeded' | 'failed';
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  attemptedAt: string;
}

export async function listDeliveries(
  tx: Queryable,
  siteId: string,
  subscriptionId: string,
  page: { limit: number; page: number },
  cursors: SiteFeedCursors,
): Promise<{ deliveries: DeliveryView[]; total: number }> {
  const rows = await tx.query<{
    id: number; delivery_id: string; seq: number; event_id: string; event_type: string; attempt: number; outcome: 'succeeded' | 'failed';
    status_code: number | null; error: string | null; duration_ms: number; attempted_at: Date;
  }>(sql`
    SELECT * FROM cdc_deliveries WHERE site_id = ${siteId} AND subscription_id = ${subscriptionId}::uuid
     ORDER BY id DESC LIMIT ${page.limit} OFFSET ${(page.page - 1) * page.limit}`);
  const [count] = await tx.query<{ total: number }>(
    sql`SELECT count(*)::int AS total FROM cdc_deliveries WHERE site_id = ${siteId} AND subscription_id = ${subscriptionId}::uuid`,
  );
  return {
    total: count?.total ?? 0,
    deliveries: rows.map((row) => ({
      id: row.id,
      deliveryId: row.delivery_id,
      sequence: row.seq,
      cursor: cursors.encode(row.seq),
      eventId: row.event_id,
      eventType: row.event_type,
      attempt: row.attempt,
      outcome: row.outcome,
      statusCode: row.status_code,
      error: row.error,
      durationMs: row.duration_ms,
      attemptedAt: row.attempted_at.toISOString(),
    })),
  };
}
