// The in-process job queue: state in the job_queue table (a restart loses nothing), claimed with
// FOR UPDATE SKIP LOCKED under a lease, so several processes on one database share it safely.
// Local enqueues wake the workers at once; other processes' ones are seen on the next poll.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Database } from '../postgres/database.ts';
import { sql } from '../postgres/sql.ts';
import { errorRetryDelayMs, runsOf, type JobHandler, type JobQueueCore, type QueueRuns } from './jobQueue.ts';

const LEASE_MS = 120_000;

export function createPostgresJobQueue(options: { database: Database; logger: Logger; pollMs?: number }): JobQueueCore {
  const { database, logger } = options;
  const pollMs = options.pollMs ?? 1_000;
  const workerId = randomUUID();
  const loops: Promise<void>[] = [];
  let closed = false;
  const runs = new Map<string, QueueRuns>();

  async function claim(queue: string, limit: number): Promise<{ key: string; payload: unknown; attempts: number }[]> {
    return database.query(sql`
      UPDATE job_queue j SET locked_by = ${workerId}, locked_until = now() + ${`${LEASE_MS} milliseconds`}::interval
        FROM (SELECT queue, key FROM job_queue
               WHERE queue = ${queue} AND run_at <= now() AND (locked_until IS NULL OR locked_until < now())
               ORDER BY run_at LIMIT ${limit} FOR UPDATE SKIP LOCKED) due
       WHERE j.queue = due.queue AND j.key = due.key
      RETURNING j.key, j.payload, j.attempts`);
  }

  async function nextDueInMs(queue: string): Promise<number> {
    const [row] = await database.query<{ wait_ms: number | null }>(sql`
      SELECT (extract(epoch FROM min(run_at) - now()) * 1000)::float8 AS wait_ms FROM job_queue
       WHERE queue = ${queue} AND (locked_until IS NULL OR locked_until < now())`);
    return row?.wait_ms ?? Number.POSITIVE_INFINITY;
  }

  /** Finishes a run: deletes the job, or re-arms it (retry delay, or a rerun asked for while it ran). */
  async function settle(queue: string, key: string, retryInMs: number | null, failed: boolean): Promise<void> {
    if (retryInMs === null) {
      const deleted = await database.query(sql`
        DELETE FROM job_queue WHERE queue = ${queue} AND key = ${key} AND locked_by = ${workerId} AND NOT rerun RETURNING key`);
      if (deleted.length > 0) return;
    }
    await database.query(sql`
      UPDATE job_queue SET locked_by = NULL, locked_until = NULL, rerun = false,
             attempts = CASE WHEN ${failed} THEN attempts + 1 ELSE 0 END,
             run_at = now() + ${`${retryInMs ?? 0} milliseconds`}::interval
       WHERE queue = ${queue} AND key = ${key} AND locked_by = ${workerId}`);
  }

  /** Per queue: a wake-up that arrives while the loop is busy is kept for its next wait. */
  const signals = new Map<string, { pending: boolean; resolve: (() => void) | null }>();
  function signalOf(queue: string) {
    let signal = signals.get(queue);
    if (!signal) signals.set(queue, (signal = { pending: false, resolve: null }));
    return signal;
  }
  function notify(queue: string): void {
    const signal = signalOf(queue);
    signal.pending = true;
    signal.resolve?.();
  }
  async function waitForWork(queue: string): Promise<void> {
    const signal = signalOf(queue);
    if (signal.pending || closed) return;
    let waitMs = pollMs;
    try {
      waitMs = Math.max(0, Math.min(pollMs, await nextDueInMs(queue)));
    } catch {
      // the poll interval then
    }
    if (signal.pending || closed) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, waitMs);
      function done() {
        clearTimeout(timer);
        signal.resolve = null;
        resolve();
      }
      signal.resolve = done;
    });
  }

  async function runLoop(queue: string, handler: JobHandler<unknown>, concurrency: number): Promise<void> {
    const running = new Set<Promise<void>>();
    while (!closed) {
      signalOf(queue).pending = false;
      let claimed: Awaited<ReturnType<typeof claim>> = [];
      try {
        if (running.size < concurrency) claimed = await claim(queue, concurrency - running.size);
      } catch (error) {
        if (!closed) logger.error({ err: error, queue }, 'job queue claim failed');
      }
      for (const job of claimed) {
        const run = (async () => {
          let retryInMs: number | null = null;
          let failed = false;
          try {
            const outcome = await handler(job.payload);
            retryInMs = outcome?.retryInMs ?? null;
            runsOf(runs, queue).completed += 1;
          } catch (error) {
            failed = true;
            runsOf(runs, queue).failed += 1;
            retryInMs = errorRetryDelayMs(job.attempts);
            logger.error({ err: error, queue, key: job.key }, 'job failed; it will be retried');
          }
          try {
            await settle(queue, job.key, retryInMs, failed);
          } catch (error) {
            logger.error({ err: error, queue, key: job.key }, 'job queue settle failed; the lease will expire');
          }
        })().finally(() => {
          running.delete(run);
          notify(queue);
        });
        running.add(run);
      }
      if (claimed.length > 0 && running.size < concurrency) continue;
      await waitForWork(queue);
    }
    await Promise.allSettled([...running]);
  }

  return {
    kind: 'postgres',
    runs,
    async depth() {
      const queues = [...runs.keys()];
      if (queues.length === 0) return [];
      const rows = await database.query<{ queue: string; waiting: string; running: string }>(sql`
        SELECT queue, count(*) FILTER (WHERE locked_until IS NULL OR locked_until < now()) AS waiting,
               count(*) FILTER (WHERE locked_until >= now()) AS running
          FROM job_queue WHERE queue = ANY(${queues}::text[]) GROUP BY queue`);
      const found = new Map(rows.map((row) => [row.queue, row]));
      return queues.map((queue) => ({ queue, waiting: Number(found.get(queue)?.waiting ?? 0), running: Number(found.get(queue)?.running ?? 0) }));
    },
    async enqueue(queue, key, payload, enqueueOptions = {}) {
      const delay = `${Math.max(0, Math.round(enqueueOptions.delayMs ?? 0))} milliseconds`;
      await database.query(sql`
        INSERT INTO job_queue (queue, key, payload, run_at) VALUES (${queue}, ${key}, ${JSON.stringify(payload)}::jsonb, now() + ${delay}::interval)
        ON CONFLICT (queue, key) DO UPDATE SET
          payload = excluded.payload,
          run_at = CASE WHEN ${enqueueOptions.promote === true} THEN now() ELSE least(job_queue.run_at, excluded.run_at) END,
          rerun = job_queue.rerun OR (job_queue.locked_until IS NOT NULL AND job_queue.locked_until >= now())`);
      notify(queue);
    },
    process(queue, handler, processOptions) {
      runsOf(runs, queue);
      loops.push(runLoop(queue, handler as JobHandler<unknown>, processOptions.concurrency));
    },
    async close() {
      closed = true;
      for (const queue of signals.keys()) notify(queue);
      await Promise.allSettled(loops);
    },
  };
}
