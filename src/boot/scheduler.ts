// The one scheduler: periodic tasks of every area (their manifests, src/modules/index.ts), each run
// by one instance at a time (runAsLeader, src/runtime/leaderElection.ts: an instance that cannot
// take a task's lock skips that task this tick). A task receives the tick's time, so it can be run
// in tests with any `now`.
import type { ScheduledTask } from '../modules/areaManifest.ts';
import { scheduledTasks } from '../modules/index.ts';
import type { AppContext } from '../runtime/context.ts';
import { runAsLeader } from '../runtime/leaderElection.ts';

export { scheduledTasks, type ScheduledTask };

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
    await runAsLeader(context.database, `scheduler:${task.name}`, () => task.run(context, now, stopping.signal));
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
