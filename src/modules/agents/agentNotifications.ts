// The web push side of notifications (docs/agent-goals.md "Notifications"): a reactor that follows the
// log (the gap-safe read) from its own cursor, under one leader lock across instances, and sends each
// `notification.published` event (a pending approval, a staged or executed agent action, a kill-switch
// freeze, an incident, and every other notification of the site) as a web push to the site's push
// subscriptions through the push area's sender. Idempotent by event id: a delivery is claimed in
// agent_push_deliveries before it is sent, so a batch read twice (a crash before the cursor moved)
// pushes nothing twice. Endpoints the push service calls gone are forgotten, as /push/test does.
import { notificationFrameOf } from '../../../domain/changeFeed/notification.ts';
import { pushSubscriptionDecider } from '../../../domain/changeFeed/pushSubscription.ts';
import { streamId, type EventMetadata, type StoredEvent } from '../../../domain/shared/events.ts';
import { cursorOf, readAll, readLogHead, type GlobalCursor } from '../../../infra/eventstore/eventStore.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { WebPushSender } from '../../../infra/webpush/webPushSender.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { createLeaderSession } from '../../runtime/leaderElection.ts';

const LEADER_LOCK = 'agent-push';
const BATCH = 500;
/** How long a delivery's claim is kept: it only guards a batch read again before the cursor moved past it. */
const CLAIM_RETENTION = '1 day';
const PUSH_METADATA: EventMetadata = { actor: { kind: 'system', id: 'agent-push' } };

export interface NotificationPush {
  stop(): Promise<void>;
}

interface SubscriptionRow {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** Sends one notification event to every push subscription of its site, once (claimed by event id). */
export async function pushNotification(context: AppContext, sender: WebPushSender, event: StoredEvent<'notification.published'>): Promise<{ sent: number; failed: number } | null> {
  const [claimed] = await context.database.query<{ event_id: string }>(
    sql`INSERT INTO agent_push_deliveries (event_id) VALUES (${event.eventId}::uuid) ON CONFLICT DO NOTHING RETURNING event_id`,
  );
  if (!claimed) return null;
  const { siteId } = event;
  const subscriptions = await context.database.withSiteReads(siteId, (tx) =>
    tx.query<SubscriptionRow>(sql`SELECT id, endpoint, p256dh, auth FROM push_subscriptions WHERE site_id = ${siteId} ORDER BY id`),
  );
  const payload = notificationFrameOf(event).notification;
  const urgency = payload.severity === 'critical' || payload.severity === 'error' ? 'high' : 'normal';
  const result = { sent: 0, failed: 0 };
  await Promise.all(
    subscriptions.map(async (subscription) => {
      try {
        const outcome = await sender.send({ endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } }, payload, { urgency });
        if (outcome.ok) result.sent += 1;
        else result.failed += 1;
        if (outcome.gone) {
          await handleCommand(context, {
            siteId,
            streamId: streamId(siteId, 'push-subscription', subscription.id),
            decider: pushSubscriptionDecider,
            command: { type: 'removeGone' },
            metadata: PUSH_METADATA,
          });
        }
      } catch (error) {
        context.logger.warn({ err: error, siteId, eventId: event.eventId }, 'web push of a notification failed');
        result.failed += 1;
      }
    }),
  );
  await context.database.query(sql`UPDATE agent_push_deliveries SET sent = ${result.sent}, failed = ${result.failed} WHERE event_id = ${event.eventId}::uuid`);
  return result;
}

export function followNotificationsToPush(options: { context: AppContext; sender: WebPushSender; pollMs: number }): NotificationPush {
  const { context, sender } = options;
  const leadership = createLeaderSession({ database: context.database });
  const stopping = new AbortController();

  async function readCursor(): Promise<GlobalCursor> {
    const [row] = await context.database.query<{ tx_id: string; position: number }>(sql`SELECT tx_id::text, position FROM agent_push_cursor`);
    if (row) return { txId: row.tx_id, position: Number(row.position) };
    // First start: notifications from now on are pushed, not the whole history.
    const head = await readLogHead(context.database);
    await context.database.query(sql`INSERT INTO agent_push_cursor (tx_id, position) VALUES (${head.txId}::xid8, ${head.position}) ON CONFLICT DO NOTHING`);
    return head;
  }

  /** One batch: its notifications pushed, then the cursor moved past it. Answers how many events it read. */
  async function step(): Promise<number> {
    const events = await readAll(context.database, await readCursor(), BATCH);
    if (events.length === 0) return 0;
    for (const event of events) {
      if (event.type === 'notification.published') await pushNotification(context, sender, event);
    }
    const last = cursorOf(events.at(-1)!);
    await context.database.query(sql`UPDATE agent_push_cursor SET tx_id = ${last.txId}::xid8, position = ${last.position}`);
    // Claims of events the cursor passed long ago guard nothing: the table stays bounded.
    await context.database.query(sql`DELETE FROM agent_push_deliveries WHERE delivered_at < now() - ${CLAIM_RETENTION}::interval`);
    return events.length;
  }

  const loop = (async () => {
    while (!stopping.signal.aborted) {
      try {
        if ((await leadership.lead(LEADER_LOCK)) && (await step()) === BATCH) continue;
      } catch (error) {
        context.logger.error({ err: error }, 'notification push reactor step failed; retrying');
      }
      await context.notifier.next('svc_events', options.pollMs, stopping.signal).catch(() => undefined);
    }
  })();

  return {
    async stop() {
      stopping.abort();
      await loop;
      await leadership.resign();
    },
  };
}
