// Public delivery and the pageview beacon at 10 connections, against the service as a child process
// (`svc start`, NODE_ENV=production, the delivery and pageview rate limits off, no Redis) on a scratch
// database of DATABASE_URL's server. Seeds a site: articles (m2o author and category) with authors and
// categories, the public role granted read on the three, and a page `home` whose layout holds 3 list
// blocks (10 items each). Then, alternated over the rounds, every answer checked:
// 1. cached: GET /deliver/page/<site>/home anonymous (the response cache serves it after the warm-up);
// 2. 304: the same with If-None-Match: <its ETag> (every answer must be 304);
// 3. miss: the uncached build: `?v=<n>` unique per request defeats the response cache without a write
//    (the cache key is the URL; SVC_DELIVER_SMAXAGE and the cache stay as configured), so every answer
//    hydrates the page's 3 lists (and stores the answer, as a real miss does);
// 4. beacon: POST /pageviews/<site>/hit { "path": "/p<n>" } with a browser user agent (204), then
//    POST /pageviews/flush and GET /pageviews/stats until every 204 is counted.
// Service, database and client CPU per request from /proc. Targets on the 2-core machine: 8,000,
// 10,000, 1,500 and 5,000 req/s.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { migrate } from '../../infra/postgres/migrate.ts';
import { BENCH_INSTANCE_TOKEN, startBenchService, stopBenchService, waitForHealth } from './support/benchService.ts';
import { prepareSite } from './support/benchSite.ts';
import { positiveInteger } from './support/options.ts';
import { waitForAsyncProjections, waitForFieldIndexes } from './support/readiness.ts';
import { createScratchDatabase, scratchServerUrl } from './support/scratchDatabase.ts';
import { backendsCpuMs, cpuMs } from './support/processCpu.ts';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  '4xx': number;
  '5xx': number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const usage = `usage: npm run bench -- delivery [--articles 5000] [--duration 10] [--warmup 3] [--rounds 3] [--connections 10] [--paths 100] [--keep]
  --articles     articles to seed (each with one of 50 authors and one of 12 categories)
  --duration     seconds per measured round of each scenario (after a --warmup of each)
  --rounds       rounds (cached, 304, miss, beacon in turn); figures are the median
  --paths        distinct beacon paths (/p0 … /p<paths-1>)
  --keep         keep the scratch database (prints its name)`;

