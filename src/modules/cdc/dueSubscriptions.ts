// Finding a delivering reactor's due subscriptions (webhooks, sinks) and queueing one job per
// subscription key: on feed growth of a site, on demand, and by a periodic sweep of every site.
// `due` is the reactor's SQL function over its kind of subscription (svc_cdc_due_webhooks,
// svc_cdc_due_sinks), answering each due subscription with when it is due and whether a dispatch
// asked for it (a promoted job).
import type { Logger } from 'pino';
import type { Database } from '../../../infra/postgres/database.ts';
import type { SqlQuery } from '../../../infra/postgres/sql.ts';
import type { JobQueue } from '../../../infra/queue/jobQueue.ts';
import type { FeedWatcher } from './feedWatcher.ts';

export interface DueSubscriptionWaker {
  /** Looks for due subscriptions of a site (or of every site: null) and queues them. */
  wake(siteId: string | null): void;
  stop(): Promise<void>;
}

export function startDueSubscriptionWaker(options: {
  database: Database;
  logger: Logger;
  queue: JobQueue;
  queueName: string;
  watcher: FeedWatcher;
  sweepMs: number;
  due(siteId: string | null): SqlQuery;
  /** The reactor, as its log lines name it. */
  what: string;
}): DueSubscriptionWaker {
  const { database, logger, queue } = options;
  const pendingSites = new Set<string | null>();
  let draining: Promise<void> | null = null;
  let stopping = false;

  async function enqueueDue(siteId: string | null): Promise<void> {
    const rows = await database.query<{ site_id: string; subscription_id: string; due_at: Date; dispatch: boolean }>(options.due(siteId));
    for (const row of rows) {
      await queue.enqueue(
        options.queueName,
        `${row.site_id}/${row.subscription_id}`,
        { siteId: row.site_id, subscriptionId: row.subscription_id },
        { delayMs: row.due_at.getTime() - Date.now(), promote: row.dispatch },
      );
    }
  }

  async function drain(): Promise<void> {
    while (pendingSites.size > 0 && !stopping) {
      const sites = [...pendingSites];
      pendingSites.clear();
      try {
        if (sites.includes(null)) await enqueueDue(null);
        else for (const site of sites) await enqueueDue(site);
      } catch (error) {
        if (!stopping) logger.error({ err: error }, `${options.what} could not queue due subscriptions`);
      }
    }
    draining = null;
  }

  function wake(siteId: string | null): void {
    if (stopping) return;
    pendingSites.add(siteId);
    draining ??= drain();
  }

  const stopWatching = options.watcher.onGrowth((siteId) => wake(siteId));
  const sweep = setInterval(() => wake(null), options.sweepMs);
  sweep.unref();
  wake(null);

  return {
    wake,
    async stop() {
      stopping = true;
      stopWatching();
      clearInterval(sweep);
      await draining;
    },
  };
}
