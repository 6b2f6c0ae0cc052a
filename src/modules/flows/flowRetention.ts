// The scheduler's `flow-runs` task (docs/flows.md "Runs"): runs cut short by a stopped instance (still
// `running` long past the run timeout) are finished as interrupted, never run again; runs finished
// before the retention horizon leave the run history (the log keeps them).
import { flowRunDecider } from '../../../domain/flows/flowRun.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { runStream } from './runs.ts';

const TASK_METADATA: EventMetadata = { actor: { kind: 'system', id: 'scheduler' } };
const BATCH = 1_000;

export async function maintainFlowRuns(context: AppContext, now: Date, signal?: AbortSignal): Promise<void> {
  const { config } = context;
  const stuckBefore = new Date(now.getTime() - 2 * config.SVC_FLOW_RUN_TIMEOUT_MS);
  const stuck = await context.database.query<{ site_id: string; id: string }>(sql`SELECT * FROM svc_flow_runs_in_state('running', ${stuckBefore}, ${BATCH})`);
  for (const run of stuck) {
    if (signal?.aborted) return;
    await handleCommand(context, {
      siteId: run.site_id,
      streamId: runStream(run.site_id, run.id),
      decider: flowRunDecider,
      command: { type: 'finishRun', status: 'failed', error: 'interrupted: the instance running it stopped' },
      metadata: TASK_METADATA,
      lock: true,
    });
  }
  const horizon = new Date(now.getTime() - config.SVC_FLOW_RUN_RETENTION_DAYS * 86_400_000);
  for (;;) {
    if (signal?.aborted) return;
    const [pruned] = await context.database.query<{ removed: number }>(sql`SELECT svc_flow_runs_prune(${horizon}, ${BATCH}) AS removed`);
    if ((pruned?.removed ?? 0) < BATCH) return;
  }
}
