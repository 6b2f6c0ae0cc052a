// Releases at size, on the service started in this process (createContext + buildServer over a
// scratch database of DATABASE_URL's server; the scheduler's own tick is off, the projection daemon
// runs). Per round, fresh draft articles (bulk POST /items/articles) go into an all_or_nothing and a
// best_effort release, and each `POST /releases/:id/publish` is timed over HTTP, with the statements
// the process sent, its CPU and the CPU of the scratch database's backends over the same request
// (where the time goes). Then 10,000 releases of one item each, scheduled a day ahead across several
// sites, and the scheduler's release task (publishDueReleases) timed on the service's context while
// none is due, with EXPLAIN ANALYZE of the due-releases query (svc_due_releases). Budgets: publish of 1,000 items
// < 2 s (all_or_nothing) and < 3 s (best_effort), a tick over 10,000 releases not due < 20 ms.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createContext } from '../../src/boot/boot.ts';
import { scheduledTasks, startScheduler } from '../../src/boot/scheduler.ts';
import { loadConfig } from '../../src/config/config.ts';
import { publishDueReleases } from '../../src/modules/releases/scheduledReleases.ts';
import { buildServer } from '../../src/server/app.ts';
import { inProcessBenchEnvironment } from './support/benchService.ts';
import { prepareSite } from './support/benchSite.ts';
import { positiveInteger } from './support/options.ts';
import { waitForAsyncProjections } from './support/readiness.ts';
import { createScratchDatabase, scratchServerUrl } from './support/scratchDatabase.ts';

const usage = `usage: npm run bench -- releases [--items 1000] [--rounds 3] [--scheduled 10000] [--ticks 50]
  --items      items per release (fresh draft articles for each release)
  --rounds     rounds of one all_or_nothing and one best_effort publish; figures are the median and the worst
  --scheduled  releases scheduled a day ahead (none due) when the scheduler's release task is timed
  --ticks      timed runs of the release task (median and p95)`;

const BUDGET_MS = { allOrNothing: 2_000, bestEffort: 3_000, tick: 20 };
const MODES = ['all_or_nothing', 'best_effort'] as const;
type Mode = (typeof MODES)[number];
/** Sites the scheduled releases are spread over, one creating worker each. */
const SCHEDULED_SITES = 4;
const BULK_MAX = 2_000;
const DAY_MS = 86_400_000;
/** Linux clock ticks per second (getconf CLK_TCK): the unit of /proc/<pid>/stat's CPU times. */
const CLOCK_TICKS = 100;

interface Api {
  call<T = { data: Record<string, unknown> }>(method: string, path: string, body?: unknown): Promise<T>;
}

