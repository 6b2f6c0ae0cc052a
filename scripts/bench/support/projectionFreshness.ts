// Commit → read-model freshness of the async projections (issue #38), measured by `npm run bench --
// peer` while ours' update scenario runs. The async projections are applied by the daemon after
// commit (src/runtime/projectionDaemon.ts), each moving its checkpoint, a (tx_id, position) pair in
// projection_checkpoints, to the last event it applied (svc_advance_checkpoint): an event is applied
// once the checkpoint has reached its (tx_id, position). One connection of the bench polls the
// checkpoints every POLL_MS (it only reads); afterwards the bench reads the item.updated events
// appended during the measured run and gives each, per projection, the time from the event's
// recorded_at to the first poll that saw the checkpoint past it. Both times come from the database
// server's clock. recorded_at is taken at the append, a little before the commit, and a poll is up
// to POLL_MS late: the figures are upper bounds of commit → visible by a few milliseconds.
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { projections } from '../../../projections/index.ts';
import { percentile } from './percentile.ts';

export const POLL_MS = 10;
/** How long the poller waits, after the run, for every async projection to reach the log's head. */
const CATCH_UP_MS = 30_000;

export interface ProjectionFreshness {
  projection: string;
  /** Milliseconds from each event's recorded_at to the first poll that saw it applied, ascending. */
  samples: number[];
  /** The window's events not applied yet when the poller gave up waiting. */
  pending: number;
}

export interface SuiteFreshness {
  /** The measured run (bench.mjs' autocannon start and finish), epoch milliseconds. */
  window: { start: number; finish: number };
  polls: number;
  /** The mean time between two polls. */
  pollEveryMs: number;
  /** The CPU the poller's database backend used, in % of one core over the polling; null if unreadable. */
  pollerCpuPct: number | null;
  projections: ProjectionFreshness[];
}

type Cursor = readonly [txId: bigint, position: bigint];
interface Poll {
  at: number;
  cursors: Map<string, Cursor>;
}

// The aggregate answers one row even without checkpoints; clock_timestamp() is evaluated after the
// scan, so a poll's time is never before what it saw.
const POLL_SQL = `
  SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS at,
         coalesce(array_agg(name), '{}') AS names, coalesce(array_agg(tx_id::text), '{}') AS txs, coalesce(array_agg(position::text), '{}') AS positions
    FROM projection_checkpoints WHERE name = ANY($1::text[])`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const covers = (cursor: Cursor | undefined, event: Cursor) => cursor !== undefined && (cursor[0] > event[0] || (cursor[0] === event[0] && cursor[1] >= event[1]));

/** The async projections, by the names the daemon steps them under, in its order. */
export function asyncProjectionNames(): string[] {
  return projections.filter((projection) => projection.mode === 'async').map((projection) => projection.name);
}

/**
 * Polls the checkpoints of `databaseUrl` while `run` runs (it answers the window of its measured
 * part), then until the projections have caught up, and answers the freshness of the window's
 * item.updated events.
 */
export async function measureFreshness(databaseUrl: string, run: () => Promise<{ start: number; finish: number }>): Promise<SuiteFreshness> {
  const names = asyncProjectionNames();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: [start] } = await client.query<{ position: string; pid: number }>('SELECT coalesce(max(position), 0)::text AS position, pg_backend_pid() AS pid FROM events');
    const polls: Poll[] = [];
    let polling = true;
    const poll = async () => {
      const { rows: [row] } = await client.query<{ at: number; names: string[]; txs: string[]; positions: string[] }>({ name: 'svc-bench-freshness-poll', text: POLL_SQL, values: [names] });
      polls.push({ at: row!.at, cursors: new Map(row!.names.map((name, i) => [name, [BigInt(row!.txs[i]!), BigInt(row!.positions[i]!)]])) });
    };
    const cpu0 = backendTicks(start!.pid);
    const wall0 = performance.now();
    const loop = (async () => {
      while (polling) {
        const began = performance.now();
        await poll();
        await sleep(POLL_MS - (performance.now() - began));
      }
    })();
    loop.catch(() => undefined); // a failed poll surfaces where the loop is awaited, after the run
    let window: { start: number; finish: number };
    try {
      window = await run();
      const { rows: [head] } = await client.query<{ tx: string; position: string }>('SELECT tx_id::text AS tx, position::text AS position FROM events ORDER BY tx_id DESC, position DESC LIMIT 1');
      const target: Cursor = [BigInt(head!.tx), BigInt(head!.position)];
      const deadline = Date.now() + CATCH_UP_MS;
      while (Date.now() < deadline && !names.every((name) => covers(polls.at(-1)?.cursors.get(name), target))) await sleep(POLL_MS);
    } finally {
      polling = false;
      await loop;
    }
    const cpu1 = backendTicks(start!.pid);
    const wallSeconds = (performance.now() - wall0) / 1000;
    const { rows: events } = await client.query<{ tx: string; position: string; at: number }>(
      `SELECT tx_id::text AS tx, position::text AS position, (extract(epoch FROM recorded_at) * 1000)::float8 AS at
         FROM events WHERE position > $1 AND type = 'item.updated' AND recorded_at BETWEEN to_timestamp($2 / 1000.0) AND to_timestamp($3 / 1000.0)
        ORDER BY tx_id, position`,
      [start!.position, window.start, window.finish],
    );
    const keyed = events.map((event) => ({ cursor: [BigInt(event.tx), BigInt(event.position)] as Cursor, at: event.at }));
    return {
      window,
      polls: polls.length,
      pollEveryMs: polls.length > 1 ? (polls.at(-1)!.at - polls[0]!.at) / (polls.length - 1) : 0,
      pollerCpuPct: cpu0 !== null && cpu1 !== null ? (100 * (cpu1 - cpu0)) / CLOCK_TICKS / wallSeconds : null,
      projections: names.map((name) => freshnessOf(name, keyed, polls)),
    };
  } finally {
    await client.end();
  }
}

