// Schedule flows fired by the scheduler's `flows-schedule` task, run by hand with the moment the test
// chooses (docs/flows.md "Schedule"): a due time gives one run however many instances tick it at once,
// nextRunAt moves past now, missed times catch up once, drafts and flows not yet due do not fire, and
// the run executes with { scheduledAt, firedAt }. Two services on one database of the file's own: a
// tick looks at every site's flows.
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { scheduledTasks, startScheduler } from '../../../src/boot/scheduler.ts';
import { flowStream } from '../../../src/modules/flows/flowHandlers.ts';
import { fireDueSchedules } from '../../../src/modules/flows/flowSchedule.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { startTestServiceForFile, type TestService } from '../../support/testService.ts';
import { createFlow, createFlowSite, getFlow, logGraph, nextCronTime, runsOf, waitForRun, type FlowSite, type Json } from './support/flowHelpers.ts';

const database = await createFreshDatabaseForFile();
const overrides = { DATABASE_URL: database.url, SVC_FLOW_RUN_TIMEOUT_MS: '10000' };
const first = await startTestServiceForFile(overrides);
const second = await startTestServiceForFile(overrides);

const CRON = '*/5 * * * *';
const HOUR = 3_600_000;

/** A scheduler of the service with only the flows' schedule task (the others would act on the test's moment too). */
function scheduleTicker(service: TestService) {
  const scheduler = startScheduler(service.context, { intervalMs: HOUR, tasks: scheduledTasks.filter((task) => task.name === 'flows-schedule') });
  afterAll(() => scheduler.stop());
  return scheduler;
}
const firstScheduler = scheduleTicker(first);
const secondScheduler = scheduleTicker(second);

async function scheduleFlow(site: FlowSite, status = 'active'): Promise<Json> {
  return createFlow(site, { name: 'Every five minutes', trigger: 'schedule', status, triggerOptions: { cron: CRON }, graph: logGraph('fired at {{ $trigger.firedAt }}') });
}

/** How many times the flow's schedule fired, in its event stream. */
async function firings(site: FlowSite, flowId: string): Promise<number> {
  const [row] = await database.owner.query<{ n: number }>(sql`
    SELECT count(*)::int AS n FROM events WHERE stream_id = ${flowStream(site.siteId, flowId)} AND type = 'flow.schedule_fired'`);
  return row!.n;
}

/** The flow fired exactly once at `now` for its due time `dueAt`: one run, which executes with its times as input. */
async function expectFiredOnce(site: FlowSite, flowId: string, dueAt: string, now: Date): Promise<void> {
  const runs = await runsOf(site, flowId);
  expect(runs).toHaveLength(1);
  expect(await firings(site, flowId)).toBe(1);
  const run = await waitForRun(site, flowId, runs[0].id);
  expect(run).toMatchObject({ status: 'succeeded', trigger: 'schedule', depth: 0, input: { scheduledAt: dueAt, firedAt: now.toISOString() } });
  expect(run.steps[0].output).toEqual({ message: `fired at ${now.toISOString()}` });
  expect((await getFlow(site, flowId)).nextRunAt).toBe(nextCronTime(CRON, now));
}

describe('schedule flows', () => {
  it('fire once when two instances run the task for the same due time at once; nextRunAt moves past now', async () => {
    const site = await createFlowSite(first, 'sched');
    const flow = await scheduleFlow(site);
    const now = new Date(Date.parse(flow.nextRunAt) + 1_000);
    await Promise.all([fireDueSchedules(first.context, now), fireDueSchedules(second.context, now)]);
    await expectFiredOnce(site, flow.id, flow.nextRunAt, now);
    // The same moment again, through both schedulers: nothing is due any more.
    await Promise.all([firstScheduler.tick(now), secondScheduler.tick(now)]);
    expect(await runsOf(site, flow.id)).toHaveLength(1);
  });

  it('fire once through both schedulers ticking at once', async () => {
    const site = await createFlowSite(first, 'sched');
    const flow = await scheduleFlow(site);
    const now = new Date(Date.parse(flow.nextRunAt));
    await Promise.all([firstScheduler.tick(now), secondScheduler.tick(now)]);
    await expectFiredOnce(site, flow.id, flow.nextRunAt, now);
  });

  it('catch up once for many missed due times', async () => {
    const site = await createFlowSite(first, 'sched');
    const flow = await scheduleFlow(site);
    // Twelve due times a hour: a day without ticks missed nearly three hundred.
    const now = new Date(Date.parse(flow.nextRunAt) + 24 * HOUR + 123);
    await firstScheduler.tick(now);
    await secondScheduler.tick(new Date(now.getTime() + 1));
    await expectFiredOnce(site, flow.id, flow.nextRunAt, now);
  });

  it('do not fire while a draft, nor before their time', async () => {
    const site = await createFlowSite(first, 'sched');
    const draft = await scheduleFlow(site, 'draft');
    const waiting = await scheduleFlow(site);
    const early = new Date(Date.parse(waiting.nextRunAt) - 1);
    await Promise.all([firstScheduler.tick(early), secondScheduler.tick(early)]);
    expect(await runsOf(site, waiting.id)).toHaveLength(0);
    expect((await getFlow(site, waiting.id)).nextRunAt).toBe(waiting.nextRunAt);
    await fireDueSchedules(first.context, new Date(Date.parse(waiting.nextRunAt) + 7 * 24 * HOUR));
    expect(await runsOf(site, draft.id)).toHaveLength(0);
    expect(await firings(site, draft.id)).toBe(0);
    expect(await getFlow(site, draft.id)).toMatchObject({ status: 'draft', nextRunAt: null });
    expect(await runsOf(site, waiting.id)).toHaveLength(1);
  });
});
