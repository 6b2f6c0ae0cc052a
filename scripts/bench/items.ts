// Item API throughput over HTTP: the service runs as a child process (`svc start`, LOG_LEVEL=warn,
// rate limits off) on a scratch database of DATABASE_URL's server; autocannon drives it from here.
// Seeds N articles (the peer benchmark's dataset: /work/shared/bench/peer-directus/dataset.mjs shape)
// through the real command path (bulk POSTs of 500), then measures: create one, bulk create 500,
// read one by id, list 25 with a filter on an indexed field + sort, list with author.name, update.
// Prints EXPLAIN (as the application role, under row-level security) for the list query.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createDatabase } from '../../infra/postgres/database.ts';
import { migrate } from '../../infra/postgres/migrate.ts';
import { itemsProjection } from '../../projections/itemsProjection.ts';
import { schemaProjection } from '../../projections/schemaProjection.ts';
import { createItems } from '../../src/modules/items/createItems.ts';
import { explainList } from './support/explainList.ts';
import { createInProcessContext, instanceAccess } from './support/inProcessContext.ts';
import { startBenchService, stopBenchService, waitForHealth } from './support/benchService.ts';
import { positiveInteger } from './support/options.ts';
import { moveAsyncCheckpoints, waitForAsyncProjections, waitForFieldIndexes } from './support/readiness.ts';
import { prepareSite } from './support/benchSite.ts';
import { createScratchDatabase, scratchServerUrl } from './support/scratchDatabase.ts';
import { mulberry32 } from './support/mulberry32.ts';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p90: number; p97_5: number; p99: number; max: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
  '2xx': number;
}
interface AutocannonRequest {
  method?: string;
  path?: string;
  body?: string;
  headers?: Record<string, string>;
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const HTTP_SEED_WITH_FAST = 100_000;
const TARGETS = { createPerSecond: 1_500, bulkItemsPerSecond: 10_000, readOnePerSecond: 5_000, listPerSecond: 2_000, listP99Ms: 25 };
const STATUSES = ['published', 'published', 'published', 'published', 'published', 'draft', 'draft', 'draft', 'archived', 'archived'];
const TAGS = ['news', 'tech', 'science', 'sports', 'culture', 'politics', 'travel', 'food', 'health', 'business', 'opinion', 'local'];
const WORDS = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua ' +
  'ut enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo consequat duis aute irure in ' +
  'reprehenderit voluptate velit esse cillum fugiat nulla pariatur excepteur sint occaecat cupidatat non proident sunt culpa qui officia deserunt mollit anim id est laborum'
).split(' ');

const usage = `usage: npm run bench -- items [--items 100000] [--duration 10] [--connections 10] [--bulk-connections 4] [--reuse <database>] [--keep]
  --items        articles to seed (default 100000; 1000000 for the 1M figures)
  --duration     seconds per measured scenario (default 10, after a 2 s warm-up)
  --connections  concurrent HTTP connections (default 10)
  --bulk-connections  concurrent bulk requests of 500 items in the bulk scenario (default 4: a few parallel importers)
  --reuse        an existing scratch database (from --keep) whose site is seeded already
  --keep         keep the scratch database (prints its name)
  --scenarios    comma list of baseline,create,bulk,read,list,listCount,nested,update,asOf (default all but baseline and asOf)
  --fast-seed    seed the first 100,000 over HTTP, the rest in-process through createItems (the real command
                 path: decider, bulk append, items projection) with only the content read models inline; the
                 async read models are moved past those events (search, change feed and audit do not index them)`;

function article(i: number, authorIds: string[]): Record<string, unknown> {
  const random = mulberry32(0x5eed0000 + i);
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
  const tagCount = 1 + Math.floor(random() * 3);
  const tags: string[] = [];
  for (let k = 0; k < tagCount; k++) {
    const tag = TAGS[Math.floor(random() * TAGS.length)]!;
    if (!tags.includes(tag)) tags.push(tag);
  }
  return {
    title: `Article ${i}: ${words(5)}`,
    body: words(60 + Math.floor(random() * 60)),
    status: STATUSES[Math.floor(random() * STATUSES.length)],
    views: Math.floor(random() * 100000),
    published_at: new Date(Date.UTC(2023, 0, 1) + Math.floor(random() * 2 * 365 * 24 * 3600 * 1000)).toISOString(),
    tags,
    author: authorIds[Math.floor(random() * authorIds.length)],
  };
}


