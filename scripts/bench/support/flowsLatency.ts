// The flows bench's figure 1 (scripts/bench/flows.ts): one site, one collection (`schema.createCollection`
// through the registry), --flows active event flows on it (`flows.create`; a single `log` node, or a
// `transform`, alternately), and item writes at --rate per second for --seconds over HTTP
// (POST /items/<collection>, open-loop from a thread of its own: support/flowsLoad.ts). Each write's
// commit is taken as its event's `recorded_at` (stamped inside the transaction, so no later than the
// commit: the latency is, if anything, overstated) and, as a cross-check, the client's receipt of
// the 201 (after the commit: understated); each run's start is `flow_runs.executing_at`. The run
// history and the log are read with SQL once the runs have drained; nothing is written to them.
import type pg from 'pg';
import type { AppContext } from '../../../src/runtime/context.ts';
import { prepareSite } from './benchSite.ts';
import type { Measure } from './emailSend.ts';
import { startWriteLoad, type WriteRecord } from './flowsLoad.ts';
import { countPooledStatements, distribution, startProbe, thousands, type Distribution, type Probe } from './flowsProbe.ts';
import { asAdmin, createFlow, runCounts, siteAdmins, waitForRuns, type FlowBody, type RunCounts, type RunWait } from './flowsSites.ts';
import { waitForAsyncProjections, waitForFieldIndexes } from './readiness.ts';

export const LATENCY_SITE = 'flowlatency';
const COLLECTION = 'articles';
const WARM_UP = { rate: 10, seconds: 2 };
const PROGRESS_MS = 2_000;
/** Runs stop being waited for when none has started or finished for this long. */
const STALL_MS = 30_000;

export interface LatencyOptions {
  seconds: number;
  rate: number;
  flows: number;
  drainSeconds: number;
}

export interface LatencyOutcome {
  flows: { id: string; operation: string }[];
  warmUp: { writes: number; runs: number; ms: number };
  writes: {
    planned: number;
    accepted: number;
    failed: number;
    firstErrors: string[];
    /** Writes answered per second, first due time to last answer. */
    achievedRate: number;
    responseMs: Distribution;
    /** How late each write was sent after its due time (the writer's own timer). */
    sendLagMs: Distribution;
  };
  runs: { expected: number; queued: number; started: number; finished: number; failed: number };
  latency: {
    /** commit (event recorded_at) → run executing: THE figure; runs not started count as never. */
    fromRecordedAt: Distribution;
    /** client's 201 → run executing (the run may start before the answer arrives: negative). */
    fromResponse: Distribution;
    /** recorded_at → run queued (flow_runs.started_at): the reactor's part. */
    toQueued: Distribution;
    /** queued → executing: the job queue's and the worker's part. */
    queuedToExecuting: Distribution;
    /** executing → finished: the run itself (its node and the bookkeeping of its steps). */
    executingToFinished: Distribution;
  };
  throughput: { runsStartedPerSecond: number | null; runsStartedPerSecondWhileWriting: number | null; busiestSecond: number; timeline: number[] };
  drain: RunWait;
  probe: Probe;
  /** Milliseconds the writer's thread was busy: its share of the process CPU. */
  writerBusyMs: number;
  events: { type: string; count: number }[];
  steps: { operation: string; count: number; meanMs: number; p99Ms: number }[];
  /** Events the slowest async read model was behind when the runs had drained. */
  asyncBacklog: number;
}

const eventFlow = (index: number): FlowBody => ({
  name: `On ${COLLECTION} ${index}`,
  status: 'active',
  trigger: 'event',
  triggerOptions: { collection: COLLECTION, action: 'create' },
  graph: {
    nodes: [
      index % 2 === 0
        ? { id: 'log', operation: 'log', options: { message: 'item {{ $trigger.itemId }} created in {{ $trigger.collection }}' } }
        : { id: 'shape', operation: 'transform', options: { expression: '{ "id": $trigger.itemId, "title": $trigger.item.title }' } },
    ],
    edges: [],
  },
});

