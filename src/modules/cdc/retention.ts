// Change-feed retention (SVC_CDC_RETENTION): entries older than the horizon are removed, the site's
// pruned_through moves so older cursors answer 410, subscriptions whose cursor fell behind it go
// stale. Delivery attempts and expired realtime tickets past the same horizon go too.
import { subscriptionDecider } from '../../../domain/changeFeed/subscription.ts';
import { streamId } from '../../../domain/shared/events.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { readFeedHead } from './feedQueries.ts';

/** Used or expired realtime tickets are kept this long (for investigation), then removed. */
const TICKET_GRACE_MS = 3_600_000;
/** At most this many entries per site per run, so one run stays a short transaction. */
const MAX_PRUNED_PER_RUN = 50_000;

export interface PruneResult {
  pruned: number;
  prunedThrough: number;
  staleSubscriptions: string[];
}

export async function pruneSiteChangeFeed(context: Pick<AppContext, 'database' | 'projections' | 'config'>, siteId: string, now: Date): Promise<PruneResult> {
  const cutoff = new Date(now.getTime() - context.config.SVC_CDC_RETENTION);
  const { pruned, prunedThrough, behind } = await context.database.withSite(siteId, async (tx) => {
    const head = await readFeedHead(tx, siteId);
    const [oldest] = await tx.query<{ through: number | null }>(
      sql`SELECT max(seq) AS through FROM cdc_feed WHERE site_id = ${siteId} AND occurred_at < ${cutoff}`,
    );
    let removed = 0;
    let through = head.prunedThrough;
    if (oldest?.through != null && oldest.through > head.prunedThrough) {
      through = Math.min(oldest.through, head.prunedThrough + MAX_PRUNED_PER_RUN);
      const deleted = await tx.query(sql`DELETE FROM cdc_feed WHERE site_id = ${siteId} AND seq <= ${through} RETURNING seq`);
      removed = deleted.length;
      await tx.query(sql`UPDATE cdc_feed_sites SET pruned_through = ${through} WHERE site_id = ${siteId}`);
    }
    await tx.query(sql`DELETE FROM cdc_deliveries WHERE site_id = ${siteId} AND attempted_at < ${cutoff}`);
    await tx.query(sql`DELETE FROM realtime_tickets WHERE site_id = ${siteId} AND expires_at < ${new Date(now.getTime() - TICKET_GRACE_MS)}`);
    const lagging = await tx.query<{ id: string }>(sql`
      SELECT s.id FROM cdc_subscriptions s
        LEFT JOIN cdc_webhook_state w ON s.kind = 'webhook' AND w.site_id = s.site_id AND w.subscription_id = s.id
        LEFT JOIN cdc_sink_state k ON s.kind = 'nats' AND k.site_id = s.site_id AND k.subscription_id = s.id
       WHERE s.site_id = ${siteId} AND s.state IN ('active', 'paused')
         AND (CASE WHEN w.generation = s.replay_generation THEN w.delivered_seq
                   WHEN k.generation = s.replay_generation THEN k.delivered_seq
                   ELSE s.cursor_seq END) < ${through}`);
    return { pruned: removed, prunedThrough: through, behind: lagging.map((row) => row.id) };
  });
  for (const subscriptionId of behind) {
    await handleCommand(context, {
      siteId,
      streamId: streamId(siteId, 'cdc-subscription', subscriptionId),
      decider: subscriptionDecider,
      command: { type: 'markStale', reason: 'Its cursor fell behind the change-feed retention' },
      metadata: { actor: { kind: 'system', id: null } },
    });
  }
  return { pruned, prunedThrough, staleSubscriptions: behind };
}

/** The scheduler task: every site with something past retention, in turn; stops early on `signal`. */
export async function pruneChangeFeeds(context: AppContext, now: Date, signal?: AbortSignal): Promise<void> {
  const cutoff = new Date(now.getTime() - context.config.SVC_CDC_RETENTION);
  const sites = await context.database.query<{ site_id: string }>(
    sql`SELECT site_id FROM svc_cdc_retention_sites(${cutoff}, ${new Date(now.getTime() - TICKET_GRACE_MS)}) AS site_id ORDER BY 1`,
  );
  for (const site of sites) {
    if (signal?.aborted) return;
    try {
      await pruneSiteChangeFeed(context, site.site_id, now);
    } catch (error) {
      context.logger.error({ err: error, siteId: site.site_id }, 'change-feed retention failed for a site');
    }
  }
}
