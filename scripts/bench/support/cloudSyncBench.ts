// Cloud-sync figures (docs/integrations.md, issue #34), through the real path: the service as a child
// process (`svc start`) on a scratch database of DATABASE_URL's server, pushing to the local document
// database (test/support/cloudTargetServers.ts: Firestore's REST batchWrite and Google's OAuth JWT grant)
// that runs in this process.
// 1. Backfill: --items articles seeded over HTTP (bulk POST /items/articles of 500, two in flight), the
//    async read models caught up, then a pipeline created (it starts at the feed's head: the reactor has
//    nothing to push) and POST /cloud-sync/pipelines/:id/backfill called until it is not truncated. The
//    figure is items pushed per second of those calls; the server must then hold every item.
// 2. Sync lag: creates at --rate per second (open loop: one POST /items/articles every 1000/rate ms) for
//    --seconds; for each, the time from its 201 reaching this process to the document reaching the
//    server (the server's documents map is observed: its set() is wrapped to stamp each path's arrival).
//    A write whose document never arrives within the drain counts as never (Infinity).
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { migrate } from '../../../infra/postgres/migrate.ts';
import { makeServiceAccount, startFirestoreServer, type FirestoreServer } from '../../../test/support/cloudTargetServers.ts';
import { startBenchService, stopBenchService, waitForHealth } from './benchService.ts';
import { prepareSite } from './benchSite.ts';
import { percentile } from './percentile.ts';
import { waitForAsyncProjections } from './readiness.ts';
import { createScratchDatabase, scratchServerUrl } from './scratchDatabase.ts';

export interface CloudSyncOptions {
  items: number;
  /** SVC_CLOUD_SYNC_BACKFILL_LIMIT: items one backfill call pushes before it answers truncated. */
  backfillLimit: number;
  lagSeconds: number;
  lagRate: number;
  /** Seconds to wait, after the last write, for the documents still on their way. */
  drainSeconds: number;
  keep: boolean;
  log: (line: string) => void;
}

export interface Distribution {
  p50: number;
  p95: number;
  p99: number;
  max: number;
  min: number;
}

export interface CloudSyncFigures {
  seed: { items: number; seconds: number; itemsPerSecond: number; projectionsCatchUpSeconds: number };
  backfill: {
    items: number;
    seconds: number;
    itemsPerSecond: number;
    calls: { scanned: number; pushed: number; failed: number; truncated: boolean; seconds: number }[];
    pushed: number;
    failed: number;
    /** Documents the server holds after the backfill. */
    documents: number;
    /** batchWrite requests the server took, and how many were refused (unauthorized). */
    requests: number;
    unauthorizedRequests: number;
    tokensIssued: number;
  };
  lag: {
    rate: number;
    seconds: number;
    writes: number;
    /** Writes answered 201 (the others are errors, not measured). */
    accepted: number;
    writeErrors: number;
    arrived: number;
    missing: number;
    /** Commit (the write's 201) → the document at the server, ms; Infinity for a document that never came. */
    lagMs: Distribution;
    /** The write's own HTTP latency, ms. */
    writeMs: Distribution;
    /** Writes sent per second of the writing window (the open loop's achieved rate). */
    sentPerSecond: number;
  };
}

const COLLECTION = 'articles';
const SEED_BATCH = 500;
const SEED_IN_FLIGHT = 2;
const BODY = 'lorem ipsum dolor sit amet consectetur adipiscing elit '.repeat(3).trim();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round1 = (value: number) => Math.round(value * 10) / 10;

function distribution(values: number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => round1(percentile(sorted, p));
  return { p50: at(50), p95: at(95), p99: at(99), max: round1(sorted.at(-1) ?? 0), min: round1(sorted[0] ?? 0) };
}

interface Api {
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** The raw answer, for the timed writes. */
  fetch(method: string, path: string, body: unknown): Promise<Response>;
}

function apiOf(base: string, siteId: string, token: string): Api {
  const headers = { authorization: `Bearer ${token}`, 'x-svc-site': siteId, 'content-type': 'application/json' };
  const send = (method: string, path: string, body: unknown) => fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return {
    fetch: send,
    async call<T>(method: string, path: string, body?: unknown): Promise<T> {
      const response = await send(method, path, body);
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
      return (text ? (JSON.parse(text) as { data: T }).data : null) as T;
    },
  };
}

function article(index: number): Record<string, unknown> {
  return { title: `Article ${index}`, body: BODY, views: index };
}

