// The scheduler's `flows-schedule` task (docs/flows.md "Schedule"): every active schedule flow whose
// next run has come gets one run, and its next run moves to the cron's next time after now, in one
// transaction under the flow's lock. The run's id is derived from the flow and its due time, so two
// instances (or a retried tick) that reach the same due time queue one run. A flow that missed many
// times while nothing ran fires once. The flows runtime's dispatcher queues the run's job.
import { nextCronTime } from '../../../domain/flows/cron.ts';
import { flowDecider } from '../../../domain/flows/flow.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { inSiteTransaction, openCommandIn } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { flowStream } from './flowHandlers.ts';
import { derivedRunId, queueRunIn } from './runs.ts';

const PAGE_SIZE = 500;
const SCHEDULER_METADATA: EventMetadata = { actor: { kind: 'system', id: 'scheduler' } };

export async function fireDueSchedules(context: AppContext, now: Date, signal?: AbortSignal): Promise<void> {
  for (;;) {
    const due = await context.database.query<{ site_id: string; id: string }>(sql`SELECT * FROM svc_flow_due_schedules(${now}, ${PAGE_SIZE})`);
    for (const flow of due) {
      if (signal?.aborted) return;
      try {
        await fireSchedule(context, flow.site_id, flow.id, now);
      } catch (error) {
        context.logger.error({ err: error, siteId: flow.site_id, flowId: flow.id }, 'schedule flow could not fire; the next tick tries again');
      }
    }
    if (due.length < PAGE_SIZE) return;
  }
}

async function fireSchedule(context: AppContext, siteId: string, flowId: string, now: Date): Promise<void> {
  await inSiteTransaction(context, siteId, async (tx) => {
    const opened = await openCommandIn(tx, context.projections, { siteId, streamId: flowStream(siteId, flowId), decider: flowDecider, metadata: SCHEDULER_METADATA, lock: true });
    const { flow, nextRunAt: dueAt } = opened.state;
    if (!flow || !dueAt || !flow.triggerOptions.cron) return;
    const runId = derivedRunId(`${flowId}@${dueAt}`);
    const next = nextCronTime(flow.triggerOptions.cron, now)?.toISOString() ?? null;
    const fired = await opened.decide({ type: 'fireSchedule', runId, now: now.toISOString(), nextRunAt: next });
    if (fired.events.length === 0) return;
    await queueRunIn(tx, context, siteId, { runId, flowId, trigger: 'schedule', input: { scheduledAt: dueAt, firedAt: now.toISOString() }, depth: 0 }, SCHEDULER_METADATA);
  });
}