const SCENARIOS = ['cached', 'notModified', 'miss', 'beacon'] as const;
type Scenario = (typeof SCENARIOS)[number];
const TARGET: Record<Scenario, number> = { cached: 8_000, notModified: 10_000, miss: 1_500, beacon: 5_000 };
const LABEL: Record<Scenario, string> = { cached: 'cached 200', notModified: '304', miss: 'miss (uncached)', beacon: 'beacon 204' };
const EXPECTED_STATUS: Record<Scenario, number> = { cached: 200, notModified: 304, miss: 200, beacon: 204 };
const SITE = 'delivbench';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const BLOCKS = [
  { key: 'latest', type: 'list', collection: 'articles', fields: ['id', 'title', 'published_at', 'author.name', 'category.name'], sort: ['-published_at'], limit: 10 },
  { key: 'authors', type: 'list', collection: 'authors', fields: ['id', 'name'], sort: ['name'], limit: 10 },
  { key: 'categories', type: 'list', collection: 'categories', fields: ['id', 'name'], sort: ['name'], limit: 10 },
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const round2 = (value: number) => Math.round(value * 100) / 100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Call = <T = { data: unknown }>(method: string, path: string, body?: unknown, token?: string) => Promise<T>;
function caller(base: string, siteId: string, adminToken: string): Call {
  return async <T>(method: string, path: string, body?: unknown, token = adminToken) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'x-svc-site': siteId, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 2_000)}`);
    return (text ? JSON.parse(text) : null) as T;
  };
}


async function seed(call: Call, articles: number): Promise<{ seconds: number }> {
  const started = performance.now();
  await call('POST', '/collections', { name: 'authors', fields: [{ field: 'name', type: 'string' }] });
  await call('POST', '/collections', { name: 'categories', fields: [{ field: 'name', type: 'string' }] });
  await call('POST', '/collections', {
    name: 'articles',
    fields: [
      { field: 'title', type: 'string' },
      { field: 'summary', type: 'text' },
      { field: 'published_at', type: 'dateTime', indexed: true },
      { field: 'author', type: 'uuid' },
      { field: 'category', type: 'uuid' },
    ],
  });
  for (const [field, relatedCollection] of [['author', 'authors'], ['category', 'categories']]) {
    await call('POST', '/relations', { kind: 'm2o', collection: 'articles', field, relatedCollection, onDelete: 'set null' });
  }
  const bulk = async (collection: string, rows: Record<string, unknown>[]) => (await call<{ data: { id: string }[] }>('POST', `/items/${collection}`, rows)).data.map((row) => row.id);
  const authorIds = await bulk('authors', Array.from({ length: 50 }, (_, i) => ({ name: `Author ${String(i + 1).padStart(2, '0')}`, status: 'published' })));
  const categoryIds = await bulk('categories', Array.from({ length: 12 }, (_, i) => ({ name: `Category ${String(i + 1).padStart(2, '0')}`, status: 'published' })));
  const start = Date.UTC(2024, 0, 1);
  for (let next = 0; next < articles; next += 500) {
    await bulk(
      'articles',
      Array.from({ length: Math.min(500, articles - next) }, (_, k) => {
        const i = next + k;
        return {
          title: `Article ${i + 1}`,
          summary: `Summary of article ${i + 1}: a sentence or two, as a listing shows it.`,
          status: 'published',
          published_at: new Date(start + ((i * 7919) % articles) * 60_000).toISOString(),
          author: authorIds[i % authorIds.length],
          category: categoryIds[i % categoryIds.length],
        };
      }),
    );
  }
  // The public role reads the three collections (one policy, one rule each, attached to the role).
  const roles = await call<{ data: { id: string; systemKey: string | null }[] }>('GET', '/roles');
  const publicRole = roles.data.find((role) => role.systemKey === 'public');
  if (!publicRole) throw new Error(`GET /roles lists no public role: ${JSON.stringify(roles.data).slice(0, 500)}`);
  const policy = await call<{ data: { id: string } }>('POST', '/policies', { name: 'public delivery' });
  for (const collection of ['articles', 'authors', 'categories']) await call('POST', `/policies/${policy.data.id}/permissions`, { collection, action: 'read' });
  await call('POST', `/policies/${policy.data.id}/attach`, { roleId: publicRole.id });
  await call('POST', '/pages', { slug: 'home', title: 'Home', layoutConfig: { blocks: BLOCKS } });
  const seconds = round2((performance.now() - started) / 1000);
  console.log(`seeded ${articles} articles, 50 authors, 12 categories, the public grant and page "home" in ${seconds} s`);
  return { seconds };
}

/** The page as an anonymous visitor gets it, checked: 3 blocks of 10 items, the articles with their author's name. */
async function checkedPage(origin: string, path: string): Promise<{ etag: string; bytes: number }> {
  const response = await fetch(`${origin}${path}`);
  const text = await response.text();
  const etag = response.headers.get('etag');
  if (response.status !== 200 || !etag) throw new Error(`GET ${path}: ${response.status} (ETag ${etag}) ${text.slice(0, 1_000)}`);
  const blocks = (JSON.parse(text) as { data: { blocks: Record<string, { items?: { author?: { name?: unknown } }[]; error?: string }> } }).data.blocks;
  for (const block of BLOCKS) {
    const items = blocks[block.key]?.items ?? [];
    if (items.length !== 10 || blocks[block.key]?.error) throw new Error(`block ${block.key} of ${path} holds ${items.length} items: ${JSON.stringify(blocks[block.key]).slice(0, 500)}`);
  }
  if (blocks.latest!.items!.some((item) => typeof item.author?.name !== 'string')) throw new Error(`an article of ${path} came without its author's name`);
  return { etag, bytes: Buffer.byteLength(text) };
}