async function seed(api: Api, items: number, log: (line: string) => void): Promise<number> {
  await api.call('POST', '/collections', {
    name: COLLECTION,
    fields: [
      { field: 'title', type: 'string' },
      { field: 'body', type: 'text' },
      { field: 'views', type: 'integer' },
    ],
  });
  const started = performance.now();
  let next = 0;
  let reported = 0;
  const worker = async () => {
    while (next < items) {
      const from = next;
      next = Math.min(items, next + SEED_BATCH);
      await api.call('POST', `/items/${COLLECTION}`, Array.from({ length: next - from }, (_, offset) => article(from + offset + 1)));
      if (next - reported >= 25_000) {
        reported = next;
        log(`  ${next} seeded, ${Math.round(next / ((performance.now() - started) / 1000))} items/s`);
      }
    }
  };
  await Promise.all(Array.from({ length: SEED_IN_FLIGHT }, worker));
  return (performance.now() - started) / 1000;
}

async function measureBackfill(api: Api, server: FirestoreServer, pipelineId: string, items: number, log: (line: string) => void): Promise<CloudSyncFigures['backfill']> {
  const calls: CloudSyncFigures['backfill']['calls'] = [];
  const started = performance.now();
  for (;;) {
    const callStarted = performance.now();
    const result = await api.call<{ scanned: number; pushed: number; failed: number; truncated: boolean }>('POST', `/cloud-sync/pipelines/${pipelineId}/backfill`);
    const seconds = (performance.now() - callStarted) / 1000;
    calls.push({ ...result, seconds: Math.round(seconds * 100) / 100 });
    log(`  backfill call ${calls.length}: ${result.pushed} pushed, ${result.failed} failed${result.truncated ? ', truncated' : ''} in ${seconds.toFixed(2)} s`);
    if (!result.truncated) break;
    // A truncated call that pushed nothing is a failed batch (the log says why): it would spin.
    if (result.scanned === 0) throw new Error(`the backfill made no progress: ${JSON.stringify(await api.call('GET', `/cloud-sync/pipelines/${pipelineId}/log?limit=3`))}`);
  }
  const seconds = (performance.now() - started) / 1000;
  const pushed = calls.reduce((sum, call) => sum + call.pushed, 0);
  return {
    items,
    seconds: Math.round(seconds * 100) / 100,
    itemsPerSecond: Math.round(pushed / seconds),
    calls,
    pushed,
    failed: calls.reduce((sum, call) => sum + call.failed, 0),
    documents: [...server.documents.keys()].filter((path) => path.startsWith(`${COLLECTION}/`)).length,
    requests: server.requests.length,
    unauthorizedRequests: server.requests.filter((request) => !request.authorized).length,
    tokensIssued: server.tokensIssued,
  };
}

/** Stamps (performance.now()) the first arrival of each document path from now on. */
function observeArrivals(server: FirestoreServer): Map<string, number> {
  const arrivals = new Map<string, number>();
  const documents = server.documents;
  const set = documents.set.bind(documents);
  documents.set = (path: string, value: Record<string, unknown>) => {
    if (!arrivals.has(path)) arrivals.set(path, performance.now());
    return set(path, value);
  };
  return arrivals;
}

async function measureLag(api: Api, server: FirestoreServer, options: CloudSyncOptions): Promise<CloudSyncFigures['lag']> {
  const arrivals = observeArrivals(server);
  const total = options.lagRate * options.lagSeconds;
  const intervalMs = 1000 / options.lagRate;
  /** Per accepted write: its document path and when its 201 came. */
  const answered: { path: string; at: number; writeMs: number }[] = [];
  let writeErrors = 0;
  let firstError: string | null = null;
  const inFlight: Promise<void>[] = [];
  const write = async (index: number) => {
    const sent = performance.now();
    try {
      const response = await api.fetch('POST', `/items/${COLLECTION}`, { title: `Lag ${index}`, body: BODY, views: index });
      const text = await response.text();
      const at = performance.now();
      if (response.status !== 201) throw new Error(`${response.status} ${text.slice(0, 300)}`);
      const id = (JSON.parse(text) as { data: { id: string } }).data.id;
      answered.push({ path: `${COLLECTION}/${id}`, at, writeMs: at - sent });
    } catch (error) {
      writeErrors += 1;
      firstError ??= (error as Error).message;
    }
  };
  const started = performance.now();
  for (let index = 0; index < total; index++) {
    const due = started + index * intervalMs;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    inFlight.push(write(index));
  }
  const sentSeconds = (performance.now() - started) / 1000;
  await Promise.all(inFlight);
  if (firstError) options.log(`  ${writeErrors} writes failed, the first: ${firstError}`);
  const deadline = performance.now() + options.drainSeconds * 1000;
  while (answered.some((write) => !arrivals.has(write.path)) && performance.now() < deadline) await sleep(20);
  const lags = answered.map((write) => {
    const arrived = arrivals.get(write.path);
    return arrived === undefined ? Number.POSITIVE_INFINITY : arrived - write.at;
  });
  const arrived = lags.filter((lag) => Number.isFinite(lag)).length;
  return {
    rate: options.lagRate,
    seconds: options.lagSeconds,
    writes: total,
    accepted: answered.length,
    writeErrors,
    arrived,
    missing: answered.length - arrived,
    lagMs: distribution(lags),
    writeMs: distribution(answered.map((write) => write.writeMs)),
    sentPerSecond: Math.round(total / sentSeconds),
  };
}

