// GraphQL (POST /api/v1/graphql) at size. Seeds N articles with an m2o author (50 authors) over HTTP
// (bulk POSTs of 500) on a scratch database of DATABASE_URL's server, then:
// 1. autocannon against the service as a child process (`svc start`, NODE_ENV=production, rate limits
//    off): `{ articles(limit: 25, sort: ["-published_at"]) { id title author { name } } }` with the
//    admin's login JWT and with an API key, and the REST equivalent, alternated over the rounds; every
//    answer is checked (200, `data`, no `errors`); service and database CPU per request;
// 2. in-process (createContext + buildServer, background work off so nothing else counts): the SQL
//    statements one request sends for limit 5, 25, 100, 200, GraphQL and REST (must not grow);
// 3. a site of 200 collections × 10 fields (config import): the first `{ _collections }` request,
//    which builds its GraphQL schema, against the next ones (cached).
// Targets: 2,500 req/s at 10 connections (Directus serves its GraphQL list at about 210).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { migrate } from '../../infra/postgres/migrate.ts';
import { createContext } from '../../src/boot/boot.ts';
import { loadConfig } from '../../src/config/config.ts';
import { buildServer } from '../../src/server/app.ts';
import { explainList } from './support/explainList.ts';
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
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const usage = `usage: npm run bench -- graphql [--items 100000] [--duration 15] [--warmup 3] [--rounds 3] [--connections 10] [--collections 200] [--reuse <database>] [--keep]
  --items        articles to seed (each with one of 50 authors)
  --duration     seconds per measured round of each scenario (after a --warmup of each)
  --rounds       rounds (GraphQL with the JWT, with an API key, REST, in turn); figures are the median
  --collections  collections (× 10 fields) of the site whose schema build is timed
  --reuse        an existing scratch database (from --keep) whose site is seeded already
  --keep         keep the scratch database (prints its name)`;

const TARGET = { requestsPerSecond: 2_500, connections: 10, directusRequestsPerSecond: 210 };
const SITE = 'gqlbench';
const SECRET = 'bench-secret-that-is-long-enough-0123456789';
const LIMITS = [5, 25, 100, 200];
const TYPES = ['string', 'text', 'integer', 'boolean', 'dateTime', 'json', 'float', 'date', 'decimal'] as const;

const graphqlList = (limit: number) => JSON.stringify({ query: `{ articles(limit: ${limit}, sort: ["-published_at"]) { id title author { name } } }` });
const restList = (limit: number) => `/items/articles?limit=${limit}&fields=id,title,author.name&sort=-published_at&meta=none`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const round2 = (value: number) => Math.round(value * 100) / 100;

