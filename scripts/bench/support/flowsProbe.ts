// Where the flows bench's time goes (scripts/bench/flows.ts): over a measured window, the CPU of this
// process and of the scratch database's backends, the statements the service sent (all of them, and
// those of the PostgreSQL job queue apart, with the time each took from the pool's point of view),
// how long statements waited for a pooled connection, the service's event loop delay, the job queue
// table's row churn and the transactions committed as PostgreSQL counts them, and the whole
// machine's CPU (other work on the host shares the 2 cores). Nothing here changes what the service does: the
// statement counter wraps `database.query` (the queue's, the reactor's and the dispatcher's single
// statements) and forwards each call unchanged.
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type pg from 'pg';
import type { Database } from '../../../infra/postgres/database.ts';
import type { SqlQuery } from '../../../infra/postgres/sql.ts';
import { cpuClock, type Measure } from './emailSend.ts';

const POOL_SAMPLE_MS = 50;
const DELAY_RESOLUTION_MS = 10;

export interface StatementTally {
  count: number;
  /** Milliseconds from the call to its rows, a pooled connection's wait included. */
  ms: number;
}

export interface QueueTableChurn {
  inserted: number;
  updated: number;
  deleted: number;
  /** Dead rows left when the window closed (autovacuum's backlog on a hot queue table). */
  deadRows: number;
}

export interface Probe {
  /** Every statement the service sent (pooled and in transactions). */
  statements: number;
  /** Those of the PostgreSQL-backed job queue, all single pooled statements: their sum. */
  queueStatements: StatementTally;
  /**
   * The single pooled statements by kind: the queue's (`queue enqueue`, `queue claim`, `queue settle`,
   * `queue release`, `queue next due`), the flows reactor's and dispatcher's, and the rest.
   */
  pooledStatements: Record<string, StatementTally>;
  processCpuMs: number;
  dbCpuMs: number | null;
  /** Requests waiting for a pooled connection, sampled every 50 ms. */
  poolWaiting: { mean: number; max: number };
  /** The main thread's event loop delay (the service's), in milliseconds. */
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  queueTable: QueueTableChurn | null;
  /** Transactions committed in the scratch database (pg_stat_database), every session's. */
  commits: number | null;
  /** The whole machine's CPU busy over the window (/proc/stat: everything, other work on the host included), in % of all cores. */
  machineBusyPercent: number | null;
  wallMs: number;
}

/** What a single pooled statement is, from its text: the job queue's by what it does, the flows runtime's, the rest. */
function statementKind(text: string): string {
  if (text.includes('job_queue')) {
    if (/^\s*INSERT/i.test(text)) return 'queue enqueue';
    if (/^\s*DELETE/i.test(text)) return 'queue settle';
    if (/^\s*SELECT/i.test(text)) return 'queue next due';
    return text.includes('locked_by = NULL') ? 'queue release' : 'queue claim';
  }
  if (text.includes('flow_trigger_cursor')) return 'reactor cursor';
  if (text.includes('svc_flow_event_flows')) return 'reactor event flows';
  if (text.includes('svc_flow_runs_in_state')) return 'dispatcher';
  return 'other';
}

type Tallies = Map<string, StatementTally>;

/**
 * Wraps `database.query` for the life of the bench: a tally per kind of statement. The queue and the
 * flows reactor call it through the same object, so they are counted from the next call on.
 */
export function countPooledStatements(database: Database): { snapshot(): Tallies } {
  const tallies: Tallies = new Map();
  const original = database.query.bind(database);
  database.query = async <Row extends object>(query: SqlQuery): Promise<Row[]> => {
    const kind = statementKind(query.text);
    const started = performance.now();
    try {
      return await original<Row>(query);
    } finally {
      const tally = tallies.get(kind) ?? { count: 0, ms: 0 };
      tallies.set(kind, { count: tally.count + 1, ms: tally.ms + performance.now() - started });
    }
  };
  return { snapshot: () => new Map(tallies) };
}

async function queueTableChurn(owner: pg.Client): Promise<QueueTableChurn | null> {
  const { rows } = await owner.query<{ ins: string; upd: string; del: string; dead: string }>(
    `SELECT n_tup_ins AS ins, n_tup_upd AS upd, n_tup_del AS del, n_dead_tup AS dead FROM pg_stat_user_tables WHERE relname = 'job_queue'`,
  );
  const row = rows[0];
  return row ? { inserted: Number(row.ins), updated: Number(row.upd), deleted: Number(row.del), deadRows: Number(row.dead) } : null;
}

async function commitsOf(owner: pg.Client, database: string): Promise<number | null> {
  const { rows } = await owner.query<{ commits: string }>('SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = $1', [database]);
  return rows[0] ? Number(rows[0].commits) : null;
}

/** Busy and total jiffies of all cores so far (/proc/stat's first line; idle and iowait are not busy). */
function machineJiffies(): { busy: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = fields.reduce((sum, value) => sum + value, 0);
    return { busy: total - fields[3]! - fields[4]!, total };
  } catch {
    return null;
  }
}

