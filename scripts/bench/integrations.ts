// `npm run bench -- integrations`: the integrations' figures (issue #34), each through the real path.
// 1. Cloud-sync backfill: --items items of one collection pushed by POST /cloud-sync/pipelines/:id/backfill
//    (called until it is not truncated) to a local document-database server (Firestore REST), against
//    ≥ 2,000 items/s; the server must hold every item afterwards.
// 2. Cloud-sync lag: item creates at --rate per second for --seconds on the pipeline's collection, each
//    from its 201 to its document at the server: p50/p95/p99 against p99 < 1 s.
//    (Both in scripts/bench/support/cloudSyncBench.ts: the service as `svc start` on a scratch database.)
// 3. NATS JetStream sink: scripts/bench/support/natsSinkBench.ts (entries published per
//    second on a replay from the start; entries lost or duplicated when the service is killed -9 in the
//    middle of a replay), on NATS_URL (default nats://127.0.0.1:4222), against ≥ 5,000 entries/s.
// Prints a table of figures, targets and verdicts, and writes bench-results/integrations-<timestamp>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cloudSyncBench, type CloudSyncFigures } from './support/cloudSyncBench.ts';
import { natsSinkBench, type NatsSinkFigures } from './support/natsSinkBench.ts';
import { positiveInteger } from './support/options.ts';

const usage = `usage: npm run bench -- integrations [--items 100000] [--backfill-limit 25000] [--seconds 20] [--rate 100] [--drain 30]
                                     [--nats-entries 20000] [--only cloud-sync|nats] [--keep]
  --items           items seeded and backfilled (figure 1)
  --backfill-limit  SVC_CLOUD_SYNC_BACKFILL_LIMIT: items per backfill call (the bench calls until not truncated)
  --seconds         how long the creates of figure 2 go on
  --rate            creates per second, open loop (POST /items/articles)
  --drain           seconds to wait, after the last create, for documents still on their way
  --nats-entries    feed entries of the NATS sink figure (default 20000, so that the whole bench stays near 3 minutes)
  --only            the cloud-sync figures only, or the NATS sink's only
  --keep            keep the cloud-sync scratch database (prints its name)`;

const TARGET = { backfillItemsPerSecond: 2_000, lagP99Ms: 1_000, natsEntriesPerSecond: 5_000 };

type NatsOutcome = { figures: NatsSinkFigures } | { error: string };

interface Check {
  name: string;
  figure: string;
  target: string;
  /** null: a figure without a target. */
  met: boolean | null;
}

const thousands = (value: number) => (Number.isFinite(value) ? value.toLocaleString('en-US') : 'never');
const ms = (value: number) => (Number.isFinite(value) ? `${thousands(value)} ms` : 'never');

function cloudSyncRows(figures: CloudSyncFigures): Check[] {
  const { seed, backfill, lag } = figures;
  return [
    {
      name: 'cloud sync: seed',
      figure: `${thousands(seed.items)} items in ${seed.seconds} s (${thousands(seed.itemsPerSecond)} items/s over HTTP), read models caught up ${seed.projectionsCatchUpSeconds} s later`,
      target: '',
      met: null,
    },
    {
      name: 'cloud sync: backfill throughput',
      figure: `${thousands(backfill.itemsPerSecond)} items/s (${thousands(backfill.pushed)} pushed in ${backfill.seconds} s, ${backfill.calls.length} calls, ${thousands(backfill.requests)} batchWrite requests)`,
      target: `>= ${thousands(TARGET.backfillItemsPerSecond)} items/s`,
      met: backfill.itemsPerSecond >= TARGET.backfillItemsPerSecond,
    },
    {
      name: 'cloud sync: backfill complete',
      figure: `the server holds ${thousands(backfill.documents)} documents; ${thousands(backfill.failed)} failed, ${backfill.unauthorizedRequests} unauthorized requests, ${backfill.tokensIssued} token(s)`,
      target: `${thousands(backfill.items)} documents`,
      met: backfill.documents === backfill.items && backfill.failed === 0,
    },
    {
      name: 'cloud sync: lag (201 → document at target)',
      figure: `p50 ${ms(lag.lagMs.p50)}, p95 ${ms(lag.lagMs.p95)}, p99 ${ms(lag.lagMs.p99)}, max ${ms(lag.lagMs.max)} (min ${ms(lag.lagMs.min)})`,
      target: `p99 < ${thousands(TARGET.lagP99Ms)} ms`,
      met: lag.lagMs.p99 < TARGET.lagP99Ms,
    },
    {
      name: 'cloud sync: lag writes',
      figure:
        `${thousands(lag.accepted)}/${thousands(lag.writes)} creates answered 201 at ${lag.sentPerSecond}/s sent, ${lag.writeErrors} errors; ` +
        `${thousands(lag.arrived)} arrived, ${lag.missing} never; write p50 ${ms(lag.writeMs.p50)}, p99 ${ms(lag.writeMs.p99)}`,
      target: 'all arrive',
      met: lag.missing === 0 && lag.writeErrors === 0,
    },
  ];
}