type Call = (method: string, path: string, body?: unknown) => Promise<{ data: unknown }>;
function caller(base: string, siteId: string, token: string): Call {
  return async (method, path, body) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'x-svc-site': siteId, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 2_000)}`);
    return (text ? JSON.parse(text) : null) as { data: unknown };
  };
}

/** A GraphQL answer's data; throws on errors. */
async function graphql<T>(call: Call, query: string): Promise<T> {
  const answer = (await call('POST', '/graphql', query)) as { data?: T; errors?: unknown[] };
  if (answer.errors || !answer.data) throw new Error(`GraphQL answered errors: ${JSON.stringify(answer.errors ?? answer).slice(0, 2_000)}`);
  return answer.data;
}


async function seed(call: Call, items: number): Promise<{ items: number; seconds: number; itemsPerSecond: number }> {
  await call('POST', '/collections', { name: 'authors', fields: [{ field: 'name', type: 'string' }] });
  await call('POST', '/collections', {
    name: 'articles',
    fields: [
      { field: 'title', type: 'string' },
      { field: 'body', type: 'text' },
      { field: 'published_at', type: 'dateTime', indexed: true },
      { field: 'author', type: 'uuid' },
    ],
  });
  await call('POST', '/relations', { kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors', onDelete: 'set null' });
  const authors = (await call('POST', '/items/authors', Array.from({ length: 50 }, (_, i) => ({ name: `Author ${String(i + 1).padStart(2, '0')}` })))) as {
    data: { id: string }[];
  };
  const authorIds = authors.data.map((author) => author.id);
  console.log(`seeding ${items} articles through POST /items/articles (bulk arrays of 500, 2 in flight)…`);
  const started = performance.now();
  const inFlight: Promise<unknown>[] = [];
  const start = Date.UTC(2023, 0, 1);
  for (let next = 0; next < items; next += 500) {
    const batch = Array.from({ length: Math.min(500, items - next) }, (_, k) => {
      const i = next + k;
      // Distinct dates spread over the set in a scrambled order (7919 is prime to the usual sizes).
      const minute = (i * 7919) % items;
      return {
        title: `Article ${i + 1}`,
        body: `Body of article ${i + 1}, short on purpose: the figures are about the list, not the payload.`,
        status: 'published',
        published_at: new Date(start + minute * 60_000).toISOString(),
        author: authorIds[i % authorIds.length],
      };
    });
    inFlight.push(call('POST', '/items/articles', batch));
    if (inFlight.length >= 2) await inFlight.shift();
    if (next > 0 && next % 25_000 === 0) console.log(`  ${next} seeded, ${Math.round(next / ((performance.now() - started) / 1000))} items/s`);
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - started) / 1000;
  console.log(`seeded in ${round2(seconds)} s: ${Math.round(items / seconds)} items/s`);
  return { items, seconds: round2(seconds), itemsPerSecond: Math.round(items / seconds) };
}

interface Round {
  requestsPerSecond: number;
  requests: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  errorBodies: number;
  nodeCpuMsPerRequest: number | null;
  dbCpuMsPerRequest: number | null;
}

function buildManifest(collections: number): Record<string, unknown> {
  const names = Array.from({ length: collections }, (_, index) => `bench_${String(index).padStart(3, '0')}`);
  return {
    version: 'svc.config@v1',
    collections: names.map((name) => ({ name, versioning: false })),
    // 10 fields each: the m2o link to the previous collection and 9 of the usual types.
    fields: names.flatMap((collection) => [
      { collection, field: 'previous', type: 'uuid' },
      ...TYPES.map((type, index) => ({ collection, field: `field_${index}`, type, required: index === 0 })),
    ]),
    relations: names.slice(1).map((collection, index) => ({ id: `link_${collection}`, kind: 'm2o', collection, field: 'previous', relatedCollection: names[index], onDelete: 'set null' })),
    webhooks: [],
    settings: [],
    managedScopes: ['schema'],
  };
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      items: { type: 'string', default: '100000' },
      duration: { type: 'string', default: '15' },
      warmup: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: String(TARGET.connections) },
      collections: { type: 'string', default: '200' },
      reuse: { type: 'string' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const items = positiveInteger(values.items, 'items', usage);
  const duration = positiveInteger(values.duration, 'duration', usage);
  const warmup = positiveInteger(values.warmup, 'warmup', usage);
  const rounds = positiveInteger(values.rounds, 'rounds', usage);
  const connections = positiveInteger(values.connections, 'connections', usage);
  const collections = positiveInteger(values.collections, 'collections', usage);
  const reuse = values.reuse !== undefined;

  const scratch = await createScratchDatabase(scratchServerUrl(), values.reuse ?? `svc_bench_graphql_${Date.now().toString(36)}`, { reuse });
  await migrate(scratch.url);
  const owner = new pg.Client({ connectionString: scratch.url });
  await owner.connect();
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-graphql-'));
  const results: Record<string, unknown> = {};
  const throughput: Record<string, Round[]> = { graphqlJwt: [], graphqlApiKey: [], restJwt: [] };
  let articles = 0;
  try {
    // 1. Throughput against the service as a child process.
    const port = 24_000 + Math.floor(Math.random() * 2_000);
    const child = startBenchService(scratch.url, port, { SVC_ACCESS_TOKEN_TTL: '86400', SVC_BODY_LIMIT: String(8 * 1024 * 1024) });
    const base = `http://127.0.0.1:${port}/api/v1`;
    try {
      await waitForHealth(base, child);
      const { token } = await prepareSite(base, SITE, reuse);
      const call = caller(base, SITE, token);
      const count = async () => Number((await owner.query<{ n: string }>(`SELECT count(*) AS n FROM items WHERE site_id = $1 AND collection = 'articles'`, [SITE])).rows[0]!.n);
      if (!reuse) {
        results.seed = await seed(call, items);
        for (const table of ['items', 'events']) await owner.query(`VACUUM ANALYZE ${table}`);
      }
      await waitForAsyncProjections(owner);
      await waitForFieldIndexes(owner, SITE);
      articles = await count();
      console.log(`articles in the collection: ${articles}`);
      results.explain = await explainList(scratch.url, SITE, restList(25));
      const apiKey = ((await call('POST', '/api-keys', { name: `graphql bench ${Date.now()}` })) as { data: { key: string } }).data.key;

      const origin = base.replace('/api/v1', '');
      const headersOf = (credential: string) => ({ authorization: `Bearer ${credential}`, 'x-svc-site': SITE, 'content-type': 'application/json' });
      let errorBodies = 0;
      // Every GraphQL answer: HTTP 200 with `data` and no `errors` (a title never holds the word).
      const checked = (status: number, body: string) => {
        if (status !== 200 || !body.startsWith('{"data":') || body.includes('"errors"')) errorBodies += 1;
      };
      const scenarios: Record<string, Record<string, unknown>> = {
        graphqlJwt: { headers: headersOf(token), requests: [{ method: 'POST', path: '/api/v1/graphql', body: graphqlList(25), onResponse: checked }] },
        graphqlApiKey: { headers: headersOf(apiKey), requests: [{ method: 'POST', path: '/api/v1/graphql', body: graphqlList(25), onResponse: checked }] },
        restJwt: { headers: headersOf(token), requests: [{ method: 'GET', path: `/api/v1${restList(25)}` }] },
      };
      // The same page both ways, checked once before anything is measured.
      const viaGraphql = await graphql<{ articles: { id: string; title: string; author: { name: string } | null }[] }>(caller(base, SITE, apiKey), graphqlList(25));
      const viaRest = (await call('GET', restList(25))) as { data: { id: string; title: string; author: { name: string } | null }[] };
      if (viaGraphql.articles.length !== 25 || viaGraphql.articles.some((article) => typeof article.author?.name !== 'string')) {
        throw new Error(`the GraphQL list answered ${JSON.stringify(viaGraphql).slice(0, 500)}`);
      }
      const idsOf = (list: { id: string }[]) => list.map((article) => article.id).join();
      if (idsOf(viaGraphql.articles) !== idsOf(viaRest.data)) throw new Error('GraphQL and REST answer different pages');
      for (const options of Object.values(scenarios)) await autocannon({ url: origin, connections, duration: warmup, ...options });
      for (let round = 1; round <= rounds; round += 1) {
        for (const [name, options] of Object.entries(scenarios)) {
          errorBodies = 0;
          const nodeBefore = cpuMs(child.pid);
          const dbBefore = await backendsCpuMs(owner, scratch.name);
          const result = await autocannon({ url: origin, connections, duration, ...options });
          const nodeAfter = cpuMs(child.pid);
          const dbAfter = await backendsCpuMs(owner, scratch.name);
          const total = Math.max(1, result.requests.total);
          let dbMs: number | null = null;
          if (dbBefore && dbAfter) {
            dbMs = 0;
            for (const [pid, ms] of dbAfter) dbMs += ms - (dbBefore.get(pid) ?? 0);
          }
          const figure: Round = {
            requestsPerSecond: Math.round(result.requests.average),
            requests: result.requests.total,
            p50: result.latency.p50,
            p99: result.latency.p99,
            max: result.latency.max,
            non2xx: result.non2xx,
            errors: result.errors + result.timeouts,
            errorBodies: name === 'restJwt' ? 0 : errorBodies,
            nodeCpuMsPerRequest: nodeBefore === null || nodeAfter === null ? null : round2((nodeAfter - nodeBefore) / total),
            dbCpuMsPerRequest: dbMs === null ? null : round2(dbMs / total),
          };
          throughput[name]!.push(figure);
          console.log(
            `round ${round} ${name.padEnd(14)} ${String(figure.requestsPerSecond).padStart(6)} req/s  p50 ${figure.p50} ms  p99 ${figure.p99} ms  ` +
              `service CPU ${figure.nodeCpuMsPerRequest ?? '?'} ms/req  db CPU ${figure.dbCpuMsPerRequest ?? '?'} ms/req  ` +
              `non-2xx ${figure.non2xx}  errors ${figure.errors}  error answers ${figure.errorBodies}`,
          );
        }
      }
    } finally {
      await stopBenchService(child);
    }

    // 2 and 3. In-process, without the projection daemon, field index builder or scheduler.
    const config = loadConfig({
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: scratch.url,
      SVC_DATA_DIR: dataDir,
      SVC_SECRET: SECRET,
      SVC_INSTANCE_TOKEN: BENCH_INSTANCE_TOKEN,
      SVC_RATE_LIMIT_ITEMS_READ: '0',
      SVC_RATE_LIMIT_ITEMS_WRITE: '0',
      SVC_RATE_LIMIT_AUTH: '0',
      SVC_ACCESS_TOKEN_TTL: '86400',
      SVC_BODY_LIMIT: String(8 * 1024 * 1024),
    });
    const context = await createContext(config, { runProjections: false });
    const server = await buildServer(context);
    try {
      const local = `${await server.listen({ host: '127.0.0.1', port: 0 })}/api/v1`;
      const call = caller(local, SITE, (await prepareSite(local, SITE, true)).token);
      const statementsOf = async (work: () => Promise<void>) => {
        const before = context.database.stats.queries;
        await work();
        return context.database.stats.queries - before;
      };
      const statements: { limit: number; graphql: number[]; rest: number[] }[] = [];
      await graphql(call, graphqlList(1));
      await call('GET', restList(1));
      for (const limit of LIMITS) {
        const row = { limit, graphql: [] as number[], rest: [] as number[] };
        for (let run = 0; run < 3; run += 1) {
          row.graphql.push(
            await statementsOf(async () => {
              const data = await graphql<{ articles: { author: { name: string } | null }[] }>(call, graphqlList(limit));
              if (data.articles.length !== Math.min(limit, articles) || data.articles.some((article) => typeof article.author?.name !== 'string')) {
                throw new Error(`limit ${limit}: ${data.articles.length} articles, or one without its author's name`);
              }
            }),
          );
          row.rest.push(await statementsOf(async () => void (await call('GET', restList(limit)))));
        }
        statements.push(row);
      }
      const constant = (key: 'graphql' | 'rest') => new Set(statements.flatMap((row) => row[key])).size === 1;
      results.statements = { perRequest: statements, graphqlConstant: constant('graphql'), restConstant: constant('rest') };

      const schemaSite = `gqlschema${Date.now().toString(36)}`;
      const schemaCall = caller(local, schemaSite, (await prepareSite(local, schemaSite, false)).token);
      const manifest = JSON.stringify(buildManifest(collections));
      const importStarted = performance.now();
      await schemaCall('POST', '/config/import?mode=merge', manifest);
      const importMs = Math.round(performance.now() - importStarted);
      // The site's content schema is loaded (and the token checked) outside the timed requests.
      await schemaCall('GET', '/items/bench_000?limit=1&meta=none');
      const collectionsQuery = JSON.stringify({ query: '{ _collections }' });
      const timedRequest = async () => {
        const before = context.database.stats.queries;
        const started = performance.now();
        const data = await graphql<{ _collections: string[] }>(schemaCall, collectionsQuery);
        const ms = performance.now() - started;
        if (data._collections.length !== collections) throw new Error(`_collections lists ${data._collections.length} collections, not ${collections}`);
        return { ms, statements: context.database.stats.queries - before };
      };
      const first = await timedRequest();
      const next: { ms: number; statements: number }[] = [];
      for (let run = 0; run < 20; run += 1) next.push(await timedRequest());
      results.schemaBuild = {
        collections,
        fieldsPerCollection: 10,
        importMs,
        manifestBytes: manifest.length,
        firstMs: round2(first.ms),
        firstStatements: first.statements,
        cachedMedianMs: round2(median(next.map((run) => run.ms))),
        cachedWorstMs: round2(Math.max(...next.map((run) => run.ms))),
        cachedStatements: median(next.map((run) => run.statements)),
        cachedRunsMs: next.map((run) => round2(run.ms)),
      };
    } finally {
      await server.close();
      await context.close();
    }
  } finally {
    await owner.end().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
    if (values.keep || reuse) console.log(`kept database ${scratch.name} (rerun with --reuse ${scratch.name})`);
    else await scratch.drop();
  }

  const summary = Object.fromEntries(
    Object.entries(throughput).map(([name, runs]) => {
      const pick = (key: keyof Round) => runs.map((run) => run[key]).filter((value): value is number => value !== null);
      const cpu = (key: 'nodeCpuMsPerRequest' | 'dbCpuMsPerRequest') => (pick(key).length === runs.length ? median(pick(key)) : null);
      const sum = (key: 'requests' | 'non2xx' | 'errors' | 'errorBodies') => pick(key).reduce((a, b) => a + b, 0);
      return [
        name,
        {
          requestsPerSecond: median(pick('requestsPerSecond')),
          p99Ms: median(pick('p99')),
          p50Ms: median(pick('p50')),
          requests: sum('requests'),
          non2xx: sum('non2xx'),
          errors: sum('errors'),
          errorAnswers: sum('errorBodies'),
          serviceCpuMsPerRequest: cpu('nodeCpuMsPerRequest'),
          dbCpuMsPerRequest: cpu('dbCpuMsPerRequest'),
        },
      ];
    }),
  );
  const statements = results.statements as { perRequest: { limit: number; graphql: number[]; rest: number[] }[]; graphqlConstant: boolean; restConstant: boolean };
  const schemaBuild = results.schemaBuild as { firstMs: number; firstStatements: number; cachedMedianMs: number; cachedWorstMs: number; cachedStatements: number; importMs: number };

  console.log(`\nlist 25 { id title author { name } } sort -published_at, ${articles} articles, ${connections} connections, ${rounds} rounds of ${duration} s (median)`);
  console.log('scenario          req/s   p50 ms   p99 ms   service CPU   db CPU    non-2xx  errors  error answers');
  for (const [name, figure] of Object.entries(summary)) {
    const cpu = (ms: number | null) => `${ms ?? '?'} ms/req`.padStart(12);
    console.log(
      `${name.padEnd(15)} ${String(figure.requestsPerSecond).padStart(7)} ${String(figure.p50Ms).padStart(8)} ${String(figure.p99Ms).padStart(8)}  ${cpu(figure.serviceCpuMsPerRequest)} ${cpu(figure.dbCpuMsPerRequest)} ` +
        `${String(figure.non2xx).padStart(8)} ${String(figure.errors).padStart(7)} ${String(figure.errorAnswers).padStart(14)}`,
    );
  }
  for (const name of ['graphqlJwt', 'graphqlApiKey']) {
    const rps = summary[name]!.requestsPerSecond;
    console.log(`${name}: ${rps >= TARGET.requestsPerSecond ? 'ok' : 'BELOW TARGET'} (target ${TARGET.requestsPerSecond} req/s; Directus ~${TARGET.directusRequestsPerSecond}, ×${round2(rps / TARGET.directusRequestsPerSecond)})`);
  }
  console.log('\nSQL statements per request (in-process, 3 requests each)');
  console.log('limit   GraphQL        REST');
  for (const row of statements.perRequest) console.log(`${String(row.limit).padStart(5)}   ${row.graphql.join(',').padEnd(14)} ${row.rest.join(',')}`);
  console.log(`GraphQL ${statements.graphqlConstant ? 'constant' : 'NOT CONSTANT'} as limit grows; REST ${statements.restConstant ? 'constant' : 'NOT CONSTANT'}`);
  console.log(`\nschema of ${collections} collections × 10 fields (config import in ${schemaBuild.importMs} ms): { _collections }`);
  console.log(`first request (builds the schema)  ${schemaBuild.firstMs} ms, ${schemaBuild.firstStatements} statements`);
  console.log(`next 20 (cached)                   median ${schemaBuild.cachedMedianMs} ms, worst ${schemaBuild.cachedWorstMs} ms, ${schemaBuild.cachedStatements} statements`);
  console.log('(service CPU: the service process per request; db CPU: the scratch database\'s backends per request; the client runs on the same machine)');

  const report = {
    benchmark: 'graphql',
    at: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
    options: { items, duration, warmup, rounds, connections, collections },
    articles,
    target: TARGET,
    queries: { graphql: JSON.parse(graphqlList(25)).query as string, rest: restList(25) },
    summary,
    rounds: throughput,
    ...results,
  };
  mkdirSync('bench-results', { recursive: true });
  const file = join('bench-results', `graphql-${report.at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`results written to ${file}`);
}