interface RunRow {
  item_id: string;
  recorded_ms: number;
  queued_ms: number | null;
  executing_ms: number | null;
  finished_ms: number | null;
}

/** The measured writes' events and their runs, from the log and the run history. */
async function readRuns(owner: pg.Client, flowIds: string[], itemIds: string[]): Promise<RunRow[]> {
  const { rows } = await owner.query<RunRow>(
    `SELECT e.data->>'itemId' AS item_id,
            extract(epoch FROM e.recorded_at)::float8 * 1000 AS recorded_ms,
            extract(epoch FROM r.started_at)::float8 * 1000 AS queued_ms,
            extract(epoch FROM r.executing_at)::float8 * 1000 AS executing_ms,
            extract(epoch FROM r.finished_at)::float8 * 1000 AS finished_ms
       FROM events e
       LEFT JOIN flow_runs r ON r.site_id = e.site_id AND r.flow_id = ANY($3::uuid[]) AND r.input->>'eventId' = e.event_id::text
      WHERE e.site_id = $1 AND e.type = 'item.created' AND e.data->>'itemId' = ANY($2::text[])`,
    [LATENCY_SITE, itemIds, flowIds],
  );
  return rows;
}

function latencies(rows: RunRow[], writes: WriteRecord[], flows: number): LatencyOutcome['latency'] {
  const answeredAt = new Map(writes.map((write) => [write.itemId, write.answeredAt]));
  const byItem = new Map<string, RunRow[]>();
  for (const row of rows) byItem.set(row.item_id, [...(byItem.get(row.item_id) ?? []), row]);
  const fromRecordedAt: number[] = [];
  const fromResponse: number[] = [];
  const toQueued: number[] = [];
  const queuedToExecuting: number[] = [];
  const executingToFinished: number[] = [];
  for (const write of writes) {
    if (write.itemId === null) continue;
    const started = (byItem.get(write.itemId) ?? []).filter((row) => row.executing_ms !== null);
    for (const row of byItem.get(write.itemId) ?? []) if (row.queued_ms !== null) toQueued.push(row.queued_ms - row.recorded_ms);
    for (const row of started) {
      fromRecordedAt.push(row.executing_ms! - row.recorded_ms);
      fromResponse.push(row.executing_ms! - answeredAt.get(write.itemId)!);
      queuedToExecuting.push(row.executing_ms! - row.queued_ms!);
      if (row.finished_ms !== null) executingToFinished.push(row.finished_ms - row.executing_ms!);
    }
    // A run that never started is as late as can be: it counts, as never.
    for (let missing = started.length; missing < flows; missing += 1) {
      fromRecordedAt.push(Number.POSITIVE_INFINITY);
      fromResponse.push(Number.POSITIVE_INFINITY);
    }
  }
  return {
    fromRecordedAt: distribution(fromRecordedAt),
    fromResponse: distribution(fromResponse),
    toQueued: distribution(toQueued),
    queuedToExecuting: distribution(queuedToExecuting),
    executingToFinished: distribution(executingToFinished),
  };
}

function throughputOf(rows: RunRow[], writes: WriteRecord[]): LatencyOutcome['throughput'] {
  const starts = rows.map((row) => row.executing_ms).filter((ms): ms is number => ms !== null);
  if (starts.length === 0) return { runsStartedPerSecond: null, runsStartedPerSecondWhileWriting: null, busiestSecond: 0, timeline: [] };
  const first = Math.min(...starts);
  const last = Math.max(...starts);
  const timeline = Array.from({ length: Math.floor((last - first) / 1000) + 1 }, () => 0);
  for (const ms of starts) timeline[Math.floor((ms - first) / 1000)]! += 1;
  const writingFrom = Math.min(...writes.map((write) => write.sentAt));
  const writingTo = Math.max(...writes.map((write) => write.answeredAt));
  const whileWriting = starts.filter((ms) => ms >= writingFrom && ms <= writingTo).length;
  return {
    runsStartedPerSecond: last > first ? Math.round(starts.length / ((last - first) / 1000)) : null,
    runsStartedPerSecondWhileWriting: Math.round(whileWriting / ((writingTo - writingFrom) / 1000)),
    busiestSecond: Math.max(...timeline),
    timeline,
  };
}