function api(base: string, siteId: string, token: string): Api {
  return {
    async call<T>(method: string, path: string, body?: unknown) {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'x-svc-site': siteId, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 2_000)}`);
      return (text ? JSON.parse(text) : null) as T;
    },
  };
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => sorted(values)[Math.floor((values.length - 1) / 2)]!;
const percentile = (values: number[], p: number) => sorted(values)[Math.max(0, Math.ceil((p / 100) * values.length) - 1)]!;
const round2 = (value: number) => Math.round(value * 100) / 100;

/** CPU milliseconds each backend of `database` has used so far (null where /proc cannot be read: PostgreSQL on another host). */
async function backendCpu(owner: pg.Client, database: string): Promise<Map<number, number> | null> {
  const { rows } = await owner.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
  const usage = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // After the command: state is field 3, utime 14 and stime 15 (1-based, man proc).
      usage.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS);
    } catch {
      return null;
    }
  }
  return usage;
}

function cpuSpent(before: Map<number, number> | null, after: Map<number, number> | null): number | null {
  if (!before || !after) return null;
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return Math.round(total);
}

interface PublishFigure {
  mode: Mode;
  round: number;
  ms: number;
  statements: number;
  nodeCpuMs: number;
  dbCpuMs: number | null;
  setupMs: { items: number; release: number };
  asyncCatchUpMs: number;
}

interface Bench {
  base: string;
  owner: pg.Client;
  databaseName: string;
  stats: { queries: number };
}

/** Fresh draft articles, a release of them all to `published`, and its publish timed over HTTP. */
async function measurePublish(bench: Bench, site: Api, mode: Mode, items: number, round: number): Promise<PublishFigure> {
  const itemsStarted = performance.now();
  const ids: string[] = [];
  for (let from = 0; from < items; from += BULK_MAX) {
    const bodies = Array.from({ length: Math.min(BULK_MAX, items - from) }, (_, index) => ({
      title: `Release ${round} ${mode} article ${from + index}`,
      summary: `Draft ${from + index} of round ${round}, published by a ${mode} release.`,
      status: 'draft',
    }));
    const created = await site.call<{ data: { id: string }[] }>('POST', '/items/articles', bodies);
    ids.push(...created.data.map((item) => item.id));
  }
  const itemsMs = performance.now() - itemsStarted;
  const releaseStarted = performance.now();
  const release = await site.call<{ data: { id: string; itemCount: number } }>('POST', '/releases', {
    name: `Round ${round} ${mode}`,
    atomicityMode: mode,
    addItems: ids.map((itemId) => ({ collection: 'articles', itemId, targetStatus: 'published' })),
  });
  const releaseMs = performance.now() - releaseStarted;
  if (release.data.itemCount !== items) throw new Error(`the release holds ${release.data.itemCount} items, not ${items}`);
  // The read models catch up first: the publish is measured in a quiet process.
  await waitForAsyncProjections(bench.owner, { quiet: true });

  const statementsBefore = bench.stats.queries;
  const dbBefore = await backendCpu(bench.owner, bench.databaseName);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const published = await site.call<{ data: { status: string; outcomes: { outcome: string }[] } }>('POST', `/releases/${release.data.id}/publish`);
  const ms = Math.round(performance.now() - started);
  const cpu = process.cpuUsage(cpuBefore);
  const statements = bench.stats.queries - statementsBefore;
  const dbCpuMs = cpuSpent(dbBefore, await backendCpu(bench.owner, bench.databaseName));
  if (published.data.status !== 'published') throw new Error(`the ${mode} publish answered status ${published.data.status}`);
  const outcomes = published.data.outcomes;
  if (outcomes.length !== items || outcomes.some((outcome) => outcome.outcome !== 'published')) {
    throw new Error(`the ${mode} publish answered ${outcomes.length} outcomes, ${outcomes.filter((o) => o.outcome === 'published').length} published (expected ${items})`);
  }
  const asyncCatchUpMs = Math.round(await waitForAsyncProjections(bench.owner, { quiet: true }));
  return {
    mode,
    round,
    ms,
    statements,
    nodeCpuMs: Math.round((cpu.user + cpu.system) / 1000),
    dbCpuMs,
    setupMs: { items: Math.round(itemsMs), release: Math.round(releaseMs) },
    asyncCatchUpMs,
  };
}

/** Articles the scheduled releases of a site take, one each in turn (a release without items is never due). */
const ITEMS_PER_SCHEDULING_SITE = 100;

/** `count` releases of one item with publishAt a day ahead, spread over the sites, one worker per site. */
async function scheduleReleases(sites: Api[], count: number): Promise<number> {
  const itemsOf = await Promise.all(
    sites.map(async (site) => {
      const bodies = Array.from({ length: ITEMS_PER_SCHEDULING_SITE }, (_, index) => ({ title: `Scheduled article ${index}`, status: 'draft' }));
      return (await site.call<{ data: { id: string }[] }>('POST', '/items/articles', bodies)).data.map((item) => item.id);
    }),
  );
  const started = performance.now();
  const publishAt = new Date(Date.now() + DAY_MS);
  await Promise.all(
    sites.map(async (site, worker) => {
      for (let index = worker; index < count; index += sites.length) {
        // Spread over an hour, so that the index holds distinct keys as it would in use.
        const at = new Date(publishAt.getTime() + (index % 3_600) * 1_000).toISOString();
        const itemId = itemsOf[worker]![index % ITEMS_PER_SCHEDULING_SITE]!;
        await site.call('POST', '/releases', { name: `Scheduled ${index}`, publishAt: at, addItems: [{ collection: 'articles', itemId, targetStatus: 'published' }] });
      }
    }),
  );
  return Math.round(performance.now() - started);
}

async function createArticles(site: Api): Promise<void> {
  await site.call('POST', '/collections', {
    name: 'articles',
    fields: [
      { field: 'title', type: 'string' },
      { field: 'summary', type: 'text' },
    ],
  });
}

/** EXPLAIN ANALYZE of svc_due_releases' query (PL/pgSQL: EXPLAIN of the call shows only a function scan), with bound values and as a generic plan. */
async function explainDueReleases(owner: pg.Client, now: Date): Promise<{ custom: string[]; generic: string[] }> {
  const { rows } = await owner.query<{ prosrc: string }>(`SELECT prosrc FROM pg_proc WHERE proname = 'svc_due_releases'`);
  const body = /RETURN QUERY\s+([\s\S]+?);\s*END/i.exec(rows[0]?.prosrc ?? '')?.[1];
  if (!body) throw new Error('svc_due_releases: its RETURN QUERY was not found');
  const text = body
    .replace(/\bp_after_publish_at\b/g, '$3::timestamptz')
    .replace(/\bp_after_site\b/g, '$4::text')
    .replace(/\bp_after_id\b/g, '$5::uuid')
    .replace(/\bp_now\b/g, '$1::timestamptz')
    .replace(/\bp_limit\b/g, '$2::integer');
  const plan = (result: pg.QueryResult<{ 'QUERY PLAN': string }>) => result.rows.map((row) => row['QUERY PLAN']);
  const custom = plan(await owner.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${text}`, [now, 100, null, null, null]));
  // PL/pgSQL keeps a plan per connection: after five runs, the generic one if it costs no more.
  await owner.query(`PREPARE bench_due_releases(timestamptz, integer, timestamptz, text, uuid) AS ${text}`);
  try {
    await owner.query('SET plan_cache_mode = force_generic_plan');
    const generic = plan(await owner.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE bench_due_releases('${now.toISOString()}', 100, NULL, NULL, NULL)`));
    return { custom, generic };
  } finally {
    await owner.query('RESET plan_cache_mode');
    await owner.query('DEALLOCATE bench_due_releases');
  }
}

async function timeRuns(runs: number, work: () => Promise<void>): Promise<number[]> {
  for (let warm = 0; warm < 5; warm += 1) await work();
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return times;
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      items: { type: 'string', default: '1000' },
      rounds: { type: 'string', default: '3' },
      scheduled: { type: 'string', default: '10000' },
      ticks: { type: 'string', default: '50' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const items = positiveInteger(values.items, 'items', usage);
  const rounds = positiveInteger(values.rounds, 'rounds', usage);
  const scheduled = positiveInteger(values.scheduled, 'scheduled', usage);
  const ticks = positiveInteger(values.ticks, 'ticks', usage);

  const scratch = await createScratchDatabase(scratchServerUrl(), `svc_bench_releases_${Date.now().toString(36)}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-releases-'));
  const owner = new pg.Client({ connectionString: scratch.url });
  let context: Awaited<ReturnType<typeof createContext>> | undefined;
  let server: Awaited<ReturnType<typeof buildServer>> | undefined;
  const publishes: PublishFigure[] = [];
  let scheduling: { releases: number; sites: number; createMs: number };
  let tick: { taskMs: number[]; tickMs: number[]; statementsPerTask: number; stillScheduled: number };
  let explain: { custom: string[]; generic: string[] };
  try {
    // The bench runs the release task itself; a background tick would run it in between.
    const config = loadConfig(inProcessBenchEnvironment(scratch.url, dataDir, { SVC_SCHEDULER_TICK_MS: '3600000' }));
    context = await createContext(config);
    server = await buildServer(context);
    const base = `${await server.listen({ host: '127.0.0.1', port: 0 })}/api/v1`;
    await owner.connect();
    const bench: Bench = { base, owner, databaseName: scratch.name, stats: context.database.stats };

    const siteId = 'releasebench';
    const site = api(base, siteId, (await prepareSite(base, siteId, false)).token);
    await createArticles(site);
    // A small release first: the schema cache, prepared statements and JIT warm up outside the figures.
    const warmUp = await measurePublish(bench, site, 'all_or_nothing', 10, 0);
    console.log(`warm-up: a release of 10 items published in ${warmUp.ms} ms`);
    console.log(`publishing releases of ${items} draft articles to published, ${rounds} rounds:`);
    for (let round = 1; round <= rounds; round += 1) {
      for (const mode of MODES) {
        const figure = await measurePublish(bench, site, mode, items, round);
        publishes.push(figure);
        console.log(
          `round ${round} ${mode.padEnd(14)} ${String(figure.ms).padStart(5)} ms  ${figure.statements} statements (${(figure.statements / items).toFixed(1)} per item), node CPU ${figure.nodeCpuMs} ms, ` +
            `db CPU ${figure.dbCpuMs ?? '?'} ms (items created in ${figure.setupMs.items} ms, release in ${figure.setupMs.release} ms, ` +
            `async read models caught up ${figure.asyncCatchUpMs} ms after)`,
        );
      }
    }

    const sites = [site];
    for (let index = 1; index < SCHEDULED_SITES; index += 1) {
      const other = `releasebench${index}`;
      sites.push(api(base, other, (await prepareSite(base, other, false)).token));
      await createArticles(sites.at(-1)!);
    }
    console.log(`scheduling ${scheduled} releases of one item a day ahead over ${sites.length} sites…`);
    const createMs = await scheduleReleases(sites, scheduled);
    scheduling = { releases: scheduled, sites: sites.length, createMs };
    console.log(`scheduled in ${(createMs / 1000).toFixed(1)} s (${Math.round(scheduled / (createMs / 1000))} releases/s)`);
    await waitForAsyncProjections(owner, { quiet: true });
    // As autovacuum would after this many inserts: the planner sees the table as it is.
    await owner.query('ANALYZE releases');
    const countScheduled = async () =>
      Number((await owner.query<{ n: string }>(`SELECT count(*) AS n FROM releases WHERE status = 'scheduled'`)).rows[0]!.n);
    const scheduledBefore = await countScheduled();
    if (scheduledBefore !== scheduled) throw new Error(`${scheduledBefore} releases are scheduled, not ${scheduled}`);

    const appContext = context;
    const signal = new AbortController().signal;
    const statementsBefore = appContext.database.stats.queries;
    await publishDueReleases(appContext, new Date(), signal);
    const statementsPerTask = appContext.database.stats.queries - statementsBefore;
    const taskMs = await timeRuns(ticks, () => publishDueReleases(appContext, new Date(), signal));
    // The whole tick of the release task as the scheduler runs it: a pooled connection, its advisory lock, the task.
    const scheduler = startScheduler(appContext, { intervalMs: 3_600_000, tasks: scheduledTasks.filter((task) => task.name === 'releases') });
    let tickMs: number[];
    try {
      tickMs = await timeRuns(ticks, () => scheduler.tick(new Date()));
    } finally {
      await scheduler.stop();
    }
    const stillScheduled = await countScheduled();
    if (stillScheduled !== scheduled) throw new Error(`the ticks changed releases: ${stillScheduled} scheduled, not ${scheduled}`);
    tick = { taskMs, tickMs, statementsPerTask, stillScheduled };
    explain = await explainDueReleases(owner, new Date());
  } finally {
    await server?.close();
    await context?.close();
    await owner.end().catch(() => undefined);
    await scratch.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  console.log(`\nEXPLAIN ANALYZE of svc_due_releases' query over ${scheduled} scheduled releases, none due (as the owner, with bound values):`);
  for (const line of explain.custom) console.log(`  ${line}`);
  console.log('the same as a generic plan (what PL/pgSQL may keep for the connection):');
  for (const line of explain.generic) console.log(`  ${line}`);
  for (const [kind, lines] of Object.entries(explain)) {
    if (!lines.some((line) => /releases_due/.test(line))) console.log(`WARNING: the ${kind} plan does not use the index releases_due`);
  }

  const figure = (mode: Mode) => {
    const of = publishes.filter((publish) => publish.mode === mode);
    const pick = (key: 'ms' | 'statements' | 'nodeCpuMs') => of.map((publish) => publish[key]);
    const db = of.map((publish) => publish.dbCpuMs).filter((ms): ms is number => ms !== null);
    return {
      medianMs: median(pick('ms')),
      worstMs: Math.max(...pick('ms')),
      statementsMedian: median(pick('statements')),
      nodeCpuMsMedian: median(pick('nodeCpuMs')),
      dbCpuMsMedian: db.length > 0 ? median(db) : null,
    };
  };
  const figures = {
    allOrNothing: figure('all_or_nothing'),
    bestEffort: figure('best_effort'),
    releaseTask: { medianMs: round2(median(tick.taskMs)), p95Ms: round2(percentile(tick.taskMs, 95)), worstMs: round2(Math.max(...tick.taskMs)) },
    schedulerTick: { medianMs: round2(median(tick.tickMs)), p95Ms: round2(percentile(tick.tickMs, 95)), worstMs: round2(Math.max(...tick.tickMs)) },
  };
  const verdict = (ms: number, budget: number) => `${ms <= budget ? 'ok' : 'OVER BUDGET'} (budget ${budget >= 1000 ? `${budget / 1000} s` : `${budget} ms`})`;
  const cell = (value: number) => `${String(value).padStart(7)} ms`;
  console.log(`\n${items}-item publish over HTTP        median      worst   statements  node CPU   db CPU   (median)`);
  for (const [label, key, budget] of [
    ['all_or_nothing', 'allOrNothing', BUDGET_MS.allOrNothing],
    ['best_effort', 'bestEffort', BUDGET_MS.bestEffort],
  ] as const) {
    const f = figures[key];
    console.log(
      `${label.padEnd(32)} ${cell(f.medianMs)} ${cell(f.worstMs)}   ${String(f.statementsMedian).padStart(9)}  ${cell(f.nodeCpuMsMedian)} ` +
        `${f.dbCpuMsMedian === null ? '      ?' : cell(f.dbCpuMsMedian)}   ${verdict(f.worstMs, budget)}`,
    );
  }
  console.log(`\nrelease task, ${scheduled} scheduled, none due    median        p95      worst`);
  console.log(
    `publishDueReleases (${ticks} runs)         ${cell(figures.releaseTask.medianMs)} ${cell(figures.releaseTask.p95Ms)} ${cell(figures.releaseTask.worstMs)}   ` +
      `${tick.statementsPerTask} statement(s)  ${verdict(figures.releaseTask.p95Ms, BUDGET_MS.tick)}`,
  );
  console.log(
    `scheduler tick, lock + task (${ticks} runs) ${cell(figures.schedulerTick.medianMs)} ${cell(figures.schedulerTick.p95Ms)} ${cell(figures.schedulerTick.worstMs)}   ` +
      `${verdict(figures.schedulerTick.p95Ms, BUDGET_MS.tick)}`,
  );
  console.log('(statements: all the process sent during the request, the projection daemon\'s included; node CPU: this process, service and client; db CPU: the scratch database\'s backends)');

  const report = {
    benchmark: 'releases',
    at: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
    options: { items, rounds, scheduled, ticks },
    budgetsMs: BUDGET_MS,
    figures,
    publishes,
    scheduling,
    releaseTask: { statementsPerRun: tick.statementsPerTask, runsMs: tick.taskMs.map(round2), tickRunsMs: tick.tickMs.map(round2) },
    explain,
  };
  mkdirSync('bench-results', { recursive: true });
  const file = join('bench-results', `releases-${report.at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`results written to ${file}`);
}