function natsRows(outcome: NatsOutcome): Check[] {
  if ('error' in outcome) return [{ name: 'nats sink', figure: `failed: ${outcome.error}`, target: 'runs', met: false }];
  const { figures } = outcome;
  return [
    {
      name: 'nats sink: publish throughput',
      figure: `${thousands(figures.entriesPerSecond)} entries/s (replay of ${thousands(figures.entries)} entries from the start)`,
      target: `≥ ${thousands(TARGET.natsEntriesPerSecond)} entries/s`,
      met: figures.entriesPerSecond >= TARGET.natsEntriesPerSecond,
    },
    { name: 'nats sink: kill -9 mid-replay, lost', figure: `${thousands(figures.killedLost)} of ${thousands(figures.entries)} entries`, target: '0', met: figures.killedLost === 0 },
    { name: 'nats sink: kill -9 mid-replay, duplicated', figure: `${thousands(figures.killedDuplicated)} of ${thousands(figures.entries)} entries`, target: '0', met: figures.killedDuplicated === 0 },
  ];
}

function printTable(rows: Check[]): void {
  const verdict = (row: Check) => (row.met === null ? '' : row.met ? 'met' : 'NOT MET');
  console.log(`\n${'figure'.padEnd(44)} ${'value'.padEnd(120)} ${'target'.padEnd(22)} verdict`);
  for (const row of rows) console.log(`${row.name.padEnd(44)} ${row.figure.padEnd(120)} ${row.target.padEnd(22)} ${verdict(row)}`);
}

async function runNats(entries: number, log: (line: string) => void): Promise<NatsOutcome> {
  log(`3. NATS sink (${process.env.NATS_URL ?? 'nats://127.0.0.1:4222'})`);
  try {
    const started = performance.now();
    const figures = await natsSinkBench({ entries });
    log(`  done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return { figures };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** JSON has no Infinity: a document that never arrived is written as null. */
const finiteOrNull = (_key: string, value: unknown) => (typeof value === 'number' && !Number.isFinite(value) ? null : value);

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      items: { type: 'string', default: '100000' },
      'backfill-limit': { type: 'string', default: '25000' },
      seconds: { type: 'string', default: '20' },
      rate: { type: 'string', default: '100' },
      drain: { type: 'string', default: '30' },
      'nats-entries': { type: 'string', default: '20000' },
      only: { type: 'string' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  if (values.only !== undefined && values.only !== 'cloud-sync' && values.only !== 'nats') throw new Error(`--only is cloud-sync or nats\n${usage}`);
  const natsEntries = positiveInteger(values['nats-entries'], 'nats-entries', usage);
  const cloudOptions = {
    items: positiveInteger(values.items, 'items', usage),
    backfillLimit: positiveInteger(values['backfill-limit'], 'backfill-limit', usage),
    lagSeconds: positiveInteger(values.seconds, 'seconds', usage),
    lagRate: positiveInteger(values.rate, 'rate', usage),
    drainSeconds: positiveInteger(values.drain, 'drain', usage),
    keep: values.keep,
    log: (line: string) => console.log(line),
  };

  const started = performance.now();
  let cloudSync: CloudSyncFigures | null = null;
  let cloudSyncError: string | null = null;
  if (values.only !== 'nats') {
    try {
      cloudSync = await cloudSyncBench(cloudOptions);
    } catch (error) {
      // The NATS figure still runs; the failure is a row of the table and fails the bench.
      cloudSyncError = error instanceof Error ? (error.stack ?? error.message) : String(error);
      console.error(`cloud-sync figures failed: ${cloudSyncError}`);
    }
  }
  const nats = values.only === 'cloud-sync' ? null : await runNats(natsEntries, cloudOptions.log);

  const rows = [
    ...(cloudSync ? cloudSyncRows(cloudSync) : cloudSyncError ? [{ name: 'cloud sync', figure: `failed: ${cloudSyncError.split('\n')[0]}`, target: 'runs', met: false }] : []),
    ...(nats ? natsRows(nats) : []),
  ];
  printTable(rows);
  console.log(`\n(total ${((performance.now() - started) / 1000).toFixed(0)} s on ${cpus().length} cores)`);

  const at = new Date().toISOString();
  const report = {
    benchmark: 'integrations',
    at,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
    options: { ...cloudOptions, log: undefined, natsEntries, only: values.only ?? null },
    target: TARGET,
    cloudSync,
    cloudSyncError,
    nats,
    checks: Object.fromEntries(rows.filter((row) => row.met !== null).map((row) => [row.name, row.met])),
  };
  mkdirSync('bench-results', { recursive: true });
  const file = join('bench-results', `integrations-${at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(report, finiteOrNull, 2)}\n`);
  console.log(`results written to ${file}`);
  const failed = rows.filter((row) => row.met === false).map((row) => row.name);
  if (failed.length > 0) throw new Error(`targets not met: ${failed.join('; ')}`);
}
