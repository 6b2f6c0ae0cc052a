// The cloud-sync reactor (docs/integrations.md): under one leader lock across instances (taken for each
// round, so no connection is held between rounds), it pushes
// each pipeline's item writes from the site's change feed, from the pipeline's own checkpoint
// (cloud_sync_state.synced_seq, moved in the transaction that records the attempt), so a restart
// resumes where it stopped. It wakes when a site's feed grows and sweeps every SWEEP_MS for sites
// whose pipelines are behind and due (a new pipeline, a retry whose wait ended). Pipelines are synced
// one after another per site and several sites at once; a failing target only delays its own pipeline.
import { sql } from '../../../infra/postgres/sql.ts';
import { runAsLeader } from '../../runtime/leaderElection.ts';
import type { FeedWatcher } from '../cdc/feedWatcher.ts';
import { sitePipelines } from './queries.ts';
import { syncBatch, type SyncDeps } from './sync.ts';

const LEADER_LOCK = 'cloud-sync';
/** How often it looks for sites with work it was not woken for. */
const SWEEP_MS = 1_000;
/** Sites synced at once. */
const SITE_CONCURRENCY = 4;
/** One site's turn at most this long; then other sites go first and it is taken up again. */
const SITE_BUDGET_MS = 5_000;

export interface CloudSyncReactor {
  stop(): Promise<void>;
}

export function startCloudSyncReactor(deps: SyncDeps & { watcher: FeedWatcher; now?: () => Date }): CloudSyncReactor {
  const { context } = deps;
  const now = deps.now ?? (() => new Date());
  const stopping = new AbortController();
  /** Sites that have pipelines (from the last sweep): feed growth elsewhere is not looked at. */
  let sitesWithPipelines = new Set<string>();
  const dirty = new Set<string>();
  let wake: (() => void) | null = null;
  const poke = () => {
    wake?.();
    wake = null;
  };
  const stopWatching = deps.watcher.onGrowth((siteId) => {
    if (!sitesWithPipelines.has(siteId)) return;
    dirty.add(siteId);
    poke();
  });

  async function sweep(): Promise<void> {
    const rows = await context.database.query<{ site_id: string; due: boolean }>(sql`SELECT site_id, due FROM svc_cloud_sync_sites(${now()})`);
    sitesWithPipelines = new Set(rows.map((row) => row.site_id));
    for (const row of rows) if (row.due) dirty.add(row.site_id);
  }

  /** Each due pipeline of the site until it is caught up, fails, or the site's budget ends (then the site stays dirty). */
  async function syncSite(siteId: string): Promise<void> {
    const deadline = Date.now() + SITE_BUDGET_MS;
    const pipelines = await context.database.withSiteReads(siteId, (tx) => sitePipelines(tx, siteId));
    for (const pipeline of pipelines) {
      if (pipeline.nextAttemptAt !== null && new Date(pipeline.nextAttemptAt) > now()) continue;
      let current = pipeline;
      for (;;) {
        const result = await syncBatch(deps, siteId, current, now);
        if (result !== 'more') break;
        if (Date.now() > deadline || stopping.signal.aborted) {
          dirty.add(siteId);
          return;
        }
        const fresh = await context.database.withSiteReads(siteId, (tx) => sitePipelines(tx, siteId));
        const next = fresh.find((candidate) => candidate.id === pipeline.id);
        if (!next) break;
        current = next;
      }
    }
  }

  async function drainDirty(): Promise<void> {
    while (dirty.size > 0 && !stopping.signal.aborted) {
      const sites = [...dirty].slice(0, SITE_CONCURRENCY);
      for (const siteId of sites) dirty.delete(siteId);
      await Promise.all(
        sites.map((siteId) =>
          syncSite(siteId).catch((error: unknown) => {
            context.logger.error({ err: error, siteId }, 'cloud-sync of a site failed; the sweep takes it up again');
          }),
        ),
      );
    }
  }

  const loop = (async () => {
    let lastSweep = 0;
    while (!stopping.signal.aborted) {
      try {
        const led = await runAsLeader(context.database, LEADER_LOCK, async () => {
          if (Date.now() - lastSweep >= SWEEP_MS) {
            await sweep();
            lastSweep = Date.now();
          }
          await drainDirty();
        });
        // Another instance leads: it syncs these sites.
        if (!led) dirty.clear();
      } catch (error) {
        context.logger.error({ err: error }, 'cloud-sync reactor step failed; retrying');
      }
      if (dirty.size > 0 || stopping.signal.aborted) continue;
      // Until woken (feed growth, stop) or the next sweep: one timer at a time, cleared when woken.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, SWEEP_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();

  return {
    async stop() {
      stopping.abort();
      poke();
      stopWatching();
      await loop;
    },
  };
}
