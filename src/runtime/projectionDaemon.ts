// The async projection daemon: per projection, the instance holding its advisory lock applies the
// log; others stand by and take over when that lock is released. Wakes on commits, polls as fallback.
import type pg from 'pg';
import type { Logger } from 'pino';
import { readLogHead } from '../../infra/eventstore/eventStore.ts';
import type { LogNotifier } from '../../infra/eventstore/logNotifier.ts';
import type { Database } from '../../infra/postgres/database.ts';
import { sql } from '../../infra/postgres/sql.ts';
import type { Projection } from '../../projections/projection.ts';
import { advisoryKey, readCheckpoint, stepAsyncProjection } from './projectionRunner.ts';

export interface ProjectionDaemon {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves once every async projection has applied the log as it stood when called. */
  drain(timeoutMs?: number): Promise<void>;
}

export function createProjectionDaemon(options: {
  database: Database;
  notifier: LogNotifier;
  projections: readonly Projection[];
  pollMs: number;
  logger: Logger;
}): ProjectionDaemon {
  const { database, notifier, logger } = options;
  const asyncProjections = options.projections.filter((p) => p.mode === 'async');
  const led = new Set<string>();
  let lockClient: pg.PoolClient | null = null;
  let running = false;
  let loops: Promise<void>[] = [];
  const stopping = new AbortController();

  async function acquireLeadership(): Promise<void> {
    if (!lockClient) {
      lockClient = await database.connect();
      lockClient.on('error', () => {
        // The lock connection died: our locks are gone with it, so stop leading until re-acquired.
        led.clear();
        lockClient?.release(true);
        lockClient = null;
      });
    }
    for (const projection of asyncProjections) {
      if (led.has(projection.name)) continue;
      const result = await lockClient.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
        advisoryKey(`projection:${projection.name}`),
      ]);
      if (result.rows[0]?.locked) led.add(projection.name);
    }
  }

  // Leadership is taken over one lock connection: loops asking at the same time share one attempt.
  let acquiring: Promise<void> | null = null;
  function lead(): Promise<void> {
    acquiring ??= acquireLeadership().finally(() => {
      acquiring = null;
    });
    return acquiring;
  }

  /** Applies the log to one projection until it reaches the head. */
  async function catchUp(projection: Projection): Promise<void> {
    if (!led.has(projection.name)) return;
    while (running && (await stepAsyncProjection(database, projection)) > 0) {
      // keep applying until the projection reaches the head of the log
    }
  }

  /** Committed events after the projection's checkpoint that the gap-safe read could not return yet. */
  async function hiddenCommits(projection: Projection): Promise<boolean> {
    if (!led.has(projection.name)) return false;
    const [row] = await database.query<{ hidden: boolean | null }>(sql`
      SELECT svc_log_has_after(tx_id, position) AS hidden FROM projection_checkpoints WHERE name = ${projection.name}`);
    return row?.hidden === true;
  }

  /**
   * One loop per async projection, so a slow read model never delays a fast one (the change feed
   * does not wait for search indexing). Each wakes on commits, remembers a commit notified while it
   * works, looks again within milliseconds when an open older transaction hides committed events,
   * and polls as the fallback.
   */
  async function run(projection: Projection): Promise<void> {
    let notified = false;
    const stopListening = notifier.on('svc_events', () => {
      notified = true;
    });
    let gapDelayMs = 0;
    try {
      while (running) {
        notified = false;
        try {
          await lead();
          await catchUp(projection);
        } catch (error) {
          logger.error({ err: error, projection: projection.name }, 'async projection step failed');
        }
        if (!running) break;
        if (notified) continue;
        const hidden = await hiddenCommits(projection).catch(() => false);
        gapDelayMs = hidden ? Math.min(Math.max(gapDelayMs * 2, 2), 100) : 0;
        if (notified) continue;
        await notifier.next('svc_events', hidden ? gapDelayMs : options.pollMs, stopping.signal);
      }
    } finally {
      stopListening();
    }
  }

  return {
    async start() {
      if (running) return;
      running = true;
      loops = asyncProjections.map((projection) => run(projection));
    },
    async stop() {
      running = false;
      stopping.abort();
      await Promise.all(loops);
      if (lockClient) {
        await lockClient.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
        lockClient.release();
        lockClient = null;
      }
      led.clear();
    },
    async drain(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      // Readers of the log only see transactions below the oldest one still open (xmin). An older
      // transaction still open elsewhere hides events that committed before this call, so first wait
      // until every transaction that began before the call has ended; only then is the head complete.
      const [called] = await database.query<{ xmax: string }>(sql`SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xmax`);
      for (;;) {
        const [now] = await database.query<{ xmin: string }>(sql`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`);
        if (BigInt(now!.xmin) >= BigInt(called!.xmax)) break;
        if (Date.now() > deadline) throw new Error(`transactions older than the drain did not end in ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const target = await readLogHead(database);
      for (const projection of asyncProjections) {
        for (;;) {
          const checkpoint = await readCheckpoint(database, projection.name);
          const behind =
            BigInt(checkpoint.txId) < BigInt(target.txId) ||
            (checkpoint.txId === target.txId && checkpoint.position < target.position);
          if (!behind) break;
          if (Date.now() > deadline) throw new Error(`projection ${projection.name} did not catch up in ${timeoutMs} ms`);
          if (led.has(projection.name) && running) {
            await stepAsyncProjection(database, projection);
          } else {
            await notifier.next('svc_checkpoints', 200);
          }
        }
      }
    },
  };
}
