// Ours against Directus, side by side, in one command (issue #16): the peer harness's own load
// generator (../shared/bench/peer-directus/bench.mjs), the same dataset (its dataset.mjs: 50 authors,
// 100,000 articles), the same scenarios, suites alternated round by round:
//   Directus, ours with an API key, ours with a login JWT, Directus, …
// Every suite starts from the seeded state: ours from a frozen copy of the seeded database (CREATE
// DATABASE … TEMPLATE), Directus through the harness's reset script. Prints the ratio table.
// Without Directus set up (the harness's setup.sh) it measures ours alone and says so.
// Each round ends with a bare Fastify hello-world (the ceiling, support/peerHello.ts), and ours'
// update scenario runs with a poller of the async projections' checkpoints around it
// (support/projectionFreshness.ts): the summary gives both (issue #38).
import { type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { migrate } from '../../infra/postgres/migrate.ts';
import { prepareSite } from './support/benchSite.ts';
import { buildCompiledService, startBenchService, stopBenchService, waitForHealth } from './support/benchService.ts';
import { directusIsSetUp, prepareDirectusSeed, runDirectusSuite } from './support/directusPeer.ts';
import { positiveInteger } from './support/options.ts';
import { mergeBenchFiles, runBench, splitAround } from './support/peerBench.ts';
import { runHelloSuite, writeHelloDescriptor } from './support/peerHello.ts';
import { HELLO_SYSTEM, type SuiteResult, ratioTable } from './support/peerTable.ts';
import { measureFreshness, measuredWindow, type SuiteFreshness } from './support/projectionFreshness.ts';
import { waitForAsyncProjections, waitForFieldIndexes } from './support/readiness.ts';
import { createScratchDatabase, scratchServerUrl } from './support/scratchDatabase.ts';

const usage = `usage: npm run bench -- peer [--rounds 3] [--credentials key,jwt] [--scenarios b,c,d,a,e] [--duration 15] [--warmup 3]
                              [--harness ../shared/bench/peer-directus] [--database svc_bench_peer] [--reseed] [--ours-only] [--from-source] [--no-hello] [--no-freshness] [--out bench-results/peer]
  --rounds       alternated rounds (default 3); the table shows each system's median over them
  --credentials  ours' credentials, each a suite per round: key (an svk_ API key of the site administrator), jwt (its login token)
  --scenarios    bench.mjs letters: b read one, c filtered sorted list 25, d list with author.name, a create, e update
  --harness      the peer harness folder (bench.mjs, dataset.mjs, targets/, setup.sh)
  --database     ours' seeded database on DATABASE_URL's server, kept between runs with its frozen copy <name>_seed
  --reseed       drop both and seed again (otherwise an existing seed is reused)
  --ours-only    measure ours alone even when Directus is set up (no ratios: for profiling a change)
  --from-source  run ours from the TypeScript sources (bin/svc.mjs) instead of the compiled build the production image runs
  --no-hello     skip the bare Fastify hello-world (port 8056) measured after ours each round (scenario h; read one's share of it)
  --no-freshness skip the async projections' freshness (a poller of their checkpoints every 10 ms while ours' scenario e runs;
                 e then runs as a bench.mjs invocation of its own, after the projections caught up with the scenarios before it)
  --out          where the descriptors, each suite's results and summary.md go (the seed's credentials and ids: bench-results/<database>.state.json)`;

const SITE = 'bench';
const PORT = 8080;

interface Dataset {
  N_AUTHORS: number;
  N_ARTICLES: number;
  author(i: number): Record<string, unknown>;
  article(i: number, authorIds: string[]): Record<string, unknown>;
}

/** What the seed leaves for every later run: the credentials, the rows the scenarios rotate over. */
interface SeedState {
  apiKey: string;
  jwt: string;
  authorId: string;
  ids: string[];
  articles: number;
  seedBytes: number;
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      rounds: { type: 'string', default: '3' },
      credentials: { type: 'string', default: 'key,jwt' },
      scenarios: { type: 'string', default: 'b,c,d,a,e' },
      duration: { type: 'string', default: '15' },
      warmup: { type: 'string', default: '3' },
      harness: { type: 'string', default: '../shared/bench/peer-directus' },
      database: { type: 'string', default: 'svc_bench_peer' },
      reseed: { type: 'boolean', default: false },
      'ours-only': { type: 'boolean', default: false },
      'from-source': { type: 'boolean', default: false },
      'no-hello': { type: 'boolean', default: false },
      'no-freshness': { type: 'boolean', default: false },
      out: { type: 'string', default: 'bench-results/peer' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return console.log(usage);
  const rounds = positiveInteger(values.rounds, 'rounds', usage);
  positiveInteger(values.duration, 'duration', usage);
  const credentials = values.credentials!.split(',');
  for (const credential of credentials) if (!['key', 'jwt'].includes(credential)) throw new Error(`unknown credential ${credential}\n${usage}`);
  const harness = resolve(values.harness!);
  if (!existsSync(join(harness, 'bench.mjs'))) throw new Error(`no bench.mjs in ${harness}\n${usage}`);
  const out = resolve(values.out!);
  mkdirSync(out, { recursive: true });
  const scenarios = values.scenarios!.split(',');
  // The same load for every system and scenario: bench.mjs' read scenarios (b c d h) at --read-conns, its writes (a e) at --conns.
  const loadArgs = ['--duration', values.duration!, '--warmup', values.warmup!, '--read-conns', '10', '--conns', '10'];
  const toolsDir = process.cwd(); // bench.mjs loads autocannon from here (the project's devDependency)

  const serverUrl = scratchServerUrl();
  const database = values.database!;
  // Beside the databases it describes, not in --out: every run on the same seed shares it.
  mkdirSync('bench-results', { recursive: true });
  const statePath = resolve('bench-results', `${database}.state.json`);
  const state = values.reseed || !(await databaseExists(serverUrl, `${database}_seed`)) || !existsSync(statePath)
    ? await seedOurs(serverUrl, database, harness, statePath)
    : (JSON.parse(readFileSync(statePath, 'utf8')) as SeedState);

  const withDirectus = !values['ours-only'] && directusIsSetUp();
  const directusSeed = withDirectus ? prepareDirectusSeed(harness) : null;
  if (!withDirectus && !values['ours-only']) console.log(`Directus is not set up (run ${join(harness, 'setup.sh')} once): measuring ours alone`);

  if (!values['from-source']) buildCompiledService();
  const descriptors = Object.fromEntries(credentials.map((credential) => [credential, writeDescriptor(out, credential, state, serverUrl)]));
  const helloDescriptor = values['no-hello'] ? null : writeHelloDescriptor(out);
  const suites: SuiteResult[] = [];
  for (let round = 1; round <= rounds; round++) {
    if (withDirectus) {
      const file = join(out, `directus-r${round}.json`);
      console.log(`\n== round ${round}: Directus`);
      runDirectusSuite(harness, directusSeed!.lastLogId, ['--scenarios', scenarios.join(','), ...loadArgs, '--label', `directus r${round}`], file, toolsDir);
      suites.push({ system: 'directus', round, file });
    }
    for (const credential of credentials) {
      const file = join(out, `ours-${credential}-r${round}.json`);
      console.log(`\n== round ${round}: ours with ${credential === 'key' ? 'an API key' : 'a login JWT'}`);
      const freshness = await runOursSuite({
        serverUrl, database, out, harness, toolsDir, file,
        descriptor: descriptors[credential]!,
        scenarios,
        benchArgs: [...loadArgs, '--label', `ours ${credential} r${round}`],
        freshness: !values['no-freshness'],
        compiled: !values['from-source'],
      });
      if (freshness) writeFileSync(file.replace(/\.json$/, '.freshness.json'), JSON.stringify(freshness));
      suites.push({ system: `ours-${credential}`, round, file, freshness });
    }
    if (helloDescriptor) {
      const file = join(out, `hello-r${round}.json`);
      console.log(`\n== round ${round}: a bare Fastify hello-world`);
      await runHelloSuite(harness, helloDescriptor, out, [...loadArgs, '--label', `hello-world r${round}`], file, toolsDir);
      suites.push({ system: HELLO_SYSTEM, round, file });
    }
  }
  const table = ratioTable(suites, credentials, { seedBytes: state.seedBytes, articles: state.articles, directusBytes: directusSeed?.bytes });
  writeFileSync(join(out, 'summary.md'), table);
  console.log(`\n${table}\nwritten to ${join(out, 'summary.md')}`);
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function databaseExists(serverUrl: string, name: string): Promise<boolean> {
  return withClient(serverUrl, async (client) => (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1);
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function startOurs(serverUrl: string, database: string, compiled = false): ChildProcess {
  const environment = { SVC_ACCESS_TOKEN_TTL: '86400', SVC_BODY_LIMIT: String(8 * 1024 * 1024), LOG_LEVEL: 'info' };
  return startBenchService(databaseUrl(serverUrl, database), PORT, environment, { compiled });
}

/** Seeds the dataset through our API (bulk creates of 500), creates the key and the JWT, freezes the seeded database. */
async function seedOurs(serverUrl: string, database: string, harness: string, statePath: string): Promise<SeedState> {
  const dataset = (await import(pathToFileURL(join(harness, 'dataset.mjs')).href)) as Dataset;
  await withClient(serverUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${database}_seed WITH (FORCE)`);
    await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });
  const scratch = await createScratchDatabase(serverUrl, database);
  await migrate(scratch.url);
  const child = startOurs(serverUrl, database);
  const base = `http://127.0.0.1:${PORT}/api/v1`;
  try {
    await waitForHealth(base, child);
    const admin = await prepareSite(base, SITE, false);
    const call = caller(base, admin.token);
    await call('POST', '/collections', { name: 'authors', fields: [{ field: 'name', type: 'string' }] });
    await call('POST', '/collections', {
      name: 'articles',
      fields: [
        { field: 'title', type: 'string' },
        { field: 'body', type: 'text' },
        { field: 'views', type: 'integer' },
        { field: 'published_at', type: 'timestamp', indexed: true },
        { field: 'tags', type: 'json' },
        { field: 'author', type: 'uuid' },
      ],
    });
    await call('POST', '/relations', { kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors', onDelete: 'set null' });
    const authors = Array.from({ length: dataset.N_AUTHORS }, (_, i) => dataset.author(i + 1));
    const authorIds = ((await call('POST', '/items/authors', authors)) as { data: { id: string }[] }).data.map((row) => row.id);
    console.log(`seeding ${dataset.N_ARTICLES} articles through POST /items/articles (arrays of 500, one at a time)…`);
    const started = performance.now();
    for (let next = 1; next <= dataset.N_ARTICLES; next += 500) {
      const batch = [];
      for (let i = next; i < Math.min(next + 500, dataset.N_ARTICLES + 1); i++) batch.push(dataset.article(i, authorIds));
      await call('POST', '/items/articles', batch);
    }
    console.log(`seeded in ${Math.round((performance.now() - started) / 1000)} s`);
    const apiKey = ((await call('POST', '/api-keys', { name: 'peer bench', userId: admin.userId })) as { data: { key: string } }).data.key;
    const ids: string[] = [];
    for (let offset = 0; offset < 1000; offset += 200) {
      const page = (await call('GET', `/items/articles?fields=id&sort=id&limit=200&offset=${offset}&meta=none`)) as { data: { id: string }[] };
      ids.push(...page.data.map((row) => row.id));
    }
    const seedBytes = await withClient(scratch.url, async (owner) => {
      await waitForAsyncProjections(owner);
      await waitForFieldIndexes(owner, SITE);
      await owner.query('VACUUM ANALYZE');
      return Number((await owner.query<{ size: string }>('SELECT pg_database_size(current_database()) AS size')).rows[0]!.size);
    });
    const state: SeedState = { apiKey, jwt: admin.token, authorId: authorIds[0]!, ids, articles: dataset.N_ARTICLES, seedBytes };
    writeFileSync(statePath, JSON.stringify(state, null, 2));
    return state;
  } finally {
    await stopBenchService(child);
    await withClient(serverUrl, (client) => client.query(`CREATE DATABASE ${database}_seed TEMPLATE ${database} STRATEGY FILE_COPY`));
  }
}

function caller(base: string, token: string) {
  return async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'x-svc-site': SITE, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
    return text ? JSON.parse(text) : null;
  };
}

/** The harness's target descriptor for ours with one credential (the same paths and bodies as targets/directus.json). */
function writeDescriptor(out: string, credential: string, state: SeedState, serverUrl: string): string {
  const file = join(out, `ours-${credential}.json`);
  const descriptor = {
    name: `svc-cms (ours) @ ${gitHead()} with ${credential === 'key' ? 'an API key' : 'a login JWT'}`,
    // autocannon replaces the URL's path with each request's: the prefix belongs in the paths.
    baseUrl: `http://127.0.0.1:${PORT}`,
    headers: { authorization: `Bearer ${credential === 'key' ? state.apiKey : state.jwt}` },
    siteHeader: { name: 'X-Svc-Site', value: SITE },
    pidFile: join(out, 'ours.pid'),
    dbPidFile: join(postgresDataDirectory(serverUrl), 'postmaster.pid'),
    paths: {
      create: '/api/v1/items/articles',
      readOne: '/api/v1/items/articles/:id',
      list: '/api/v1/items/articles?filter[status][_eq]=published&sort=-published_at&limit=25',
      nested: '/api/v1/items/articles?fields=id,title,author.name&limit=25',
      update: '/api/v1/items/articles/:id',
    },
    createBody: { title: 'Bench item __N__', body: 'Short body for the create benchmark.', status: 'draft', views: '__N__', published_at: '2025-01-01T00:00:00.000Z', tags: ['bench'], author: state.authorId },
    updateBody: { title: 'Updated item __N__', views: '__N__' },
    ids: state.ids,
    notes: 'Written by `npm run bench -- peer`. ids: the first 1,000 articles by id (UUIDv7, creation order) = dataset articles 1..1000, the rows Directus rotates over.',
  };
  writeFileSync(file, JSON.stringify(descriptor, null, 2));
  return file;
}

function gitHead(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

let dataDirectory: string | undefined;
function postgresDataDirectory(serverUrl: string): string {
  dataDirectory ??= execFileSync('psql', [serverUrl, '-Atc', 'SHOW data_directory'], { encoding: 'utf8' }).trim();
  return dataDirectory;
}

interface OursSuite {
  serverUrl: string;
  database: string;
  out: string;
  harness: string;
  toolsDir: string;
  descriptor: string;
  scenarios: string[];
  /** bench.mjs' arguments but the scenarios, the target and the output. */
  benchArgs: string[];
  /** The suite's result file. */
  file: string;
  /** Whether to measure the async projections' freshness during scenario e. */
  freshness: boolean;
  /** Run the compiled build (dist/), as the production image does, rather than the sources. */
  compiled: boolean;
}

/**
 * One suite of ours from the seeded state: a fresh copy of the frozen seed, a fresh process, bench.mjs.
 * With freshness, scenario e is a bench.mjs invocation of its own, started once the async projections
 * have caught up with the scenarios before it, with the checkpoint poller around it; the parts'
 * results are merged into the suite's file. Answers the freshness, if measured.
 */
async function runOursSuite(suite: OursSuite): Promise<SuiteFreshness | undefined> {
  const { serverUrl, database } = suite;
  const url = databaseUrl(serverUrl, database);
  await withClient(serverUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${database} TEMPLATE ${database}_seed STRATEGY FILE_COPY`);
  });
  await withClient(url, (owner) => owner.query('VACUUM ANALYZE'));
  const child = startOurs(serverUrl, database, suite.compiled);
  try {
    await waitForHealth(`http://127.0.0.1:${PORT}/api/v1`, child);
    writeFileSync(join(suite.out, 'ours.pid'), String(child.pid));
    const parts = suite.freshness ? splitAround(suite.scenarios, 'e') : [suite.scenarios];
    const files = parts.map((_, i) => (parts.length === 1 ? suite.file : suite.file.replace(/\.json$/, `.part${i + 1}.json`)));
    let freshness: SuiteFreshness | undefined;
    for (const [i, part] of parts.entries()) {
      const bench = () => runBench(suite.harness, suite.descriptor, ['--scenarios', part.join(','), ...suite.benchArgs], files[i]!, suite.toolsDir);
      if (!suite.freshness || part[0] !== 'e') {
        await bench();
        continue;
      }
      if (i > 0) {
        const waited = await withClient(url, (owner) => waitForAsyncProjections(owner, { quiet: true }));
        console.log(`async projections caught up ${Math.round(waited)} ms after the scenarios before e; e runs with the freshness poller`);
      }
      freshness = await measureFreshness(url, async () => {
        await bench();
        return measuredWindow(files[i]!, 'e');
      });
    }
    if (parts.length > 1) mergeBenchFiles(files, suite.file);
    return freshness;
  } finally {
    await stopBenchService(child);
  }
}
