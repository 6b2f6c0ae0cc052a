// The flows bench's figure 2 (scripts/bench/flows.ts): the scheduler's `flows-schedule` task
// (fireDueSchedules, src/modules/flows/flowSchedule.ts) over --schedule-flows active schedule flows
// spread across --sites sites, created through the registry (`flows.create`, cron every 5 minutes).
// (a) ticks when none is due: the task alone and the scheduler's whole tick (a pooled connection,
//     the task's advisory lock, the task), median and max, with the plan of the due-flows query;
// (b) ticks when all are due (a `now` past every nextRunAt): total and per flow, the statements and
//     CPU, each flow fired once and moved on; then the runs it queued are followed until they finish
//     (the runtime's dispatcher queues their jobs), before the next round.
import type pg from 'pg';
import { scheduledTasks, startScheduler } from '../../../src/boot/scheduler.ts';
import { fireDueSchedules } from '../../../src/modules/flows/flowSchedule.ts';
import type { AppContext } from '../../../src/runtime/context.ts';
import type { Measure } from './emailSend.ts';
import { cpuClock } from './emailSend.ts';
import { median, round2, thousands } from './flowsProbe.ts';
import { createFlow, createSite, inParallel, runCounts, siteAdmins, waitForRuns, type FlowBody, type RunWait } from './flowsSites.ts';

export const CRON = '*/5 * * * *';
const SITE_PREFIX = 'flowsched-';
/** Sites are created a few at a time: each hashes its administrator's password (argon2id) on the 2 cores. */
const SITE_CONCURRENCY = 2;
const FLOW_CONCURRENCY = 8;
const WARM_UP_TICKS = 5;
const DRAIN = { deadlineMs: 600_000, stallMs: 60_000 };

export interface ScheduleOptions {
  flows: number;
  sites: number;
  noneDueTicks: number;
  dueTicks: number;
}

export interface DueTick {
  round: number;
  now: string;
  dueBefore: number;
  ms: number;
  perFlowMs: number;
  statements: number;
  processCpuMs: number;
  dbCpuMs: number | null;
  /** Runs the tick queued (new rows of the run history), distinct flows among them, flows still due after it. */
  runsQueued: number;
  distinctFlows: number;
  stillDue: number;
  /** Runs that began executing while the tick ran (the worker competing for the same 2 cores). */
  executedDuringTick: number;
  /** The wait for its runs to finish (from the tick's end), and their rate: runs / (first executing → last finished). */
  drain: RunWait & { runsPerSecond: number | null };
}

export interface ScheduleOutcome {
  sites: number;
  flows: number;
  seedMs: { sites: number; flows: number };
  noneDue: {
    /** The clock, or a time just before the first nextRunAt when the clock had passed it (no tick may fire). */
    nowSource: 'clock' | 'before the first due time';
    taskMs: number[];
    tickMs: number[];
    statementsPerTask: number;
    fired: number;
  };
  allDue: DueTick[];
  explain: string[];
}

const scheduleFlow = (index: number): FlowBody => ({
  name: `Schedule ${index}`,
  status: 'active',
  trigger: 'schedule',
  triggerOptions: { cron: CRON },
  graph: { nodes: [{ id: 'log', operation: 'log', options: { message: 'scheduled at {{ $trigger.scheduledAt }}' } }], edges: [] },
});

/** The sites (instance API) and their flows (registry), flow i on site i mod sites; answers the flows' ids. */
async function seedScheduleFlows(context: AppContext, base: string, owner: pg.Client, options: ScheduleOptions): Promise<{ flowIds: string[]; sitesMs: number; flowsMs: number }> {
  const siteIds = Array.from({ length: options.sites }, (_, index) => `${SITE_PREFIX}${String(index).padStart(3, '0')}`);
  const sitesMs = await inParallel(siteIds.length, SITE_CONCURRENCY, (index) => createSite(base, siteIds[index]!));
  const admins = await siteAdmins(owner, siteIds);
  const flowIds: string[] = [];
  const flowsMs = await inParallel(options.flows, FLOW_CONCURRENCY, async (index) => {
    const admin = admins.get(siteIds[index % siteIds.length]!)!;
    const flow = await createFlow(context.commands, admin, scheduleFlow(index), `bench-schedule-flow-${index}`);
    if (!flow.nextRunAt) throw new Error(`schedule flow ${flow.id} has no nextRunAt`);
    flowIds.push(flow.id);
  });
  return { flowIds, sitesMs: Math.round(sitesMs), flowsMs: Math.round(flowsMs) };
}