function writeFigures(writes: WriteRecord[], planned: number): LatencyOutcome['writes'] {
  const accepted = writes.filter((write) => write.status === 201);
  const first = Math.min(...writes.map((write) => write.dueAt));
  const last = Math.max(...writes.map((write) => write.answeredAt));
  return {
    planned,
    accepted: accepted.length,
    failed: writes.length - accepted.length,
    firstErrors: [...new Set(writes.filter((write) => write.status !== 201).map((write) => `${write.status} ${write.error ?? ''}`.trim()))].slice(0, 3),
    achievedRate: Math.round((writes.length / ((last - first) / 1000)) * 10) / 10,
    responseMs: distribution(writes.map((write) => write.answeredAt - write.sentAt)),
    sendLagMs: distribution(writes.map((write) => write.sentAt - write.dueAt)),
  };
}

async function eventsSince(owner: pg.Client, position: number): Promise<{ type: string; count: number }[]> {
  const { rows } = await owner.query<{ type: string; count: string }>(`SELECT type, count(*) AS count FROM events WHERE position > $1 GROUP BY type ORDER BY count(*) DESC`, [position]);
  return rows.map((row) => ({ type: row.type, count: Number(row.count) }));
}

async function stepFigures(owner: pg.Client, flowIds: string[], since: number): Promise<LatencyOutcome['steps']> {
  const { rows } = await owner.query<{ operation: string; count: string; mean: number; p99: number }>(
    `SELECT s.operation, count(*) AS count, avg(s.duration_ms)::float8 AS mean, percentile_cont(0.99) WITHIN GROUP (ORDER BY s.duration_ms)::float8 AS p99
       FROM flow_run_steps s JOIN flow_runs r ON r.site_id = s.site_id AND r.id = s.run_id
      WHERE r.site_id = $1 AND r.flow_id = ANY($2::uuid[]) AND r.started_at >= to_timestamp($3::float8 / 1000)
      GROUP BY s.operation ORDER BY s.operation`,
    [LATENCY_SITE, flowIds, since],
  );
  return rows.map((row) => ({ operation: row.operation, count: Number(row.count), meanMs: Math.round(row.mean * 100) / 100, p99Ms: Math.round(row.p99 * 100) / 100 }));
}

async function asyncBacklog(owner: pg.Client): Promise<number> {
  const { rows } = await owner.query<{ behind: string }>(`
    SELECT count(*) AS behind FROM events e, (SELECT tx_id, position FROM projection_checkpoints ORDER BY tx_id, position LIMIT 1) c
     WHERE (e.tx_id, e.position) > (c.tx_id, c.position)`);
  return Number(rows[0]?.behind ?? 0);
}

const since = (counts: RunCounts, base: RunCounts): RunCounts => ({
  queued: counts.queued - base.queued,
  started: counts.started - base.started,
  finished: counts.finished - base.finished,
  failed: counts.failed - base.failed,
});

