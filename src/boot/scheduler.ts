// The scheduler tick: periodic maintenance tasks, each run by one instance at a time (a session
// advisory lock per task; an instance that cannot take it skips that task this tick). Add a task
// to `scheduledTasks`; it receives the tick's time, so it can be run in tests with any `now`.
import { runLogCheckpoints } from '../modules/audit/checkpointTask.ts';
import { summarizeSignInFailures } from '../modules/auth/failedSignIns.ts';
import { pruneChangeFeeds } from '../modules/cdc/retention.ts';
import { compactItemCounts } from '../modules/items/itemCounts.ts';
import { publishDueReleases } from '../modules/releases/scheduledReleases.ts';
import type { AppContext } from '../runtime/context.ts';
import { advisoryKey } from '../runtime/projectionRunner.ts';

export interface ScheduledTask {
  name: string;
  /** `signal` aborts when the service stops: a long task should return at the next safe point. */
  run(context: AppContext, now: Date, signal: AbortSignal): Promise<void>;
}

export const scheduledTasks: ScheduledTask[] = [
  { name: 'releases', run: publishDueReleases },
  { name: 'cdc-retention', run: pruneChangeFeeds },
  { name: 'item-counts', run: compactItemCounts },
  { name: 'log-checkpoints', run: runLogCheckpoints },
  { name: 'sign-in-failures', run: summarizeSignInFailures },
];

export interface Scheduler {
  /** Runs every task once now (those another instance is running are skipped). */
  tick(now?: Date): Promise<void>;
  stop(): Promise<void>;
}

export function startScheduler(context: AppContext, options: { intervalMs: number; tasks?: readonly ScheduledTask[] }): Scheduler {
  const tasks = options.tasks ?? scheduledTasks;
  let stopped = false;
  let current: Promise<void> | null = null;
  const stopping = new AbortController();

  async function runTask(task: ScheduledTask, now: Date): Promise<void> {
    const client = await context.database.connect();
    const key = advisoryKey(`scheduler:${task.name}`);
    try {
      const result = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [key]);
      if (!result.rows[0]?.locked) return;
      try {
        await task.run(context, now, stopping.signal);
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [key]);
      }
    } finally {
      client.release();
    }
  }

  async function tick(now = new Date()): Promise<void> {
    for (const task of tasks) {
      if (stopped) return;
      try {
        await runTask(task, now);
      } catch (error) {
        context.logger.error({ err: error, task: task.name }, 'scheduled task failed');
      }
    }
  }

  const timer = setInterval(() => {
    if (current || stopped) return;
    current = tick().finally(() => {
      current = null;
    });
  }, options.intervalMs);
  timer.unref();

  return {
    tick,
    async stop() {
      stopped = true;
      stopping.abort();
      clearInterval(timer);
      await current;
    },
  };
}
