// The async projection daemon: per projection, the instance leading it (leaderElection.ts, the lock
// `projection:<name>`) applies the log; others stand by and take over when that lock is released.
// Wakes on commits, polls as fallback.
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { StoredEvent } from '../../domain/shared/events.ts';
import { readAll, readLogHead, type GlobalCursor } from '../../infra/eventstore/eventStore.ts';
import type { LogNotifier } from '../../infra/eventstore/logNotifier.ts';
import type { Database } from '../../infra/postgres/database.ts';
import { sql } from '../../infra/postgres/sql.ts';
import type { Projection } from '../../projections/projection.ts';
import { splitIntoLanes } from './projectionLanes.ts';
import { createLeaderSession } from './leaderElection.ts';
import { BATCH_SIZE, readCheckpoint, stepAsyncProjection, stepAsyncProjectionFrom, stepAsyncProjectionsFrom, type BatchReader } from './projectionRunner.ts';

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
  /**
   * The shortest time from one round's start to the next while commits keep coming: under a stream
   * of small commits, each round then takes what a few of them wrote, instead of paying a round's
   * fixed cost (a log read, checkpoints, a transaction) for each. A commit after a quiet spell is
   * applied at once. 0 runs a round per wake-up.
   */
  roundMs?: number;
  /**
   * How many transactions step the projections at one checkpoint concurrently (projectionLanes.ts);
   * 1 steps them all in one transaction.
   */
  lanes?: number;
  logger: Logger;
}): ProjectionDaemon {
  const { database, notifier, logger } = options;
  const asyncProjections = options.projections.filter((p) => p.mode === 'async');
  /**
   * Where each led projection's checkpoint stands: only its leader moves it (or a rebuild, which a
   * step notices and answers by reading it again), so it is read once, not before every step.
   */
  const cursors = new Map<string, GlobalCursor>();
  // The connection is kept while leading nothing: every round asks for the projections not led yet.
  const leadership = createLeaderSession({ database, keepWhileStandby: true, onLost: () => cursors.clear() });
  const lockName = (projection: Projection) => `projection:${projection.name}`;
  const leads = (projection: Projection) => leadership.leads(lockName(projection));

  let running = false;
  let loop: Promise<void> | null = null;
  const stopping = new AbortController();

  async function acquireLeadership(): Promise<void> {
    for (const projection of asyncProjections) await leadership.lead(lockName(projection));
  }

  /** Steps projections one at a time, so that one failing on an event does not hold the others back. */
  async function stepEach(projections: readonly Projection[], readBatch: BatchReader): Promise<Projection[]> {
    const behind: Projection[] = [];
    for (const projection of projections) {
      if (!running) break;
      try {
        const from = cursors.get(projection.name) ?? (await readCheckpoint(database, projection.name));
        const step = await stepAsyncProjectionFrom(database, projection, from, readBatch);
        if (step.cursor) cursors.set(projection.name, step.cursor);
        else cursors.delete(projection.name);
        // A short batch reached the head of the log as readers may see it; a voided one reads again.
        if (!step.cursor || step.read === BATCH_SIZE) behind.push(projection);
      } catch (error) {
        cursors.delete(projection.name);
        logger.error({ err: error, projection: projection.name }, 'async projection step failed');
      }
    }
    return behind;
  }

  /**
   * One step of a lane of projections standing at the same checkpoint, in one transaction; if that
   * fails, they step one at a time. Returns those still behind.
   */
  async function stepLane(lane: readonly Projection[], from: GlobalCursor, readBatch: BatchReader): Promise<Projection[]> {
    if (lane.length === 1) return stepEach(lane, readBatch);
    try {
      const step = await stepAsyncProjectionsFrom(database, lane, from, readBatch);
      for (const projection of lane) {
        if (step.cursor) cursors.set(projection.name, step.cursor);
        else cursors.delete(projection.name);
      }
      return step.cursor === null || step.read === BATCH_SIZE ? [...lane] : [];
    } catch (error) {
      logger.warn({ err: error, projections: lane.map((projection) => projection.name) }, 'joint projection step failed; stepping each alone');
      return stepEach(lane, readBatch);
    }
  }

  const laneCount = options.lanes ?? 1;

  /**
   * Brings every led projection to the head. Each round reads the next batch once for the
   * projections standing at the same checkpoint (the usual case) and applies it in `lanes`
   * concurrent transactions, each lane's projections together; the others step one at a time.
   */
  async function catchUp(): Promise<void> {
    for (const projection of asyncProjections) if (!leads(projection)) cursors.delete(projection.name);
    let behind = asyncProjections.filter(leads);
    while (behind.length > 0 && running) {
      const batches = new Map<string, Promise<readonly StoredEvent[]>>();
      const readBatch: BatchReader = (from) => {
        const key = `${from.txId}:${from.position}`;
        let batch = batches.get(key);
        if (!batch) batches.set(key, (batch = readAll(database, from, BATCH_SIZE)));
        return batch;
      };
      const together = behind.filter((projection) => cursors.has(projection.name));
      const from = together.length > 0 ? cursors.get(together[0]!.name)! : null;
      const atFrom = from ? together.filter((projection) => sameCursor(cursors.get(projection.name)!, from)) : [];
      if (!from || atFrom.length <= 1) {
        behind = await stepEach(behind, readBatch);
        continue;
      }
      const stillBehind = new Set(
        (
          await Promise.all([
            stepEach(behind.filter((projection) => !atFrom.includes(projection)), readBatch),
            ...splitIntoLanes(atFrom, laneCount).map((lane) => stepLane(lane, from, readBatch)),
          ])
        ).flat(),
      );
      behind = asyncProjections.filter((projection) => stillBehind.has(projection));
    }
  }

  /** Committed events after some led projection's checkpoint that the gap-safe read could not return yet. */
  async function hiddenCommits(): Promise<boolean> {
    const led = asyncProjections.filter(leads).map((projection) => projection.name);
    if (led.length === 0) return false;
    const [row] = await database.query<{ hidden: boolean | null }>(sql`
      SELECT bool_or(svc_log_has_after(tx_id, position)) AS hidden FROM projection_checkpoints WHERE name = ANY(${led}::text[])`);
    return row?.hidden === true;
  }

  const roundMs = options.roundMs ?? 0;

  /** Waits `ms` (nothing when not positive), or less if the daemon stops. */
  async function pause(ms: number): Promise<void> {
    if (ms <= 0) return;
    await delay(ms, undefined, { signal: stopping.signal }).catch(() => undefined);
  }

  async function run(): Promise<void> {
    // A commit notified while a step runs must not wait for the poll: remember it.
    let notified = false;
    const stopListening = notifier.on('svc_events', () => {
      notified = true;
    });
    let gapDelayMs = 0;
    try {
      let roundStarted = -Infinity;
      while (running) {
        await pause(roundStarted + roundMs - Date.now());
        notified = false;
        roundStarted = Date.now();
        try {
          await acquireLeadership();
          await catchUp();
        } catch (error) {
          logger.error({ err: error }, 'projection daemon step failed');
        }
        if (!running) break;
        if (notified) continue;
        // An older open transaction hides events that already committed: look again soon.
        const hidden = await hiddenCommits().catch(() => false);
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
      loop = run();
    },
    async stop() {
      running = false;
      stopping.abort();
      await loop;
      await leadership.resign();
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
          if (leads(projection) && running) {
            await stepAsyncProjection(database, projection);
          } else {
            await notifier.next('svc_checkpoints', 200);
          }
        }
      }
    },
  };
}

function sameCursor(a: GlobalCursor, b: GlobalCursor): boolean {
  return a.txId === b.txId && a.position === b.position;
}