/** Figure 1 on a started service; `pooled` is the statement counter installed at start. */
export async function measureEventLatency(
  service: { context: AppContext; base: string },
  measure: Measure,
  pooled: ReturnType<typeof countPooledStatements>,
  options: LatencyOptions,
  log: (line: string) => void,
): Promise<LatencyOutcome> {
  const { context, base } = service;
  const { owner } = measure;
  const { token } = await prepareSite(base, LATENCY_SITE, false);
  const admin = (await siteAdmins(owner, [LATENCY_SITE])).get(LATENCY_SITE)!;
  const fields = [
    { field: 'title', type: 'string' },
    { field: 'rating', type: 'integer' },
  ];
  await context.commands.run('schema.createCollection', { name: COLLECTION, fields }, asAdmin(admin, 'bench-collection'));
  const flows: LatencyOutcome['flows'] = [];
  for (let index = 0; index < options.flows; index += 1) {
    const body = eventFlow(index);
    flows.push({ id: (await createFlow(context.commands, admin, body, `bench-event-flow-${index}`)).id, operation: body.graph.nodes[0]!.operation });
  }
  const flowIds = flows.map((flow) => flow.id);
  await waitForFieldIndexes(owner, LATENCY_SITE);

  // A short load first: the schema cache, prepared statements, JIT and connections warm up outside the figures.
  const warmStarted = performance.now();
  const warm = await startWriteLoad({ base, token, siteId: LATENCY_SITE, collection: COLLECTION, ...WARM_UP, label: 'warm-up' }).done;
  const warmRuns = await waitForRuns(owner, flowIds, (counts) => counts.finished >= warm.length * options.flows, { deadlineMs: 300_000, stallMs: STALL_MS });
  if (!warmRuns.reached) throw new Error(`the warm-up's runs did not finish: ${JSON.stringify(warmRuns.counts)}`);
  const warmUp = { writes: warm.length, runs: warmRuns.counts.finished, ms: Math.round(performance.now() - warmStarted) };
  log(`   warm-up: ${warm.length} writes, their ${warmRuns.counts.finished} runs finished in ${(warmUp.ms / 1000).toFixed(1)} s`);
  await waitForAsyncProjections(owner, { quiet: true });

  const base0 = await runCounts(owner, flowIds);
  const position = Number((await owner.query<{ max: string | null }>('SELECT max(position) AS max FROM events')).rows[0]?.max ?? 0);
  const planned = Math.round(options.rate * options.seconds);
  log(`   writing ${thousands(planned)} items at ${options.rate}/s for ${options.seconds} s (expecting ${thousands(planned * options.flows)} runs)…`);
  const closeProbe = await startProbe(context.database, pooled, measure);
  const loadStartedAt = Date.now();
  const load = startWriteLoad({ base, token, siteId: LATENCY_SITE, collection: COLLECTION, rate: options.rate, seconds: options.seconds, label: 'measured' });
  const progressLine = (counts: RunCounts) => {
    const runs = since(counts, base0);
    const writes = load.progress();
    log(
      `  ${((Date.now() - loadStartedAt) / 1000).toFixed(1).padStart(6)} s  writes sent ${thousands(writes.sent).padStart(5)} answered ${thousands(writes.answered).padStart(5)}` +
        `${writes.failed > 0 ? ` (${writes.failed} failed)` : ''}  runs queued ${thousands(runs.queued).padStart(6)} started ${thousands(runs.started).padStart(6)} ` +
        `finished ${thousands(runs.finished).padStart(6)}`,
    );
  };
  const progress = setInterval(() => void runCounts(owner, flowIds).then(progressLine, () => undefined), PROGRESS_MS);
  let writes: WriteRecord[];
  try {
    writes = await load.done;
  } finally {
    clearInterval(progress);
  }
  const expected = writes.filter((write) => write.status === 201).length * options.flows;
  let polls = 0;
  const drain = await waitForRuns(owner, flowIds, (counts) => since(counts, base0).finished >= expected, { deadlineMs: options.drainSeconds * 1000, stallMs: STALL_MS }, (counts) => {
    if (polls++ % (PROGRESS_MS / 500) === 0) progressLine(counts);
  });
  const probe = await closeProbe();
  const backlog = await asyncBacklog(owner);

  const itemIds = writes.map((write) => write.itemId).filter((id): id is string => id !== null);
  const rows = await readRuns(owner, flowIds, itemIds);
  const counts = since(drain.counts, base0);
  return {
    flows,
    warmUp,
    writes: writeFigures(writes, planned),
    runs: { expected, queued: counts.queued, started: counts.started, finished: counts.finished, failed: counts.failed },
    latency: latencies(rows, writes, options.flows),
    throughput: throughputOf(rows, writes),
    drain: { ...drain, counts },
    probe,
    writerBusyMs: load.busyMs(),
    events: await eventsSince(owner, position),
    steps: await stepFigures(owner, flowIds, loadStartedAt),
    asyncBacklog: backlog,
  };
}