function startService(databaseUrl: string, port: number): ChildProcess {
  return startBenchService(databaseUrl, port, { SVC_ACCESS_TOKEN_TTL: '86400', SVC_BODY_LIMIT: String(8 * 1024 * 1024) });
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      items: { type: 'string', default: '100000' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      'bulk-connections': { type: 'string', default: '4' },
      reuse: { type: 'string' },
      keep: { type: 'boolean', default: false },
      scenarios: { type: 'string', default: 'create,bulk,read,list,listCount,nested,update' },
      'fast-seed': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const serverUrl = scratchServerUrl();
  const itemCount = positiveInteger(values.items, 'items', usage);
  const duration = positiveInteger(values.duration, 'duration', usage);
  const connections = positiveInteger(values.connections, 'connections', usage);
  const bulkConnections = positiveInteger(values['bulk-connections'], 'bulk-connections', usage);
  const scenarios = new Set(values.scenarios!.split(','));

  const scratch = await createScratchDatabase(serverUrl, values.reuse ?? `svc_bench_items_${Date.now().toString(36)}`, {
    reuse: values.reuse !== undefined,
  });
  const databaseName = scratch.name;
  const databaseUrl = new URL(scratch.url);
  await migrate(scratch.url);
  const owner = new pg.Client({ connectionString: databaseUrl.toString() });
  await owner.connect();

  const port = 18_000 + Math.floor(Math.random() * 2_000);
  let child = startService(databaseUrl.toString(), port);
  const base = `http://127.0.0.1:${port}/api/v1`;
  const results: Record<string, unknown> = {};
  try {
    await waitForHealth(base, child);
    const siteId = 'bench';
    const session = await prepareSite(base, siteId, values.reuse !== undefined);
    const headers = { authorization: `Bearer ${session.token}`, 'x-svc-site': siteId, 'content-type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
      return text ? JSON.parse(text) : null;
    };

    let authorIds: string[];
    const existing = await owner.query<{ count: string }>(`SELECT count(*) FROM items WHERE site_id = $1 AND collection = 'articles'`, [siteId]);
    const seeded = Number(existing.rows[0]?.count ?? 0);
    if (!values.reuse) {
      await createSchema(call);
      const authors = await call('POST', '/items/authors', Array.from({ length: 50 }, (_, i) => ({ name: `Author ${String(i + 1).padStart(2, '0')}` })));
      authorIds = authors.data.map((author: { id: string }) => author.id);
    } else {
      authorIds = (await call('GET', '/items/authors?fields=id&limit=50&sort=name')).data.map((author: { id: string }) => author.id);
    }
    const httpTarget = values['fast-seed'] ? Math.min(itemCount, Math.max(seeded, HTTP_SEED_WITH_FAST)) : itemCount;
    if (seeded < httpTarget) {
      console.log(`seeding ${httpTarget - seeded} articles through POST /items/articles (bulk arrays of 500, one request at a time)…`);
      const started = performance.now();
      for (let next = seeded + 1; next <= httpTarget; next += 500) {
        const batch = [];
        for (let i = next; i < Math.min(next + 500, httpTarget + 1); i++) batch.push(article(i, authorIds));
        await call('POST', '/items/articles', batch);
        if ((next - seeded - 1) % 50_000 === 0 && next > seeded + 1) {
          const seconds = (performance.now() - started) / 1000;
          console.log(`  ${next - 1 - seeded} seeded, ${Math.round((next - 1 - seeded) / seconds)} items/s`);
        }
      }
      const seconds = (performance.now() - started) / 1000;
      results.seed = { items: httpTarget - seeded, seconds: round(seconds), itemsPerSecond: Math.round((httpTarget - seeded) / seconds), via: 'HTTP', concurrency: 1 };
      console.log(`seeded in ${round(seconds)} s: ${Math.round((httpTarget - seeded) / seconds)} items/s`);
    }
    if (httpTarget < itemCount) {
      // The service stops meanwhile, so its projection daemon does not index the seed.
      await stopBenchService(child);
      const from = Math.max(seeded, httpTarget) + 1;
      results.fastSeed = await fastSeed(databaseUrl.toString(), siteId, from, itemCount, authorIds);
      child = startService(databaseUrl.toString(), port);
      await waitForHealth(base, child);
    }
    if (seeded < itemCount) {
      // The read models lists and time travel plan against (a deployment's autovacuum would do this).
      for (const table of ['items', 'events', 'item_history']) await owner.query(`VACUUM ANALYZE ${table}`);
    }
    await waitForAsyncProjections(owner);
    await waitForFieldIndexes(owner, siteId);
    const total = Number((await owner.query<{ count: string }>(`SELECT count(*) FROM items WHERE site_id = $1 AND collection = 'articles'`, [siteId])).rows[0]?.count);
    console.log(`articles in the collection: ${total}`);
    const ids = (await owner.query<{ id: string }>(`SELECT id FROM items WHERE site_id = $1 AND collection = 'articles' ORDER BY random() LIMIT 2000`, [siteId])).rows.map(
      (row) => row.id,
    );

    const listPath = '/items/articles?filter[status][_eq]=published&sort=-published_at&limit=25&meta=none';
    // Each scenario starts with the async read models caught up (a write scenario's warm-up, or the
    // previous scenario, would otherwise leave their work to this one), and reports how long they took
    // to catch up after it: the write path's figure counts the synchronous part, the catch-up the rest.
    const measure = async (name: string, options: Record<string, unknown>) => {
      await autocannon({ url: base.replace('/api/v1', ''), connections, duration: 2, headers, ...options });
      await waitForAsyncProjections(owner, { quiet: true });
      const cpuBefore = processCpuMs(child.pid);
      const result = await autocannon({ url: base.replace('/api/v1', ''), connections, duration, headers, ...options });
      const cpuMs = processCpuMs(child.pid) - cpuBefore;
      const asyncCatchUpSeconds = round((await waitForAsyncProjections(owner, { quiet: true })) / 1000);
      const summary = { ...summarize(result), serverCpuMsPerRequest: round(cpuMs / Math.max(1, result.requests.total)), asyncCatchUpSeconds };
      results[name] = summary;
      console.log(
        `${name.padEnd(10)} ${String(summary.requestsPerSecond).padStart(7)} req/s  p50 ${summary.latencyMs.p50} ms  p99 ${summary.latencyMs.p99} ms  ` +
          `server CPU ${summary.serverCpuMsPerRequest} ms/req  non-2xx ${summary.non2xx}  errors ${summary.errors}  async catch-up ${asyncCatchUpSeconds} s`,
      );
      return summary;
    };
    let counter = 0;
    let cursor = 0;
    const nextId = () => ids[cursor++ % ids.length]!;
    if (scenarios.has('baseline')) {
      await measure('version', { headers: {}, requests: [{ method: 'GET', path: '/api/v1/utils/version' }] });
      await measure('authMe', { requests: [{ method: 'GET', path: '/api/v1/auth/me' }] });
    }
    if (scenarios.has('read')) await measure('read', { requests: [{ method: 'GET', setupRequest: (r: AutocannonRequest) => ({ ...r, path: `/api/v1/items/articles/${nextId()}` }) }] });
    if (scenarios.has('list')) await measure('list', { requests: [{ method: 'GET', path: `/api/v1${listPath}` }] });
    if (scenarios.has('asOf')) {
      // Time travel to a moment after the seed: one item, and a page in id order. The current version
      // of an item is its items row, valid from the event that made it.
      const historyIds = (
        await owner.query<{ id: string }>(
          `SELECT id FROM items WHERE site_id = $1 AND collection = 'articles' ORDER BY random() LIMIT 2000`,
          [siteId],
        )
      ).rows.map((row) => row.id);
      let historyCursor = 0;
      const moment = encodeURIComponent(new Date().toISOString());
      await measure('asOfRead', {
        requests: [{ method: 'GET', setupRequest: (r: AutocannonRequest) => ({ ...r, path: `/api/v1/items/articles/${historyIds[historyCursor++ % historyIds.length]}?asOf=${moment}` }) }],
      });
      await measure('asOfList', { requests: [{ method: 'GET', path: `/api/v1/items/articles?asOf=${moment}&filter[status][_eq]=published&sort=id&limit=25&meta=none` }] });
    }
    if (scenarios.has('listCount')) {
      await measure('listCount', { requests: [{ method: 'GET', path: `/api/v1${listPath.replace('&meta=none', '')}` }] });
    }
    // Before the write scenarios, and their items sort last: created drafts dated before every seeded
    // article, so that a --reuse run's list does not walk past earlier runs' drafts.
    results.explain = await explainList(databaseUrl.toString(), siteId, listPath);
    if (scenarios.has('nested')) await measure('nested', { requests: [{ method: 'GET', path: '/api/v1/items/articles?fields=id,title,author.name&limit=25&meta=none' }] });
    if (scenarios.has('create')) {
      await measure('create', {
        requests: [
          {
            method: 'POST',
            setupRequest: (r: AutocannonRequest) => ({
              ...r,
              path: '/api/v1/items/articles',
              body: JSON.stringify({ title: `Bench item ${++counter}`, body: 'Short body for the create benchmark.', status: 'draft', views: counter, published_at: '2022-06-01T00:00:00.000Z', tags: ['bench'], author: authorIds[0] }),
            }),
          },
        ],
      });
    }
    if (scenarios.has('update')) {
      await measure('update', {
        requests: [
          {
            method: 'PATCH',
            setupRequest: (r: AutocannonRequest) => ({ ...r, path: `/api/v1/items/articles/${nextId()}`, body: JSON.stringify({ title: `Updated item ${++counter}`, views: counter }) }),
          },
        ],
      });
    }
    if (scenarios.has('bulk')) {
      // Dated like the create scenario's drafts, so that --reuse runs do not pile copies of the same
      // 500 articles at the top of the list scenario's sort.
      const bulkBody = JSON.stringify(
        Array.from({ length: 500 }, (_, i) => ({ ...article(itemCount + 1 + i, authorIds), status: 'draft', published_at: '2022-06-01T00:00:00.000Z' })),
      );
      const summary = await measure('bulk', { connections: bulkConnections, requests: [{ method: 'POST', path: '/api/v1/items/articles', body: bulkBody }] });
      // From the request count (a handful per second: the per-second average would round to 500s).
      const itemsPerSecond = Math.round((summary.requests * 500) / duration);
      // Sustained: until the async read models (search, change feed, audit) have indexed them too.
      const sustainedItemsPerSecond = Math.round((summary.requests * 500) / (duration + summary.asyncCatchUpSeconds));
      results.bulk = { ...summary, itemsPerSecond, sustainedItemsPerSecond, itemsPerRequest: 500, connections: bulkConnections };
      console.log(
        `bulk       ${itemsPerSecond} items/s (500 items per request, ${bulkConnections} connections); ` +
          `${sustainedItemsPerSecond} items/s until the async read models caught up`,
      );
    }

    const report = {
      benchmark: 'items',
      at: new Date().toISOString(),
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
      postgres: (await owner.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version,
      articles: total,
      connections,
      durationSeconds: duration,
      targets: TARGETS,
      results,
    };
    mkdirSync('bench-results', { recursive: true });
    const file = join('bench-results', `items-${total}-${Date.now().toString(36)}.json`);
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`results written to ${file}`);
  } finally {
    await stopBenchService(child);
    await owner.end();
    if (!values.keep && !values.reuse) {
      await scratch.drop();
    } else {
      console.log(`kept database ${databaseName} (rerun with --reuse ${databaseName})`);
    }
  }
}

/**
 * Seeds articles from..to in-process through createItems (validation, decider, one bulk append per
 * 500, the items projection inline) on a context whose only read models are the content ones, then
 * moves every async projection's checkpoint to the head of the log so the service does not replay
 * the seed into search, change feed and audit.
 */
async function fastSeed(databaseUrl: string, siteId: string, from: number, to: number, authorIds: string[]) {
  console.log(`seeding ${to - from + 1} articles in-process through createItems (content read models only)…`);
  const database = createDatabase({ connectionString: databaseUrl, poolSize: 4 });
  const { context, close } = await createInProcessContext(database, [schemaProjection, itemsProjection]);
  const access = await instanceAccess(context, siteId);
  const metadata = { actor: { kind: 'system' as const, id: 'bench-seed' } };
  const started = performance.now();
  try {
    const inFlight: Promise<unknown>[] = [];
    for (let next = from; next <= to; next += 500) {
      const batch = [];
      for (let i = next; i < Math.min(next + 500, to + 1); i++) batch.push(article(i, authorIds));
      inFlight.push(createItems(context, { siteId, collection: 'articles', items: batch, access, metadata }));
      if (inFlight.length >= 2) await inFlight.shift();
      if ((next - from) % 100_000 === 0 && next > from) {
        console.log(`  ${next - from} seeded, ${Math.round((next - from) / ((performance.now() - started) / 1000))} items/s`);
      }
    }
    await Promise.all(inFlight);
  } finally {
    await close();
    await database.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const owner = new pg.Client({ connectionString: databaseUrl });
  await owner.connect();
  try {
    await moveAsyncCheckpoints(owner);
  } finally {
    await owner.end();
  }
  console.log(`seeded in ${round(seconds)} s: ${Math.round((to - from + 1) / seconds)} items/s (in-process, 2 bulk creates in flight)`);
  return { items: to - from + 1, seconds: round(seconds), itemsPerSecond: Math.round((to - from + 1) / seconds), via: 'createItems in-process, content projections only' };
}

/** CPU time (user + system) the process has used, from /proc (Linux; 0 elsewhere). */
function processCpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function summarize(result: AutocannonResult) {
  return {
    requestsPerSecond: Math.round(result.requests.average),
    requests: result.requests.total,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p97_5: result.latency.p97_5, p99: result.latency.p99, max: result.latency.max },
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

async function createSchema(call: (method: string, path: string, body?: unknown) => Promise<unknown>): Promise<void> {
  await call('POST', '/collections', { name: 'authors', fields: [{ field: 'name', type: 'string' }] });
  await call('POST', '/collections', {
    name: 'articles',
    fields: [
      { field: 'title', type: 'string' },
      { field: 'body', type: 'text' },
      { field: 'views', type: 'integer', indexed: true },
      { field: 'published_at', type: 'dateTime', indexed: true },
      { field: 'tags', type: 'json' },
      { field: 'author', type: 'uuid' },
    ],
  });
  await call('POST', '/relations', { kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors', onDelete: 'set null' });
}
