// Event store throughput: appends per second (single events and batches) with concurrent writers,
// and the read rate of the global log. Runs on a scratch database of DATABASE_URL's server (created
// and dropped here), or on an embedded PostgreSQL in a temporary directory when DATABASE_URL is unset.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { appendToStream, LOG_START, cursorOf, readAll } from '../../infra/eventstore/eventStore.ts';
import { createDatabase, type Database } from '../../infra/postgres/database.ts';
import { startEmbeddedPostgres } from '../../infra/postgres/embedded.ts';
import { migrate } from '../../infra/postgres/migrate.ts';
import { positiveInteger } from './support/options.ts';
import { createScratchDatabase } from './support/scratchDatabase.ts';

const TARGETS = { singleAppendsPerSecond: 5_000, readEventsPerSecond: 50_000 };

interface AppendPhase {
  name: string;
  writers: number;
  eventsPerAppend: number;
  seconds: number;
  appends: number;
  events: number;
  appendsPerSecond: number;
  eventsPerSecond: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
}

interface ReadPhase {
  name: string;
  batchSize: number;
  events: number;
  seconds: number;
  eventsPerSecond: number;
}

const usage = `usage: npm run bench -- eventstore [--seconds 5] [--writers 8] [--batch 10] [--read-batch 1000] [--prefill 0]
  --prefill      events written to the log (by SQL, in another site) before measuring: appends must
                 not slow down as the log grows (default 0)
  --seconds      duration of each append phase (default 5)
  --writers      concurrent writers (default 8)
  --batch        events per append in the batch phase (default 10)
  --read-batch   events per readAll call (default 1000)`;

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      seconds: { type: 'string', default: '5' },
      writers: { type: 'string', default: '8' },
      batch: { type: 'string', default: '10' },
      'read-batch': { type: 'string', default: '1000' },
      prefill: { type: 'string', default: '0' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const seconds = positiveInteger(values.seconds, 'seconds', usage);
  const writers = positiveInteger(values.writers, 'writers', usage);
  const batch = positiveInteger(values.batch, 'batch', usage);
  const readBatch = positiveInteger(values['read-batch'], 'read-batch', usage);
  const prefill = values.prefill === '0' ? 0 : positiveInteger(values.prefill, 'prefill', usage);

  const scratch = await scratchDatabase();
  try {
    await migrate(scratch.url);
    if (prefill > 0) await prefillLog(scratch.url, prefill);
    const database = createDatabase({ connectionString: scratch.url, poolSize: writers + 2 });
    try {
      const version = (await database.pool.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version ?? 'unknown';
      console.log(
        `event store benchmark on PostgreSQL ${version} (${scratch.kind}), ${cpus().length} CPUs, ${writers} writers, log prefilled with ${prefill} events`,
      );
      await appendPhase(database, { name: 'warm-up', writers, eventsPerAppend: 1, seconds: 1 });
      const single = await appendPhase(database, { name: 'single-event appends', writers, eventsPerAppend: 1, seconds });
      const batched = await appendPhase(database, { name: `batches of ${batch}`, writers, eventsPerAppend: batch, seconds });
      const read = await readPhase(database, readBatch);
      const result = {
        benchmark: 'eventstore',
        at: new Date().toISOString(),
        machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
        database: { kind: scratch.kind, postgres: version, prefilledEvents: prefill },
        targets: TARGETS,
        single,
        batched,
        read,
        meetsTargets: {
          singleAppends: single.appendsPerSecond >= TARGETS.singleAppendsPerSecond,
          readAll: read.eventsPerSecond >= TARGETS.readEventsPerSecond,
        },
      };
      console.table(
        [single, batched].map((phase) => ({
          phase: phase.name,
          writers: phase.writers,
          'appends/s': Math.round(phase.appendsPerSecond),
          'events/s': Math.round(phase.eventsPerSecond),
          'p50 ms': phase.latencyMs.p50,
          'p99 ms': phase.latencyMs.p99,
        })),
      );
      console.table([{ phase: read.name, 'batch size': read.batchSize, events: read.events, 'events/s': Math.round(read.eventsPerSecond) }]);
      console.log(
        `targets: single appends ${Math.round(single.appendsPerSecond)}/s (target ${TARGETS.singleAppendsPerSecond}) ${result.meetsTargets.singleAppends ? 'met' : 'MISSED'}; ` +
          `readAll ${Math.round(read.eventsPerSecond)}/s (target ${TARGETS.readEventsPerSecond}) ${result.meetsTargets.readAll ? 'met' : 'MISSED'}`,
      );
      mkdirSync('bench-results', { recursive: true });
      const file = join('bench-results', `eventstore-${result.at.replace(/[:.]/g, '-')}.json`);
      writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
      console.log(`results written to ${file}`);
    } finally {
      await database.close();
    }
  } finally {
    await scratch.drop();
  }
}

/** An `item.updated` event as the item decider writes it (the store refuses events its catalogue does not take). */
function itemUpdated(itemId: string, fields: Record<string, unknown>) {
  const at = new Date().toISOString();
  const snapshot = { id: itemId, status: null, sort: null, createdAt: at, updatedAt: at, userCreated: null, userUpdated: null, deletedAt: null, ...fields };
  return { type: 'item.updated', data: { collection: 'bench', itemId, snapshot, delta: fields } };
}

async function appendPhase(
  database: Database,
  phase: { name: string; writers: number; eventsPerAppend: number; seconds: number },
): Promise<AppendPhase> {
  const siteId = `bench-${randomUUID().slice(0, 8)}`;
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + phase.seconds * 1000;
  await Promise.all(
    Array.from({ length: phase.writers }, async (_, writer) => {
      // Each writer appends to its own few streams with the expected version, as the command bus does.
      const versions = new Map<string, number>();
      for (let append = 0; performance.now() < deadline; append += 1) {
        const stream = `${siteId}/item/${writer}-${append % 16}`;
        const expected = versions.get(stream) ?? 0;
        const events = Array.from({ length: phase.eventsPerAppend }, (_, index) => itemUpdated(stream, { [`title-${index}`]: `value ${append}-${index}`, tags: ['bench', 'eventstore'] }));
        const before = performance.now();
        const result = await database.withSite(siteId, (tx) =>
          appendToStream(tx, {
            siteId,
            streamId: stream,
            expectedVersion: expected === 0 ? 'no_stream' : expected,
            events,
            metadata: { actor: { kind: 'system', id: 'bench' }, requestId: randomUUID() },
          }),
        );
        latencies.push(performance.now() - before);
        versions.set(stream, result.nextVersion);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (quantile: number) => round(latencies[Math.min(latencies.length - 1, Math.floor(quantile * latencies.length))] ?? 0);
  return {
    name: phase.name,
    writers: phase.writers,
    eventsPerAppend: phase.eventsPerAppend,
    seconds: round(elapsed),
    appends: latencies.length,
    events: latencies.length * phase.eventsPerAppend,
    appendsPerSecond: round(latencies.length / elapsed),
    eventsPerSecond: round((latencies.length * phase.eventsPerAppend) / elapsed),
    latencyMs: { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: round(latencies.at(-1) ?? 0) },
  };
}

/** Reads the whole global log from the start, as a projection rebuild or a new subscriber does. */
async function readPhase(database: Database, batchSize: number): Promise<ReadPhase> {
  let cursor = LOG_START;
  let events = 0;
  const started = performance.now();
  for (;;) {
    const batch = await readAll(database, cursor, batchSize);
    if (batch.length === 0) break;
    events += batch.length;
    cursor = cursorOf(batch.at(-1)!);
  }
  const elapsed = (performance.now() - started) / 1000;
  return { name: 'readAll (global log)', batchSize, events, seconds: round(elapsed), eventsPerSecond: round(events / elapsed) };
}

/** Fills the log with `count` events of another site (owner connection, hashes not chained). */
async function prefillLog(url: string, count: number): Promise<void> {
  const owner = new pg.Client({ connectionString: url });
  await owner.connect();
  try {
    await owner.query(
      `INSERT INTO events (site_id, stream_id, stream_position, event_id, type, data, metadata, hash)
       SELECT 'bench-prefill', 'bench-prefill/item/' || (g / 10), g % 10 + 1, gen_random_uuid(), 'item.updated',
              jsonb_build_object('collection', 'bench', 'itemId', (g / 10)::text, 'delta', jsonb_build_object('value', g),
                'snapshot', jsonb_build_object('id', (g / 10)::text, 'status', null, 'sort', null, 'createdAt', now(), 'updatedAt', now(),
                  'userCreated', null, 'userUpdated', null, 'deletedAt', null, 'value', g)),
              '{"actor":{"kind":"system","id":"bench"}}', md5(g::text)
         FROM generate_series(0, $1::int - 1) g`,
      [count],
    );
    await owner.query('ANALYZE events');
  } finally {
    await owner.end();
  }
}

interface Scratch {
  kind: string;
  url: string;
  drop(): Promise<void>;
}

async function scratchDatabase(): Promise<Scratch> {
  const name = `svc_bench_${Date.now().toString(36)}`;
  if (process.env.DATABASE_URL) {
    return createScratchOn(process.env.DATABASE_URL, name, 'DATABASE_URL server', async () => undefined);
  }
  const directory = mkdtempSync(join(tmpdir(), 'svc-bench-pg-'));
  const embedded = await startEmbeddedPostgres(directory);
  return createScratchOn(embedded.connectionString, name, 'embedded', async () => {
    await embedded.stop();
    rmSync(directory, { recursive: true, force: true });
  });
}

async function createScratchOn(serverUrl: string, name: string, kind: string, after: () => Promise<void>): Promise<Scratch> {
  const database = await createScratchDatabase(serverUrl, name);
  return {
    kind,
    url: database.url,
    async drop() {
      await database.drop();
      await after();
    },
  };
}


function round(value: number): number {
  return Math.round(value * 100) / 100;
}