/** Events in log order against polls in time order: both only move forward (a checkpoint never goes back but for a rebuild). */
function freshnessOf(name: string, events: { cursor: Cursor; at: number }[], polls: Poll[]): ProjectionFreshness {
  const samples: number[] = [];
  let next = 0;
  for (const event of events) {
    while (next < polls.length && !covers(polls[next]!.cursors.get(name), event.cursor)) next++;
    if (next === polls.length) break;
    samples.push(Math.round((polls[next]!.at - event.at) * 100) / 100);
  }
  return { projection: name, samples: samples.sort((x, y) => x - y), pending: events.length - samples.length };
}

const CLOCK_TICKS = 100; // USER_HZ on Linux, as bench.mjs assumes

/** utime + stime of a local process in clock ticks; null when /proc does not show it. */
function backendTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** The measured window of scenario `letter` in a bench.mjs result file (autocannon's start and finish of the measured run, not the warm-up). */
export function measuredWindow(file: string, letter: string): { start: number; finish: number } {
  const { runs } = JSON.parse(readFileSync(file, 'utf8')) as { runs: { scenario: string; autocannon: { start: string; finish: string } }[] };
  const run = runs.find((entry) => entry.scenario === letter);
  if (!run) throw new Error(`no scenario ${letter} in ${file}`);
  return { start: Date.parse(run.autocannon.start), finish: Date.parse(run.autocannon.finish) };
}

const ms = (value: number) => (value < 10 ? value.toFixed(1) : Math.round(value).toLocaleString('en'));

/** The summary's section: per credential and async projection, p50/p99/max over the rounds' events pooled, and each round's p99. */
export function freshnessSection(suites: { credential: string; round: number; freshness: SuiteFreshness }[], credentials: string[]): string[] {
  if (!suites.length) return [];
  const lines = [
    '',
    `Async projection freshness during e. update (target p99 < 250 ms): per event, from its recorded_at (taken at the append, a little before the commit) to the first poll of the checkpoints (every ${POLL_MS} ms, by the bench) that saw the projection past it, on the database server's clock; the item.updated events of the measured runs only (no warm-up), pooled over the rounds.`,
    '',
    '| credential | projection | events | p50 ms | p99 ms | max ms | p99 per round | not applied after 30 s |',
    '|---|---|---:|---:|---:|---:|---|---:|',
  ];
  for (const credential of credentials) {
    const rounds = suites.filter((suite) => suite.credential === credential).sort((x, y) => x.round - y.round);
    if (!rounds.length) continue;
    for (const name of rounds[0]!.freshness.projections.map((projection) => projection.projection)) {
      const perRound = rounds.map((suite) => suite.freshness.projections.find((projection) => projection.projection === name)!);
      const pooled = perRound.flatMap((projection) => projection.samples).sort((x, y) => x - y);
      lines.push(
        `| ${credential} | ${name} | ${pooled.length.toLocaleString('en')} | ${ms(percentile(pooled, 50))} | **${ms(percentile(pooled, 99))}** | ${ms(pooled.at(-1) ?? 0)} | ` +
          `${perRound.map((projection) => ms(percentile(projection.samples, 99))).join(' / ')} | ${perRound.reduce((sum, projection) => sum + projection.pending, 0)} |`,
      );
    }
  }
  const all = suites.map((suite) => suite.freshness);
  const cpu = all.map((freshness) => freshness.pollerCpuPct).filter((value): value is number => value !== null);
  lines.push(
    '',
    `The poller: ${all.reduce((sum, freshness) => sum + freshness.polls, 0).toLocaleString('en')} polls, one every ${ms(all.reduce((sum, freshness) => sum + freshness.pollEveryMs, 0) / all.length)} ms on average` +
      (cpu.length ? `; its database backend used ${(cpu.reduce((sum, value) => sum + value, 0) / cpu.length).toFixed(1)} % of a core (counted in e's DB CPU above).` : '.'),
  );
  return lines;
}