interface Round {
  requestsPerSecond: number;
  requests: number;
  p50: number;
  p99: number;
  max: number;
  non2xx3xx: number;
  errors: number;
  unexpected: number;
  nodeCpuMsPerRequest: number | null;
  dbCpuMsPerRequest: number | null;
  clientCpuMsPerRequest: number;
  /** Transactions committed or rolled back in the scratch database per request (pg_stat_database, background work included). */
  dbTransactionsPerRequest: number;
  beacon?: { answered204: number; sent: number; counted: number; allFound: boolean; flushMs: number };
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      articles: { type: 'string', default: '5000' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '10' },
      paths: { type: 'string', default: '100' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const articles = positiveInteger(values.articles, 'articles', usage);
  const duration = positiveInteger(values.duration, 'duration', usage);
  const warmup = positiveInteger(values.warmup, 'warmup', usage);
  const rounds = positiveInteger(values.rounds, 'rounds', usage);
  const connections = positiveInteger(values.connections, 'connections', usage);
  const paths = positiveInteger(values.paths, 'paths', usage);

  const scratch = await createScratchDatabase(scratchServerUrl(), `svc_bench_delivery_${Date.now().toString(36)}`);
  await migrate(scratch.url);
  const owner = new pg.Client({ connectionString: scratch.url });
  await owner.connect();
  const results: Record<string, unknown> = {};
  const figures: Record<Scenario, Round[]> = { cached: [], notModified: [], miss: [], beacon: [] };
  const port = 26_000 + Math.floor(Math.random() * 2_000);
  const environment = { SVC_DELIVER_RATE_LIMIT: '0', SVC_PAGEVIEW_RATE_LIMIT: '0', SVC_ACCESS_TOKEN_TTL: '86400', SVC_BODY_LIMIT: String(8 * 1024 * 1024) };
  const child = startBenchService(scratch.url, port, environment);
  const origin = `http://127.0.0.1:${port}`;
  const base = `${origin}/api/v1`;
  try {
    await waitForHealth(base, child);
    const { token } = await prepareSite(base, SITE, false);
    const call = caller(base, SITE, token);
    results.seed = await seed(call, articles);
    for (const table of ['items', 'events']) await owner.query(`VACUUM ANALYZE ${table}`);
    await waitForAsyncProjections(owner);
    await waitForFieldIndexes(owner, SITE);

    const pagePath = `/api/v1/deliver/page/${SITE}/home`;
    const first = await checkedPage(origin, pagePath);
    await checkedPage(origin, `${pagePath}?v=check`);
    const revalidated = await fetch(`${origin}${pagePath}`, { headers: { 'if-none-match': first.etag } });
    if (revalidated.status !== 304) throw new Error(`If-None-Match ${first.etag} answered ${revalidated.status}, not 304`);
    results.page = { path: pagePath, etag: first.etag, bytes: first.bytes, blocks: BLOCKS };
    console.log(`page ${pagePath}: ${first.bytes} bytes, ETag ${first.etag}`);

    // Stats and flush of the beacon's site: the whole site's views over the stats' default 30 days.
    const totalViews = async () => (await call<{ data: { views: number }[] }>('GET', '/pageviews/stats')).data.reduce((sum, day) => sum + day.views, 0);
    const flush = () => call<{ data: { days: number; views: number } }>('POST', '/pageviews/flush', undefined, BENCH_INSTANCE_TOKEN);

    let status: Map<number, number> = new Map();
    const tally = (code: number) => status.set(code, (status.get(code) ?? 0) + 1);
    let missCounter = 0;
    let beaconCounter = 0;
    let beaconSent = 0;
    let etag = first.etag;
    const optionsOf = (scenario: Scenario): Record<string, unknown> => {
      const onResponse = (code: number) => tally(code);
      switch (scenario) {
        case 'cached':
          return { requests: [{ method: 'GET', path: pagePath, onResponse }] };
        case 'notModified':
          return { headers: { 'if-none-match': etag }, requests: [{ method: 'GET', path: pagePath, onResponse }] };
        case 'miss':
          return { requests: [{ method: 'GET', path: pagePath, onResponse, setupRequest: (request: object) => ({ ...request, path: `${pagePath}?v=${(missCounter += 1)}` }) }] };
        case 'beacon':
          return {
            headers: { 'content-type': 'application/json', 'user-agent': BROWSER },
            requests: [
              {
                method: 'POST',
                path: `/api/v1/pageviews/${SITE}/hit`,
                onResponse,
                setupRequest: (request: object) => {
                  beaconSent += 1;
                  return { ...request, body: JSON.stringify({ path: `/p${(beaconCounter += 1) % paths}` }) };
                },
              },
            ],
          };
      }
    };

    const transactions = async () =>
      Number((await owner.query<{ n: string }>('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1', [scratch.name])).rows[0]!.n);
    const measure = async (scenario: Scenario, seconds: number): Promise<Round> => {
      if (scenario === 'notModified') {
        // The ETag of the moment (a write would rotate it; none is expected).
        const current = await checkedPage(origin, pagePath);
        if (current.etag !== etag) console.log(`  the ETag changed: ${etag} → ${current.etag}`);
        etag = current.etag;
      }
      let viewsBefore = 0;
      if (scenario === 'beacon') {
        await flush();
        viewsBefore = await totalViews();
        beaconSent = 0;
      }
      status = new Map();
      const transactionsBefore = await transactions();
      const nodeBefore = cpuMs(child.pid);
      const dbBefore = await backendsCpuMs(owner, scratch.name);
      const clientBefore = process.cpuUsage();
      const result = await autocannon({ url: origin, connections, duration: seconds, ...optionsOf(scenario) });
      const clientCpu = process.cpuUsage(clientBefore);
      let beacon: Round['beacon'];
      if (scenario === 'beacon') {
        // Hits in flight when autocannon stopped may still be counted: the service gets a moment, then
        // its buffer is flushed and the stats polled until they hold every 204 (or 15 s pass).
        await sleep(300);
        const flushStarted = performance.now();
        await flush();
        const flushMs = Math.round(performance.now() - flushStarted);
        const answered204 = status.get(204) ?? 0;
        let counted = (await totalViews()) - viewsBefore;
        for (const deadline = Date.now() + 15_000; counted < answered204 && Date.now() < deadline; counted = (await totalViews()) - viewsBefore) await sleep(250);
        beacon = { answered204, sent: beaconSent, counted, allFound: counted >= answered204 && counted <= beaconSent, flushMs };
      }
      const nodeAfter = cpuMs(child.pid);
      const dbAfter = await backendsCpuMs(owner, scratch.name);
      const total = Math.max(1, result.requests.total);
      let dbMs: number | null = null;
      if (dbBefore && dbAfter) {
        dbMs = 0;
        for (const [pid, ms] of dbAfter) dbMs += ms - (dbBefore.get(pid) ?? 0);
      }
      await sleep(1_100); // backends report their statistics at most once a second
      const dbTransactions = (await transactions()) - transactionsBefore;
      const answers = [...status.values()].reduce((a, b) => a + b, 0);
      return {
        requestsPerSecond: Math.round(result.requests.average),
        requests: result.requests.total,
        p50: result.latency.p50,
        p99: result.latency.p99,
        max: result.latency.max,
        non2xx3xx: result['4xx'] + result['5xx'],
        errors: result.errors + result.timeouts,
        unexpected: answers - (status.get(EXPECTED_STATUS[scenario]) ?? 0),
        nodeCpuMsPerRequest: nodeBefore === null || nodeAfter === null ? null : round2((nodeAfter - nodeBefore) / total),
        dbCpuMsPerRequest: dbMs === null ? null : round2(dbMs / total),
        clientCpuMsPerRequest: round2((clientCpu.user + clientCpu.system) / 1000 / total),
        dbTransactionsPerRequest: round2(dbTransactions / total),
        ...(beacon ? { beacon } : {}),
      };
    };

    console.log(`warm-up: ${warmup} s of each scenario`);
    for (const scenario of SCENARIOS) await measure(scenario, warmup);
    for (let round = 1; round <= rounds; round += 1) {
      for (const scenario of SCENARIOS) {
        const figure = await measure(scenario, duration);
        figures[scenario].push(figure);
        const beacon = figure.beacon ? `  204s ${figure.beacon.answered204}, counted ${figure.beacon.counted} (flush ${figure.beacon.flushMs} ms)` : '';
        console.log(
          `round ${round} ${LABEL[scenario].padEnd(16)} ${String(figure.requestsPerSecond).padStart(6)} req/s  p50 ${figure.p50} ms  p99 ${figure.p99} ms  ` +
            `service CPU ${figure.nodeCpuMsPerRequest ?? '?'} ms/req  db CPU ${figure.dbCpuMsPerRequest ?? '?'} ms/req  db xacts ${figure.dbTransactionsPerRequest}/req  client CPU ${figure.clientCpuMsPerRequest} ms/req  ` +
            `non-2xx/3xx ${figure.non2xx3xx}  errors ${figure.errors}  unexpected ${figure.unexpected}${beacon}`,
        );
      }
    }
    results.responseCacheKeysMade = missCounter;
  } finally {
    await stopBenchService(child);
    await owner.end().catch(() => undefined);
    if (values.keep) console.log(`kept database ${scratch.name}`);
    else await scratch.drop();
  }

  const summary = Object.fromEntries(
    SCENARIOS.map((scenario) => {
      const runs = figures[scenario];
      const pick = (key: 'requestsPerSecond' | 'p50' | 'p99' | 'nodeCpuMsPerRequest' | 'dbCpuMsPerRequest' | 'clientCpuMsPerRequest' | 'dbTransactionsPerRequest') =>
        runs.map((run) => run[key]).filter((value): value is number => value !== null);
      const cpu = (key: 'nodeCpuMsPerRequest' | 'dbCpuMsPerRequest') => (pick(key).length === runs.length ? median(pick(key)) : null);
      const sum = (key: 'requests' | 'non2xx3xx' | 'errors' | 'unexpected') => runs.reduce((total, run) => total + run[key], 0);
      const requestsPerSecond = median(pick('requestsPerSecond'));
      return [
        scenario,
        {
          requestsPerSecond,
          target: TARGET[scenario],
          met: requestsPerSecond >= TARGET[scenario],
          p50Ms: median(pick('p50')),
          p99Ms: median(pick('p99')),
          requests: sum('requests'),
          non2xx3xx: sum('non2xx3xx'),
          errors: sum('errors'),
          unexpected: sum('unexpected'),
          serviceCpuMsPerRequest: cpu('nodeCpuMsPerRequest'),
          dbCpuMsPerRequest: cpu('dbCpuMsPerRequest'),
          clientCpuMsPerRequest: median(pick('clientCpuMsPerRequest')),
          dbTransactionsPerRequest: median(pick('dbTransactionsPerRequest')),
        },
      ];
    }),
  ) as Record<Scenario, { requestsPerSecond: number; target: number; met: boolean; p50Ms: number; p99Ms: number; requests: number; non2xx3xx: number; errors: number; unexpected: number; serviceCpuMsPerRequest: number | null; dbCpuMsPerRequest: number | null; clientCpuMsPerRequest: number; dbTransactionsPerRequest: number }>;
  const beaconRuns = figures.beacon.map((run) => run.beacon!);
  const beacon = {
    answered204: beaconRuns.reduce((total, run) => total + run.answered204, 0),
    counted: beaconRuns.reduce((total, run) => total + run.counted, 0),
    sent: beaconRuns.reduce((total, run) => total + run.sent, 0),
    everyHitFound: beaconRuns.every((run) => run.allFound),
    flushMs: beaconRuns.map((run) => run.flushMs),
  };

  console.log(`\npage "home" (3 list blocks of 10, articles with author.name and category.name; ${articles} articles), ${connections} connections, ${rounds} rounds of ${duration} s (median)`);
  console.log('scenario            req/s   target   p50 ms   p99 ms  service CPU       db CPU   client CPU  db xacts  non-2xx/3xx  errors  unexpected');
  for (const scenario of SCENARIOS) {
    const figure = summary[scenario];
    const cpu = (ms: number | null) => `${ms ?? '?'} ms/req`.padStart(12);
    console.log(
      `${LABEL[scenario].padEnd(16)} ${String(figure.requestsPerSecond).padStart(8)} ${String(figure.target).padStart(8)} ${String(figure.p50Ms).padStart(8)} ${String(figure.p99Ms).padStart(8)} ` +
        `${cpu(figure.serviceCpuMsPerRequest)} ${cpu(figure.dbCpuMsPerRequest)} ${cpu(figure.clientCpuMsPerRequest)} ${`${figure.dbTransactionsPerRequest}/req`.padStart(9)} ${String(figure.non2xx3xx).padStart(12)} ${String(figure.errors).padStart(7)} ${String(figure.unexpected).padStart(11)}  ${figure.met ? 'ok' : 'BELOW TARGET'}`,
    );
  }
  console.log(
    'miss = the UNCACHED build: every request has its own ?v=<n>, so the response cache (SVC_DELIVER_SMAXAGE and the cache as configured) never holds it; each answer hydrates the 3 lists and is stored',
  );
  console.log(
    `beacon: ${beacon.answered204} answered 204, ${beacon.counted} counted in GET /pageviews/stats after POST /pageviews/flush (${beacon.sent} sent; flush ${beacon.flushMs.join(', ')} ms): ` +
      `${beacon.everyHitFound ? 'every hit found' : 'HITS MISSING (or counted beyond those sent)'}`,
  );
  console.log("(service CPU: the service process; db CPU: the scratch database's backends, the beacon's flush included; client CPU: this process, autocannon, on the same 2 cores; db xacts: pg_stat_database transactions per request, background work included)");

  const report = {
    benchmark: 'delivery',
    at: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
    options: { articles, duration, warmup, rounds, connections, paths },
    environment,
    target: TARGET,
    summary,
    beacon,
    rounds: figures,
    ...results,
  };
  mkdirSync('bench-results', { recursive: true });
  const file = join('bench-results', `delivery-${report.at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`results written to ${file}`);
}