async function dueTimes(owner: pg.Client): Promise<{ first: number; last: number; count: number }> {
  const { rows } = await owner.query<{ first: number; last: number; count: string }>(
    `SELECT extract(epoch FROM min(next_run_at)) * 1000 AS first, extract(epoch FROM max(next_run_at)) * 1000 AS last, count(*) AS count
       FROM flows WHERE status = 'active' AND trigger = 'schedule'`,
  );
  return { first: Number(rows[0]!.first), last: Number(rows[0]!.last), count: Number(rows[0]!.count) };
}

async function countDue(owner: pg.Client, now: Date): Promise<number> {
  const { rows } = await owner.query<{ n: string }>(`SELECT count(*) AS n FROM flows WHERE status = 'active' AND trigger = 'schedule' AND next_run_at <= $1`, [now]);
  return Number(rows[0]!.n);
}

/** EXPLAIN ANALYZE of svc_flow_due_schedules' query (PL/pgSQL: EXPLAIN of the call shows only a function scan), as the owner. */
async function explainDueSchedules(owner: pg.Client, now: Date): Promise<string[]> {
  const { rows } = await owner.query<{ prosrc: string }>(`SELECT prosrc FROM pg_proc WHERE proname = 'svc_flow_due_schedules'`);
  const body = /RETURN QUERY\s+([\s\S]+?);\s*END/i.exec(rows[0]?.prosrc ?? '')?.[1];
  if (!body) return ['(svc_flow_due_schedules: its RETURN QUERY was not found)'];
  const text = body.replace(/\bp_now\b/g, '$1::timestamptz').replace(/\bp_limit\b/g, '$2::integer');
  const plan = await owner.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${text}`, [now, 500]);
  return plan.rows.map((row) => row['QUERY PLAN']);
}

async function timeRuns(runs: number, work: () => Promise<unknown>): Promise<number[]> {
  for (let warm = 0; warm < WARM_UP_TICKS; warm += 1) await work();
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    await work();
    times.push(round2(performance.now() - started));
  }
  return times;
}

/** (a): the task and the whole tick while no flow is due. */
async function measureNoneDue(context: AppContext, owner: pg.Client, flowIds: string[], ticks: number): Promise<ScheduleOutcome['noneDue']> {
  const { first } = await dueTimes(owner);
  const nowSource = Date.now() < first - 5_000 ? 'clock' : 'before the first due time';
  // The clock while it is safely before the first due time (a tick takes a few ms), else a second before it.
  const now = () => new Date(Math.min(Date.now(), first - 1_000));
  const statementsBefore = context.database.stats.queries;
  await fireDueSchedules(context, now());
  const statementsPerTask = context.database.stats.queries - statementsBefore;
  const taskMs = await timeRuns(ticks, () => fireDueSchedules(context, now()));
  const scheduler = startScheduler(context, { intervalMs: 3_600_000, tasks: scheduledTasks.filter((task) => task.name === 'flows-schedule') });
  let tickMs: number[];
  try {
    tickMs = await timeRuns(ticks, () => scheduler.tick(now()));
  } finally {
    await scheduler.stop();
  }
  const fired = (await runCounts(owner, flowIds)).queued;
  return { nowSource, taskMs, tickMs, statementsPerTask, fired };
}

async function runsOf(owner: pg.Client, flowIds: string[]): Promise<{ runs: number; distinctFlows: number }> {
  const { rows } = await owner.query<{ runs: string; flows: string }>(`SELECT count(*) AS runs, count(DISTINCT flow_id) AS flows FROM flow_runs WHERE flow_id = ANY($1::uuid[])`, [
    flowIds,
  ]);
  return { runs: Number(rows[0]!.runs), distinctFlows: Number(rows[0]!.flows) };
}

async function executedBetween(owner: pg.Client, flowIds: string[], from: number, to: number): Promise<number> {
  const { rows } = await owner.query<{ n: string }>(
    `SELECT count(*) AS n FROM flow_runs WHERE flow_id = ANY($1::uuid[]) AND executing_at BETWEEN to_timestamp($2::float8 / 1000) AND to_timestamp($3::float8 / 1000)`,
    [flowIds, from, to],
  );
  return Number(rows[0]!.n);
}

/** From the first of the runs queued since `since` to begin executing to the last to finish. */
async function executionSpanMs(owner: pg.Client, flowIds: string[], since: number): Promise<number | null> {
  const { rows } = await owner.query<{ ms: number | null }>(
    `SELECT extract(epoch FROM max(finished_at) - min(executing_at)) * 1000 AS ms FROM flow_runs
      WHERE flow_id = ANY($1::uuid[]) AND started_at >= to_timestamp($2::float8 / 1000)`,
    [flowIds, since],
  );
  return rows[0]?.ms === null || rows[0]?.ms === undefined ? null : Number(rows[0].ms);
}

/** (b), one round: every flow due, one call of the task timed, what it did checked, its runs followed to the end. */
async function measureAllDue(context: AppContext, measure: Measure, flowIds: string[], round: number): Promise<DueTick> {
  const { owner } = measure;
  const now = new Date((await dueTimes(owner)).last + 1_000);
  const dueBefore = await countDue(owner, now);
  const before = await runsOf(owner, flowIds);
  const statementsBefore = context.database.stats.queries;
  const cpu = await cpuClock(measure);
  const startedAt = Date.now();
  const started = performance.now();
  await fireDueSchedules(context, now);
  const ms = round2(performance.now() - started);
  const endedAt = Date.now();
  const statements = context.database.stats.queries - statementsBefore;
  const { processMs, dbMs } = await cpu();
  const after = await runsOf(owner, flowIds);
  const stillDue = await countDue(owner, now);
  const executedDuringTick = await executedBetween(owner, flowIds, startedAt, endedAt);
  const wait = await waitForRuns(owner, flowIds, (counts) => counts.finished >= after.runs, DRAIN);
  const fresh = after.runs - before.runs;
  const spanMs = await executionSpanMs(owner, flowIds, startedAt);
  return {
    round,
    now: now.toISOString(),
    dueBefore,
    ms,
    perFlowMs: round2(ms / Math.max(1, dueBefore)),
    statements,
    processCpuMs: Math.round(processMs),
    dbCpuMs: dbMs,
    runsQueued: fresh,
    distinctFlows: after.distinctFlows,
    stillDue,
    executedDuringTick,
    drain: { ...wait, runsPerSecond: wait.reached && spanMs ? Math.round(fresh / (spanMs / 1000)) : null },
  };
}

/** Figure 2 on a started service: seed, (a), the plan, then `dueTicks` rounds of (b). */
export async function measureSchedulerTicks(context: AppContext, base: string, measure: Measure, options: ScheduleOptions, log: (line: string) => void): Promise<ScheduleOutcome> {
  const { owner } = measure;
  log(`creating ${options.sites} sites (POST /instance/sites) and ${thousands(options.flows)} schedule flows (flows.create, cron "${CRON}")…`);
  const seed = await seedScheduleFlows(context, base, owner, options);
  log(`   sites in ${(seed.sitesMs / 1000).toFixed(1)} s, flows in ${(seed.flowsMs / 1000).toFixed(1)} s`);
  // As autovacuum would after this many inserts: the planner sees the flows table as it is.
  await owner.query('ANALYZE flows');

  const noneDue = await measureNoneDue(context, owner, seed.flowIds, options.noneDueTicks);
  log(
    `   none due (${options.noneDueTicks} ticks, now = ${noneDue.nowSource}): task median ${median(noneDue.taskMs)} ms, max ${Math.max(...noneDue.taskMs)} ms; ` +
      `whole tick median ${median(noneDue.tickMs)} ms, max ${Math.max(...noneDue.tickMs)} ms; ${noneDue.statementsPerTask} statement(s); ${noneDue.fired} runs fired`,
  );
  const { first } = await dueTimes(owner);
  const explain = await explainDueSchedules(owner, new Date(Math.min(Date.now(), first - 1_000)));

  const allDue: DueTick[] = [];
  for (let round = 1; round <= options.dueTicks; round += 1) {
    const tick = await measureAllDue(context, measure, seed.flowIds, round);
    allDue.push(tick);
    log(
      `   all due, round ${round}: ${thousands(tick.dueBefore)} due, task ${thousands(tick.ms)} ms (${tick.perFlowMs} ms per flow, ${thousands(tick.statements)} statements, ` +
        `CPU ${tick.processCpuMs} + db ${tick.dbCpuMs ?? '?'} ms); ${thousands(tick.runsQueued)} runs queued for ${thousands(tick.distinctFlows)} flows, ${tick.stillDue} still due, ` +
        `${tick.executedDuringTick} executed during the tick; all finished ${tick.drain.reached ? `${(tick.drain.ms / 1000).toFixed(1)} s after it` : 'NOT within the wait'} ` +
        `(${tick.drain.counts.failed} failed)`,
    );
  }
  return { sites: options.sites, flows: options.flows, seedMs: { sites: seed.sitesMs, flows: seed.flowsMs }, noneDue, allDue, explain };
}
