// What the typed SDK (sdk/src, `createSvcClient`) costs its caller over plain `fetch` on the same
// requests, for docs/performance.md. The service runs as a child process (`svc start`, LOG_LEVEL=warn,
// rate limits off) on a scratch database of DATABASE_URL's server; the requests are sent from this
// process by `--concurrency` async loops back to back (not autocannon: the figure is the client
// library's own cost in the caller's process), each case for `--duration` seconds after a 2 s warm-up
// (and a first warm-up pass over all cases).
//   read one: GET /items/articles/:id by (a) fetch + JSON, (b) client.api.GET, (c) client.items().get
//   list:     GET /items/articles?filter={"views":{"_gt":500}}&sort=-views&limit=25 by (a) fetch, (b) client.items().list
// Every case sends the same credential, an API key of the site's admin role, and the same ids in the
// same seeded order. Per case: requests/s, p50/p99 latency, this process's CPU per request
// (process.cpuUsage), the service's CPU per request (/proc); per SDK case its overhead over fetch.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { migrate } from '../../infra/postgres/migrate.ts';
import { createSvcClient } from '../../sdk/src/index.ts';
import { startBenchService, stopBenchService, waitForHealth } from './support/benchService.ts';
import { prepareSite } from './support/benchSite.ts';
import { positiveInteger } from './support/options.ts';
import { percentile } from './support/percentile.ts';
import { cpuMs } from './support/processCpu.ts';
import { waitForAsyncProjections } from './support/readiness.ts';
import { createScratchDatabase, scratchServerUrl } from './support/scratchDatabase.ts';
import { mulberry32 } from './support/mulberry32.ts';

const SITE = 'sdkbench';
const BATCH = 500;
const WARM_UP_SECONDS = 2;
const ID_SEED = 0x5d4b3e7;
const LIST_FILTER = { views: { _gt: 500 } };

const usage = `usage: npm run bench -- sdk [--items 1000] [--duration 10] [--concurrency 10] [--keep]
  --items        articles seeded over HTTP (bulk POSTs of ${BATCH})
  --duration     seconds per measured case (after a ${WARM_UP_SECONDS} s warm-up)
  --concurrency  async request loops in this process
  --keep         keep the scratch database (prints its name)`;

/** The collection as `svc types` would type it: the SDK's typed item queries are part of what is measured. */
interface Article {
  id: string;
  title: string | null;
  views: number | null;
}
interface BenchCollections {
  articles: Article;
}