function talliesBetween(before: Tallies, after: Tallies): Record<string, StatementTally> {
  const between: Record<string, StatementTally> = {};
  for (const [kind, tally] of [...after].sort((a, b) => a[0].localeCompare(b[0]))) {
    const earlier = before.get(kind) ?? { count: 0, ms: 0 };
    if (tally.count > earlier.count) between[kind] = { count: tally.count - earlier.count, ms: Math.round(tally.ms - earlier.ms) };
  }
  return between;
}

function sumOf(tallies: Record<string, StatementTally>, prefix: string): StatementTally {
  const chosen = Object.entries(tallies).filter(([kind]) => kind.startsWith(prefix));
  return { count: chosen.reduce((sum, [, tally]) => sum + tally.count, 0), ms: chosen.reduce((sum, [, tally]) => sum + tally.ms, 0) };
}

/** Starts the clocks and counters of a window; calling the answer closes it. */
export async function startProbe(
  database: Database,
  pooled: ReturnType<typeof countPooledStatements>,
  measure: Measure,
): Promise<() => Promise<Probe>> {
  const statementsBefore = database.stats.queries;
  const pooledBefore = pooled.snapshot();
  // PostgreSQL's table counters are flushed at most once a second: read them a little after the window.
  const churnBefore = await queueTableChurn(measure.owner);
  const commitsBefore = await commitsOf(measure.owner, measure.databaseName);
  const machineBefore = machineJiffies();
  const cpu = await cpuClock(measure);
  const delay = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS });
  delay.enable();
  const waiting: number[] = [];
  const sampler = setInterval(() => waiting.push(database.pool.waitingCount), POOL_SAMPLE_MS);
  const started = performance.now();
  return async () => {
    const wallMs = performance.now() - started;
    clearInterval(sampler);
    delay.disable();
    const machineAfter = machineJiffies();
    const { processMs, dbMs } = await cpu();
    const pooledAfter = pooled.snapshot();
    const statements = database.stats.queries - statementsBefore;
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const churnAfter = await queueTableChurn(measure.owner);
    const commitsAfter = await commitsOf(measure.owner, measure.databaseName);
    // The histogram holds the time between samples: the delay is what exceeds the sampling interval.
    const ms = (nanoseconds: number) => Math.max(0, Math.round((nanoseconds / 1e6 - DELAY_RESOLUTION_MS) * 100) / 100);
    const pooledStatements = talliesBetween(pooledBefore, pooledAfter);
    return {
      statements,
      queueStatements: sumOf(pooledStatements, 'queue '),
      pooledStatements,
      processCpuMs: Math.round(processMs),
      dbCpuMs: dbMs,
      poolWaiting: { mean: waiting.length === 0 ? 0 : Math.round((waiting.reduce((sum, value) => sum + value, 0) / waiting.length) * 10) / 10, max: Math.max(0, ...waiting) },
      eventLoopDelayMs: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) },
      queueTable:
        churnBefore && churnAfter
          ? {
              inserted: churnAfter.inserted - churnBefore.inserted,
              updated: churnAfter.updated - churnBefore.updated,
              deleted: churnAfter.deleted - churnBefore.deleted,
              deadRows: churnAfter.deadRows,
            }
          : null,
      commits: commitsBefore === null || commitsAfter === null ? null : commitsAfter - commitsBefore,
      machineBusyPercent:
        machineBefore && machineAfter ? Math.round(((machineAfter.busy - machineBefore.busy) / Math.max(1, machineAfter.total - machineBefore.total)) * 100) : null,
      wallMs: Math.round(wallMs),
    };
  };
}

// ---- figures over many values ----

export interface Distribution {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/**
 * Nearest-rank percentiles of `values` (milliseconds, rounded to 0.1). A value may be Infinity (a run
 * that never started): it sorts last, so a percentile that lands on one says "not within the window".
 */
export function distribution(values: number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => {
    const value = sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
    return value === undefined ? Number.NaN : Number.isFinite(value) ? Math.round(value * 10) / 10 : value;
  };
  return { count: values.length, p50: at(50), p95: at(95), p99: at(99), max: at(100) };
}

/** `p50 12.3 / p95 … / p99 … / max … ms`, with "not started" for a percentile past the runs that started. */
export function describeDistribution(figure: Distribution): string {
  const cell = (value: number) => (Number.isFinite(value) ? `${value.toLocaleString('en')}` : Number.isNaN(value) ? '–' : 'never');
  return `p50 ${cell(figure.p50)} / p95 ${cell(figure.p95)} / p99 ${cell(figure.p99)} / max ${cell(figure.max)} ms`;
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? Number.NaN;
export const round2 = (value: number) => Math.round(value * 100) / 100;
export const thousands = (value: number) => value.toLocaleString('en');
