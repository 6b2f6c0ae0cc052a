// Retention of activity read models (docs/privacy.md, "Retention"): rows that record what happened
// around the content, not the content or the compliance record, are removed past their horizon.
// Only read models are pruned: the log keeps every event, so a rebuild brings pruned rows back.
import { sql } from '../../../infra/postgres/sql.ts';
import type { AppContext } from '../../runtime/context.ts';
import { UNIQUES_KEPT_DAYS } from '../pageviews/pageviewCounts.ts';

const DAY_MS = 86_400_000;

export interface RetentionHorizon {
  /** The read model (table) the horizon applies to. */
  readModel: string;
  /** How long its rows are kept after they stop being current. */
  days: number;
  /** What is removed past the horizon. */
  prunes: string;
  /** What removes it. */
  prunedBy: string;
  /** The environment variable that sets it, when one does. */
  setting: string | null;
}

export function retentionHorizons(context: Pick<AppContext, 'config'>): RetentionHorizon[] {
  return [
    {
      readModel: 'sessions',
      days: context.config.SVC_RETENTION_SESSIONS_DAYS,
      prunes: 'sessions revoked or expired longer ago than the horizon (never an active session)',
      prunedBy: 'POST /retention/run',
      setting: 'SVC_RETENTION_SESSIONS_DAYS',
    },
    {
      readModel: 'pageview_uniques',
      days: UNIQUES_KEPT_DAYS,
      prunes: 'the daily visitor hashes of the pageview counters',
      prunedBy: 'every pageview flush',
      setting: null,
    },
    {
      readModel: 'cdc_feed, cdc_deliveries',
      days: context.config.SVC_CDC_RETENTION / DAY_MS,
      prunes: 'change-feed entries and webhook delivery attempts',
      prunedBy: 'the change-feed retention task (docs/change-feed.md)',
      setting: 'SVC_CDC_RETENTION',
    },
  ];
}

/** Removes the site's sessions that ended more than SVC_RETENTION_SESSIONS_DAYS before `now`. */
export async function pruneEndedSessions(context: Pick<AppContext, 'config' | 'database'>, siteId: string, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - context.config.SVC_RETENTION_SESSIONS_DAYS * DAY_MS);
  return context.database.withSite(siteId, async (tx) => {
    const removed = await tx.query(sql`
      DELETE FROM sessions
       WHERE site_id = ${siteId} AND (revoked_at < ${cutoff} OR expires_at < ${cutoff})
      RETURNING id`);
    return removed.length;
  });
}

export async function runRetention(context: Pick<AppContext, 'config' | 'database'>, siteId: string): Promise<{ pruned: { sessions: number } }> {
  return { pruned: { sessions: await pruneEndedSessions(context, siteId) } };
}