interface CaseFigures {
  requests: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
  clientCpuUsPerRequest: number;
  serverCpuUsPerRequest: number | null;
  errors: number;
  firstError?: string;
}
interface Overhead {
  clientCpuUsPerRequest: number;
  clientCpuPercent: number;
  requestsPerSecondPercent: number;
  p50Ms: number;
}
type Scenario = 'readOne' | 'list';
interface Case {
  scenario: Scenario;
  name: string;
  label: string;
  /** One request; `id` is the next seeded id (read one only). */
  send: (id: string) => Promise<unknown>;
  /** What the answer says, reduced to compare the cases of a scenario before measuring. */
  digest: (answer: unknown) => string;
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      items: { type: 'string', default: '1000' },
      duration: { type: 'string', default: '10' },
      concurrency: { type: 'string', default: '10' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const itemCount = positiveInteger(values.items, 'items', usage);
  const duration = positiveInteger(values.duration, 'duration', usage);
  const concurrency = positiveInteger(values.concurrency, 'concurrency', usage);

  const scratch = await createScratchDatabase(scratchServerUrl(), `svc_bench_sdk_${Date.now().toString(36)}`);
  const owner = new pg.Client({ connectionString: scratch.url });
  let child: ChildProcess | undefined;
  try {
    await migrate(scratch.url);
    await owner.connect();
    const port = 22_000 + Math.floor(Math.random() * 2_000);
    child = startBenchService(scratch.url, port, { SVC_ACCESS_TOKEN_TTL: '86400' });
    const origin = `http://127.0.0.1:${port}`;
    const base = `${origin}/api/v1`;
    await waitForHealth(base, child);
    const session = await prepareSite(base, SITE, false);
    const adminHeaders = { authorization: `Bearer ${session.token}`, 'x-svc-site': SITE, 'content-type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, { method, headers: adminHeaders, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
      return (text ? JSON.parse(text) : null) as { data: unknown };
    };

    await call('POST', '/collections', {
      name: 'articles',
      fields: [
        { field: 'title', type: 'string' },
        { field: 'views', type: 'integer' },
      ],
    });
    const ids = await seed(call, itemCount);
    const roles = (await call('GET', '/roles')).data as { id: string; admin: boolean }[];
    const adminRole = roles.find((role) => role.admin);
    if (!adminRole) throw new Error('the site has no admin role');
    const apiKey = ((await call('POST', '/api-keys', { name: 'sdk bench', roleId: adminRole.id })).data as { key: string }).key;
    await waitForAsyncProjections(owner);

    const cases = benchCases(origin, apiKey);
    await checkAgreement(cases, ids);
    console.log(
      `${ids.length} articles; ${cases.length} cases of ${duration} s (after a ${WARM_UP_SECONDS} s warm-up), ${concurrency} loops in this process, credential: an API key of the admin role`,
    );

    // A first pass over every case, so that the first measured case does not pay for warming the
    // service's and this process's JIT and connection pools alone; then each case's own warm-up.
    for (const benchCase of cases) await closedLoop(benchCase, ids, WARM_UP_SECONDS, concurrency, child.pid);
    const results: Record<Scenario, Record<string, CaseFigures>> = { readOne: {}, list: {} };
    for (const benchCase of cases) {
      await closedLoop(benchCase, ids, WARM_UP_SECONDS, concurrency, child.pid);
      await waitForAsyncProjections(owner, { quiet: true });
      const figures = await closedLoop(benchCase, ids, duration, concurrency, child.pid);
      results[benchCase.scenario][benchCase.name] = figures;
      console.log(`  ${benchCase.label.padEnd(34)} ${String(figures.requestsPerSecond).padStart(6)} req/s  client CPU ${figures.clientCpuUsPerRequest} µs/req${figures.errors ? `  errors ${figures.errors}` : ''}`);
    }
    const overhead = overheads(results);
    printSummary(cases, results, overhead);

    const at = new Date().toISOString();
    const report = {
      benchmark: 'sdk',
      at,
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
      postgres: (await owner.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version,
      articles: ids.length,
      concurrency,
      durationSeconds: duration,
      warmUpSeconds: WARM_UP_SECONDS,
      credential: 'apiKey (admin role)',
      requests: {
        readOne: 'GET /api/v1/items/articles/:id (seeded ids, the same order for each case)',
        list: `GET /api/v1/items/articles?filter=${JSON.stringify(LIST_FILTER)}&sort=-views&limit=25`,
      },
      results,
      overheadVsFetch: overhead,
    };
    console.log(JSON.stringify(report));
    mkdirSync('bench-results', { recursive: true });
    const file = join('bench-results', `sdk-${at.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`results written to ${file}`);
  } finally {
    if (child) await stopBenchService(child);
    await owner.end().catch(() => {});
    if (values.keep) console.log(`kept the scratch database ${scratch.name}`);
    else await scratch.drop();
  }
}

/** Seeds `count` articles (views 0–999, seeded) in bulk POSTs of BATCH, one at a time; answers their ids. */
async function seed(call: (method: string, path: string, body?: unknown) => Promise<{ data: unknown }>, count: number): Promise<string[]> {
  const random = mulberry32(0x5eed);
  const ids: string[] = [];
  const started = performance.now();
  for (let next = 0; next < count; next += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, count - next) }, (_, i) => ({
      title: `Article ${next + i + 1}`,
      views: Math.floor(random() * 1000),
    }));
    const created = (await call('POST', '/items/articles', batch)).data as { id: string }[];
    ids.push(...created.map((item) => item.id));
  }
  if (ids.length !== count) throw new Error(`seeded ${ids.length} articles, expected ${count}`);
  console.log(`seeded ${count} articles in ${round((performance.now() - started) / 1000)} s`);
  return ids;
}

/** The five cases: both scenarios by plain fetch, then by the SDK. */
function benchCases(origin: string, apiKey: string): Case[] {
  const headers = { authorization: `Bearer ${apiKey}`, 'x-svc-site': SITE };
  const plain = async (path: string) => {
    const response = await fetch(`${origin}${path}`, { headers });
    const body: unknown = await response.json();
    if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
    return body;
  };
  const client = createSvcClient<BenchCollections>({ baseUrl: origin, site: SITE, apiKey });
  const listPath = `/api/v1/items/articles?filter=${encodeURIComponent(JSON.stringify(LIST_FILTER))}&sort=-views&limit=25`;
  const oneDigest = (item: unknown) => {
    const { id, title, views } = item as Article;
    return JSON.stringify({ id, title, views });
  };
  const pageDigest = (page: unknown) => JSON.stringify((page as { data: Article[] }).data.map((item) => [item.id, item.views]));
  return [
    {
      scenario: 'readOne',
      name: 'fetch',
      label: 'read one: fetch',
      send: (id) => plain(`/api/v1/items/articles/${id}`),
      digest: (answer) => oneDigest((answer as { data: unknown }).data),
    },
    {
      scenario: 'readOne',
      name: 'api',
      label: 'read one: client.api.GET',
      send: (id) => client.api.GET('/api/v1/items/{collection}/{id}', { params: { path: { collection: 'articles', id } } }),
      digest: (answer) => oneDigest((answer as { data: { data: unknown } }).data.data),
    },
    {
      scenario: 'readOne',
      name: 'items',
      label: 'read one: client.items().get',
      send: (id) => client.items('articles').get(id),
      digest: (answer) => oneDigest((answer as { data: unknown }).data),
    },
    { scenario: 'list', name: 'fetch', label: 'list: fetch', send: () => plain(listPath), digest: pageDigest },
    {
      scenario: 'list',
      name: 'items',
      label: 'list: client.items().list',
      send: () => client.items('articles').list({ filter: LIST_FILTER, sort: ['-views'], limit: 25 }),
      digest: pageDigest,
    },
  ];
}

/** Before measuring: the cases of a scenario answer the same thing (the SDK sends the same query). */
async function checkAgreement(cases: Case[], ids: string[]): Promise<void> {
  const id = ids[0]!;
  const digests = new Map<Scenario, string>();
  for (const benchCase of cases) {
    const digest = benchCase.digest(await benchCase.send(id));
    const expected = digests.get(benchCase.scenario);
    if (expected === undefined) digests.set(benchCase.scenario, digest);
    else if (digest !== expected) throw new Error(`${benchCase.label} answers differently from fetch:\n  ${digest.slice(0, 300)}\n  ${expected.slice(0, 300)}`);
  }
  const page = JSON.parse(digests.get('list')!) as [string, number][];
  const sorted = page.every(([, views], i) => i === 0 || views <= page[i - 1]![1]);
  if (page.length === 0 || !sorted || page.some(([, views]) => views <= LIST_FILTER.views._gt)) throw new Error(`the list answered an unexpected page: ${JSON.stringify(page)}`);
}

/**
 * `concurrency` loops sending `benchCase` back to back for `seconds`; the figures of that window.
 * Every case starts the id order from the same seed.
 */
async function closedLoop(benchCase: Case, ids: string[], seconds: number, concurrency: number, servicePid: number | undefined): Promise<CaseFigures> {
  const random = mulberry32(ID_SEED);
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const serverBefore = cpuMs(servicePid);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const stopAt = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < stopAt) {
        const id = ids[Math.floor(random() * ids.length)]!;
        const sent = performance.now();
        try {
          await benchCase.send(id);
          latencies.push(performance.now() - sent);
        } catch (error) {
          errors += 1;
          firstError ??= error instanceof Error ? error.message : String(error);
        }
      }
    }),
  );
  const elapsedSeconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const serverAfter = cpuMs(servicePid);
  const requests = latencies.length + errors;
  latencies.sort((a, b) => a - b);
  return {
    requests,
    requestsPerSecond: Math.round(latencies.length / elapsedSeconds),
    latencyMs: { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)), max: round(latencies.at(-1) ?? 0) },
    clientCpuUsPerRequest: round((cpu.user + cpu.system) / Math.max(1, requests), 1),
    serverCpuUsPerRequest: serverBefore === null || serverAfter === null ? null : round(((serverAfter - serverBefore) * 1000) / Math.max(1, requests), 0),
    errors,
    ...(firstError === undefined ? {} : { firstError }),
  };
}

/** Each SDK case against plain fetch on the same scenario. */
function overheads(results: Record<Scenario, Record<string, CaseFigures>>): Record<string, Overhead> {
  const out: Record<string, Overhead> = {};
  for (const scenario of Object.keys(results) as Scenario[]) {
    const plain = results[scenario].fetch;
    if (!plain) continue;
    for (const [name, figures] of Object.entries(results[scenario])) {
      if (name === 'fetch') continue;
      out[`${scenario}.${name}`] = {
        clientCpuUsPerRequest: round(figures.clientCpuUsPerRequest - plain.clientCpuUsPerRequest, 1),
        clientCpuPercent: round(((figures.clientCpuUsPerRequest - plain.clientCpuUsPerRequest) / plain.clientCpuUsPerRequest) * 100, 1),
        requestsPerSecondPercent: round(((figures.requestsPerSecond - plain.requestsPerSecond) / plain.requestsPerSecond) * 100, 1),
        p50Ms: round(figures.latencyMs.p50 - plain.latencyMs.p50),
      };
    }
  }
  return out;
}

function printSummary(cases: Case[], results: Record<Scenario, Record<string, CaseFigures>>, overhead: Record<string, Overhead>): void {
  const sign = (value: number) => (value > 0 ? `+${value}` : String(value));
  console.log('\ncase                                 req/s   p50 ms   p99 ms   client CPU µs/req   service CPU µs/req   vs fetch (client CPU, req/s)');
  for (const benchCase of cases) {
    const figures = results[benchCase.scenario][benchCase.name]!;
    const against = overhead[`${benchCase.scenario}.${benchCase.name}`];
    console.log(
      `${benchCase.label.padEnd(34)} ${String(figures.requestsPerSecond).padStart(7)} ${String(figures.latencyMs.p50).padStart(8)} ${String(figures.latencyMs.p99).padStart(8)} ` +
        `${String(figures.clientCpuUsPerRequest).padStart(19)} ${String(figures.serverCpuUsPerRequest ?? 'n/a').padStart(20)}   ` +
        (against ? `${sign(against.clientCpuUsPerRequest)} µs (${sign(against.clientCpuPercent)}%), ${sign(against.requestsPerSecondPercent)}% req/s` : '(baseline)') +
        (figures.errors ? `  ${figures.errors} errors: ${figures.firstError}` : ''),
    );
  }
  console.log('');
}