export async function cloudSyncBench(options: CloudSyncOptions): Promise<CloudSyncFigures> {
  const { log } = options;
  const { account, publicKey } = makeServiceAccount('demo-project');
  const server = await startFirestoreServer({ accounts: [{ client_email: account.client_email, publicKey }] });
  const scratch = await createScratchDatabase(scratchServerUrl(), `svc_bench_cloudsync_${Date.now().toString(36)}`);
  const owner = new pg.Client({ connectionString: scratch.url });
  let child: ChildProcess | null = null;
  try {
    await migrate(scratch.url);
    await owner.connect();
    const port = 24_000 + Math.floor(Math.random() * 2_000);
    child = startBenchService(scratch.url, port, {
      SVC_ACCESS_TOKEN_TTL: '86400',
      SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
      SVC_CLOUD_SYNC_FIRESTORE_URL: server.baseUrl,
      SVC_CLOUD_SYNC_TOKEN_URL: server.tokenUrl,
      SVC_CLOUD_SYNC_BACKFILL_LIMIT: String(options.backfillLimit),
    });
    const base = `http://127.0.0.1:${port}/api/v1`;
    await waitForHealth(base, child);
    const siteId = 'bench-cloudsync';
    const { token } = await prepareSite(base, siteId, false);
    const api = apiOf(base, siteId, token);

    log(`seeding ${options.items} articles through POST /items/${COLLECTION} (arrays of ${SEED_BATCH}, ${SEED_IN_FLIGHT} in flight)…`);
    const seedSeconds = await seed(api, options.items, log);
    log(`seeded in ${seedSeconds.toFixed(1)} s; waiting for the async read models (the change feed among them)…`);
    const catchUpMs = await waitForAsyncProjections(owner, { quiet: true });
    const seedFigures = { items: options.items, seconds: round1(seedSeconds), itemsPerSecond: Math.round(options.items / seedSeconds), projectionsCatchUpSeconds: round1(catchUpMs / 1000) };

    // After the seed: the pipeline starts at the feed's head, so only the backfill pushes the seed.
    const pipeline = await api.call<{ id: string }>('POST', '/cloud-sync/pipelines', {
      name: 'bench mirror',
      target: 'firestore',
      projectId: 'demo-project',
      credentials: account,
      collections: [COLLECTION],
      targetPath: '{collection}',
    });
    log(`1. backfill of ${options.items} items (SVC_CLOUD_SYNC_BACKFILL_LIMIT=${options.backfillLimit} per call)`);
    const backfill = await measureBackfill(api, server, pipeline.id, options.items, log);
    log(`  ${backfill.pushed} pushed in ${backfill.seconds} s: ${backfill.itemsPerSecond} items/s; the server holds ${backfill.documents} documents`);

    await waitForAsyncProjections(owner, { quiet: true });
    log(`2. sync lag: ${options.lagRate} creates/s for ${options.lagSeconds} s`);
    const lag = await measureLag(api, server, options);
    log(`  ${lag.arrived}/${lag.accepted} documents arrived; lag p50 ${lag.lagMs.p50} ms, p95 ${lag.lagMs.p95} ms, p99 ${lag.lagMs.p99} ms`);
    return { seed: seedFigures, backfill, lag };
  } finally {
    if (child) await stopBenchService(child);
    await owner.end().catch(() => undefined);
    await server.close();
    if (options.keep) log(`kept the scratch database ${scratch.name}`);
    else await scratch.drop();
  }
}
