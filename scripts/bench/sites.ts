// The per-site overhead of the multi-tenant design (docs/scaling.md): --sites sites of --items articles
// each, seeded in-process through the real command handlers (a site as POST /instance/sites makes it,
// its `articles` collection, its items in one bulk create), on a scratch database of DATABASE_URL's
// server. Then: the storage a site and an item cost; the cost of row-level security per query and of
// loading a site's schema cold, in-process; and item reads over HTTP (the service as a child process,
// autocannon here) on one site and rotating over many, with the service's memory and the hit rates of
// its schema and grants caches, which hold at most 2,000 sites each.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { collectionCreateInput } from '../../domain/content/schemaInput.ts';
import { userDecider } from '../../domain/identity/user.ts';
import { streamId, type EventMetadata } from '../../domain/shared/events.ts';
import { hashPassword } from '../../infra/crypto/passwords.ts';
import { createLogNotifier } from '../../infra/eventstore/logNotifier.ts';
import { createDatabase, type Database } from '../../infra/postgres/database.ts';
import { migrate } from '../../infra/postgres/migrate.ts';
import type { SqlQuery } from '../../infra/postgres/sql.ts';
import { projections } from '../../projections/index.ts';
import { createApiKey } from '../../src/modules/apiKeys/handlers.ts';
import { createSiteIn } from '../../src/modules/instance/handlers.ts';
import { createItems } from '../../src/modules/items/createItems.ts';
import { getItem } from '../../src/modules/items/queries.ts';
import { addPermission, attachPolicy, createPolicy } from '../../src/modules/policies/handlers.ts';
import { createRole } from '../../src/modules/roles/handlers.ts';
import { createCollection } from '../../src/modules/schema/handlers.ts';
import { handleCommandIn } from '../../src/runtime/commandHandler.ts';
import type { AppContext } from '../../src/runtime/context.ts';
import { createSchemaCache } from '../../src/schema/schemaCache.ts';
import { startBenchService, stopBenchService, waitForHealth } from './support/benchService.ts';
import { createInProcessContext, instanceAccess, type InProcessContext } from './support/inProcessContext.ts';
import { positiveInteger } from './support/options.ts';
import { percentile } from './support/percentile.ts';
import { cpuMs } from './support/processCpu.ts';
import { waitForAsyncProjections } from './support/readiness.ts';
import { createScratchDatabase, scratchServerUrl } from './support/scratchDatabase.ts';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
  onResponse?: (status: number, body: string) => void;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** Sites seeded at once: enough to keep PostgreSQL busy on two cores, few enough not to queue on the pool. */
const SEED_CONCURRENCY = 4;
const PROGRESS_EVERY = 1_000;
/** The "1,000 sites" scenario: well inside the service's per-site caches (2,000 sites each). */
const MANY_SITES = 1_000;
/** Past this many sampled sites the caches cannot hold them all: the "all sampled sites" scenario shows a miss's cost. */
const CACHED_SITES = 2_000;
const RLS_QUERIES = 5_000;
const RLS_WARM_UP = 500;
const RLS_ROUND = 100;
const SCHEMA_LOADS = 500;
const WARM_UP_SECONDS = 2;
const STATUSES = ['published', 'published', 'published', 'published', 'published', 'draft', 'draft', 'draft', 'archived', 'archived'];
const NAMED_TABLES = ['events', 'items', 'item_history', 'search_documents'];
const PASSWORD = 'bench password 0123456789';

const usage = `usage: npm run bench -- sites [--sites 10000] [--items 100] [--duration 10] [--connections 10] [--sample 1000] [--keep]
  --sites        sites to seed in-process (default 10000), ${SEED_CONCURRENCY} at a time
  --items        articles per site, created in one bulk create (default 100)
  --duration     seconds per measured HTTP scenario (default 10, after a ${WARM_UP_SECONDS} s warm-up)
  --connections  concurrent HTTP connections (default 10)
  --sample       the first sites that get a read-only API key and are read over HTTP (default 1000; over
                 ${CACHED_SITES} adds a scenario over more sites than the service's caches hold)
  --keep         keep the scratch database (prints its name)`;

/** A sampled site as the HTTP scenarios read it: its API key and one of its items. */
interface Target {
  siteId: string;
  key: string;
  itemId: string;
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      sites: { type: 'string', default: '10000' },
      items: { type: 'string', default: '100' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      sample: { type: 'string', default: '1000' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const serverUrl = scratchServerUrl();
  const siteCount = positiveInteger(values.sites, 'sites', usage);
  const itemCount = positiveInteger(values.items, 'items', usage);
  const duration = positiveInteger(values.duration, 'duration', usage);
  const connections = positiveInteger(values.connections, 'connections', usage);
  const sampleCount = Math.min(positiveInteger(values.sample, 'sample', usage), siteCount);
  const siteIds = Array.from({ length: siteCount }, (_, index) => `site-${String(index + 1).padStart(5, '0')}`);

  const scratch = await createScratchDatabase(serverUrl, `svc_bench_sites_${Date.now().toString(36)}`);
  await migrate(scratch.url);
  const owner = new pg.Client({ connectionString: scratch.url });
  await owner.connect();
  let child: ChildProcess | null = null;
  try {
    const emptyBytes = await databaseBytes(owner);
    const seeded = await seedSites(scratch.url, siteIds, itemCount, sampleCount);
    // The planner's statistics and no dead rows in the sizes (a deployment's autovacuum would do this).
    await owner.query('VACUUM ANALYZE');
    const storage = await measureStorage(owner, emptyBytes, siteIds[0]!, siteCount, siteCount * itemCount);
    const credentials = await createCredentials(scratch.url, seeded.firstItems);
    await moveAsyncCheckpoints(owner);
    const targets = credentials.targets;
    const rls = await measureRowLevelSecurity(scratch.url, targets);
    const schemaLoad = await measureSchemaLoads(scratch.url, siteIds.slice(0, SCHEMA_LOADS));

    const port = await freePort();
    const metricsPort = await freePort();
    child = startBenchService(scratch.url, port, { SVC_METRICS: 'true', SVC_METRICS_PORT: String(metricsPort) });
    const base = `http://127.0.0.1:${port}/api/v1`;
    await waitForHealth(base, child);
    await waitForAsyncProjections(owner, { quiet: true });
    const service = child;
    const scenario = (name: string, sites: Target[], path: (target: Target) => string) =>
      measureScenario({ name, sites, path, url: `http://127.0.0.1:${port}`, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, service, duration, connections });
    const readOne = (target: Target) => `/api/v1/items/articles/${target.itemId}`;
    const http: Record<string, ScenarioFigures> = {};
    console.log(`reads over HTTP (${connections} connections, ${duration} s each after a ${WARM_UP_SECONDS} s warm-up); idle service RSS ${mib(rssBytes(service.pid))} MiB`);
    http.oneSite = await scenario('one site', targets.slice(0, 1), readOne);
    const many = targets.slice(0, MANY_SITES);
    http.manySites = await scenario(`${thousands(many.length)} sites`, many, readOne);
    if (targets.length > CACHED_SITES) http.allSampledSites = await scenario(`all ${thousands(targets.length)} sampled sites`, targets, readOne);
    http.list = await scenario(`list, ${thousands(targets.length)} sites`, targets, () => '/api/v1/items/articles?filter[status][_eq]=published&sort=-views&limit=25');

    const report = {
      benchmark: 'sites',
      at: new Date().toISOString(),
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
      postgres: (await owner.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version,
      options: { sites: siteCount, itemsPerSite: itemCount, sample: sampleCount, durationSeconds: duration, connections, seedConcurrency: SEED_CONCURRENCY },
      seed: seeded.figures,
      credentials: credentials.figures,
      storage,
      rowLevelSecurity: rls,
      schemaLoad,
      http,
    };
    printSummary(report);
    console.log(JSON.stringify(report, null, 2));
    mkdirSync('bench-results', { recursive: true });
    const file = join('bench-results', `sites-${siteCount}-${Date.now().toString(36)}.json`);
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`results written to ${file}`);
  } finally {
    if (child) await stopBenchService(child);
    await owner.end();
    if (values.keep) console.log(`kept database ${scratch.name}`);
    else await scratch.drop();
  }
}

/** Seed writes act as the deployment, as the instance API's do. */
const SEED_METADATA: EventMetadata = { actor: { kind: 'system', id: 'bench-seed' } };

/**
 * The site, schema, policy and API key handlers take the whole AppContext but use only its database,
 * read models and caches, which the in-process context has (the items bench's createItems takes it as is).
 */
function asAppContext(context: InProcessContext): AppContext {
  return context as unknown as AppContext;
}

/** Runs `work` for each of `count` indexes, `concurrency` at a time; the first failure stops the rest. */
async function forEachConcurrently(count: number, concurrency: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < count) {
      const index = next++;
      try {
        await work(index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

function article(site: number, index: number): Record<string, unknown> {
  return {
    title: `Article ${index + 1} of site ${site + 1}`,
    views: (site * 7_919 + index * 104_729) % 100_000,
    status: STATUSES[(site + index) % STATUSES.length],
  };
}

/**
 * Each site as createSite makes it (the site, its administrator and public roles, its first user: one
 * transaction, with one password hash for every user, since argon2 per site would be most of the seed),
 * then its `articles` collection (schema.createCollection's handler) and its items (one createItems).
 * Every inline read model is written, as the service writes them; the async ones are skipped
 * (moveAsyncCheckpoints). Answers the first item of each of the first `sampleCount` sites.
 */
async function seedSites(databaseUrl: string, siteIds: string[], itemCount: number, sampleCount: number) {
  console.log(`seeding ${thousands(siteIds.length)} sites of ${itemCount} articles in-process, ${SEED_CONCURRENCY} sites at a time…`);
  const database = createDatabase({ connectionString: databaseUrl, poolSize: SEED_CONCURRENCY * 2 });
  const { context, close } = await createInProcessContext(database, projections);
  const app = asAppContext(context);
  const passwordHash = await hashPassword(PASSWORD);
  const articles = collectionCreateInput.parse({
    name: 'articles',
    fields: [
      { field: 'title', type: 'string' },
      { field: 'views', type: 'integer' },
      { field: 'status', type: 'string' },
    ],
  });
  const firstItems: { siteId: string; itemId: string }[] = [];
  let done = 0;
  const started = performance.now();
  try {
    await forEachConcurrently(siteIds.length, SEED_CONCURRENCY, async (index) => {
      const siteId = siteIds[index]!;
      const userId = randomUUID();
      await database.withSite(siteId, async (tx) => {
        const roleId = await createSiteIn(app, tx, siteId, siteId, new Date(), SEED_METADATA);
        await handleCommandIn(tx, projections, {
          siteId,
          streamId: streamId(siteId, 'user', userId),
          decider: userDecider,
          command: { type: 'createUser', userId, email: `admin@${siteId}.bench`, passwordHash, roleId, firstName: 'Admin', lastName: null },
          metadata: SEED_METADATA,
        });
      });
      await createCollection(app, siteId, articles, SEED_METADATA);
      const items = Array.from({ length: itemCount }, (_, i) => article(index, i));
      const created = await createItems(context, { siteId, collection: 'articles', items, access: await instanceAccess(context, siteId), metadata: SEED_METADATA });
      if (index < sampleCount) firstItems[index] = { siteId, itemId: created[0]!.id };
      done += 1;
      if (done % PROGRESS_EVERY === 0) {
        const seconds = (performance.now() - started) / 1000;
        console.log(`  ${thousands(done)} sites, ${Math.round(done / seconds)} sites/s, ${Math.round((done * itemCount) / seconds)} items/s`);
      }
    });
  } finally {
    await close();
    await database.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const figures = {
    sites: siteIds.length,
    items: siteIds.length * itemCount,
    seconds: round(seconds),
    sitesPerSecond: round(siteIds.length / seconds),
    itemsPerSecond: Math.round((siteIds.length * itemCount) / seconds),
    concurrency: SEED_CONCURRENCY,
    via: 'createSiteIn + createUser, createCollection, createItems in-process; inline read models only',
  };
  console.log(`seeded in ${figures.seconds} s: ${figures.sitesPerSecond} sites/s, ${thousands(figures.itemsPerSecond)} items/s`);
  return { figures, firstItems };
}

/**
 * A read-only API key for each sampled site, as an administrator would make one: a `Reader` role, a
 * policy that may read `articles`, attached to it, and a key bound to the role. Not the administrator:
 * an administrator's requests never consult the grants cache, a delivery key's do. API keys are
 * SHA-256 hashed, so a request costs no argon2.
 */
async function createCredentials(databaseUrl: string, sampled: { siteId: string; itemId: string }[]) {
  console.log(`creating a read-only API key on each of ${thousands(sampled.length)} sites…`);
  const database = createDatabase({ connectionString: databaseUrl, poolSize: SEED_CONCURRENCY * 2 });
  const { context, close } = await createInProcessContext(database, projections);
  const app = asAppContext(context);
  const targets: Target[] = [];
  const started = performance.now();
  try {
    await forEachConcurrently(sampled.length, SEED_CONCURRENCY, async (index) => {
      const { siteId, itemId } = sampled[index]!;
      const role = await createRole(app, siteId, { name: 'Reader' }, SEED_METADATA);
      const policy = await createPolicy(app, siteId, { name: 'Read articles' }, SEED_METADATA);
      await addPermission(app, siteId, policy.id, { collection: 'articles', action: 'read' }, SEED_METADATA);
      await attachPolicy(app, siteId, policy.id, { kind: 'role', id: role.id }, SEED_METADATA);
      const key = await createApiKey(app, siteId, { name: 'bench reader', roleId: role.id }, { kind: 'instance' }, SEED_METADATA);
      targets[index] = { siteId, key: key.key, itemId };
    });
  } finally {
    await close();
    await database.close();
  }
  const seconds = round((performance.now() - started) / 1000);
  console.log(`  in ${seconds} s`);
  return { targets, figures: { sites: sampled.length, seconds, via: 'createRole, createPolicy, addPermission, attachPolicy, createApiKey in-process' } };
}

/**
 * The async read models (change feed, search, field access log, audit) are not built for the seed:
 * their checkpoints move to the head of the log, so the service does not replay it into them (as the
 * items bench's fast seed does). search_documents and the audit tables are therefore near empty.
 */
async function moveAsyncCheckpoints(owner: pg.Client): Promise<void> {
  const asyncNames = projections.filter((projection) => projection.mode === 'async').map((projection) => projection.name);
  await owner.query(
    `INSERT INTO projection_checkpoints (name, tx_id, position, updated_at)
     SELECT name, head.tx_id, head.global_position, now() FROM unnest($1::text[]) AS name, svc_log_head() AS head
     ON CONFLICT (name) DO UPDATE SET tx_id = excluded.tx_id, position = excluded.position, updated_at = now()`,
    [asyncNames],
  );
}

async function databaseBytes(owner: pg.Client): Promise<number> {
  return Number((await owner.query<{ size: string }>('SELECT pg_database_size(current_database()) AS size')).rows[0]!.size);
}

/** The database's growth per site and per item, its largest tables, and what a site costs before its first item. */
async function measureStorage(owner: pg.Client, emptyBytes: number, firstSite: string, siteCount: number, itemTotal: number) {
  const bytes = await databaseBytes(owner);
  const { rows } = await owner.query<{ table: string; total: string; indexes: string; rows: string }>(
    `SELECT c.relname AS table, pg_total_relation_size(c.oid) AS total, pg_indexes_size(c.oid) AS indexes, greatest(c.reltuples, 0)::bigint AS rows
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND n.nspname = 'public'
      ORDER BY pg_total_relation_size(c.oid) DESC`,
  );
  const tables = rows
    .filter((row, index) => index < 10 || NAMED_TABLES.includes(row.table))
    .map((row) => ({
      table: row.table,
      bytes: Number(row.total),
      indexBytes: Number(row.indexes),
      rows: Number(row.rows),
      bytesPerSite: Math.round(Number(row.total) / siteCount),
      bytesPerItem: Math.round(Number(row.total) / itemTotal),
    }));
  // Every site is alike at this point (the sampled sites' API keys come later): the first stands for all.
  const fixed = (
    await owner.query<{ events: string; bytes: string; item_events: string }>(
      `SELECT count(*) FILTER (WHERE type NOT LIKE 'item.%') AS events, coalesce(sum(pg_column_size(e.*)) FILTER (WHERE type NOT LIKE 'item.%'), 0) AS bytes,
              count(*) FILTER (WHERE type LIKE 'item.%') AS item_events
         FROM events e WHERE site_id = $1`,
      [firstSite],
    )
  ).rows[0]!;
  const storage = {
    databaseBytes: bytes,
    emptyDatabaseBytes: emptyBytes,
    bytesPerSite: Math.round((bytes - emptyBytes) / siteCount),
    bytesPerItem: Math.round((bytes - emptyBytes) / itemTotal),
    siteBeforeItems: { events: Number(fixed.events), eventBytes: Number(fixed.bytes), eventTypes: await eventTypesOf(owner, firstSite) },
    itemEventsPerSite: Number(fixed.item_events),
    tables,
    asyncReadModels: 'not built (checkpoints moved past the seed): search_documents, change feed and audit hold none of it',
  };
  console.log(
    `storage: ${mib(bytes)} MiB (${mib(emptyBytes)} MiB empty): ${thousands(storage.bytesPerSite)} B per site, ${thousands(storage.bytesPerItem)} B per item; ` +
      `a site before its items: ${storage.siteBeforeItems.events} events, ${thousands(storage.siteBeforeItems.eventBytes)} B`,
  );
  for (const table of tables) {
    console.log(`  ${table.table.padEnd(28)} ${String(mib(table.bytes)).padStart(9)} MiB  ${thousands(table.rows).padStart(11)} rows  ${thousands(table.bytesPerSite).padStart(9)} B/site`);
  }
  return storage;
}

async function eventTypesOf(owner: pg.Client, siteId: string): Promise<Record<string, number>> {
  const { rows } = await owner.query<{ type: string; count: string }>(
    `SELECT type, count(*) FROM events WHERE site_id = $1 AND type NOT LIKE 'item.%' GROUP BY type ORDER BY type`,
    [siteId],
  );
  return Object.fromEntries(rows.map((row) => [row.type, Number(row.count)]));
}

interface Timing {
  meanUs: number;
  p50Us: number;
  p99Us: number;
}

/**
 * Runs each variant over the targets in turn: RLS_WARM_UP times unmeasured, then RLS_QUERIES times
 * measured, the variants taking turns every RLS_ROUND queries so that the machine's other load
 * weighs on each alike. Each run must find its one row.
 */
async function timeVariants(targets: Target[], variants: Record<string, (target: Target) => Promise<number>>): Promise<Record<string, Timing>> {
  const names = Object.keys(variants);
  const runOne = async (name: string, i: number) => {
    const target = targets[i % targets.length]!;
    const found = await variants[name]!(target);
    if (found !== 1) throw new Error(`${name}: the read by id found ${found} rows, not 1 (site ${target.siteId})`);
  };
  for (const name of names) for (let i = 0; i < RLS_WARM_UP; i++) await runOne(name, i);
  const times = new Map(names.map((name) => [name, [] as number[]]));
  for (let start = 0; start < RLS_QUERIES; start += RLS_ROUND) {
    for (const name of names) {
      for (let i = start; i < Math.min(start + RLS_ROUND, RLS_QUERIES); i++) {
        const started = performance.now();
        await runOne(name, i);
        times.get(name)!.push(performance.now() - started);
      }
    }
  }
  return Object.fromEntries(names.map((name) => [name, timing(times.get(name)!)]));
}

function timing(milliseconds: number[]): Timing {
  const sorted = [...milliseconds].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length);
  return { meanUs: Math.round(mean * 1000), p50Us: Math.round(percentile(sorted, 50) * 1000), p99Us: Math.round(percentile(sorted, 99) * 1000) };
}

/**
 * The service's read by id (the statement getItem sends, recorded here), one at a time over the
 * sampled sites: as the application role under row-level security, in a site transaction
 * (database.withSite) and as the read path sends it (withSiteReads: the site setting in the same
 * round trip, no BEGIN/COMMIT); as the owner in the same transaction (the policy bypassed: what the
 * policy alone costs); and as the owner on a plain client (no site setting, no transaction).
 */
async function measureRowLevelSecurity(databaseUrl: string, targets: Target[]) {
  // Two: the recording context's notifier holds one while getItem runs; then the loop reuses the last released.
  const app = createDatabase({ connectionString: databaseUrl, poolSize: 2 });
  const ownerDatabase = createDatabase({ connectionString: databaseUrl, poolSize: 1, asApplicationRole: false });
  const plain = new pg.Client({ connectionString: databaseUrl });
  await plain.connect();
  try {
    const statement = await recordReadById(app, targets[0]!);
    const first = targets[0]!;
    const queryFor = (target: Target): SqlQuery => ({
      text: statement.text,
      values: statement.values.map((value) => (value === first.siteId ? target.siteId : value === first.itemId ? target.itemId : value)),
      prepare: 'auto',
    });
    const bypass = (await plain.query<{ bypass: boolean }>('SELECT rolsuper OR rolbypassrls AS bypass FROM pg_roles WHERE rolname = current_user')).rows[0]!.bypass;
    if (!bypass) throw new Error("DATABASE_URL's role neither is a superuser nor bypasses row-level security: the owner figures would see no rows");
    const variants = await timeVariants(targets, {
      appRoleWithSite: (target) => app.withSite(target.siteId, async (tx) => (await tx.query(queryFor(target))).length),
      appRoleWithSiteReads: (target) => app.withSiteReads(target.siteId, async (tx) => (await tx.query(queryFor(target))).length),
      ownerWithSite: (target) => ownerDatabase.withSite(target.siteId, async (tx) => (await tx.query(queryFor(target))).length),
      ownerPlain: async (target) => (await plain.query({ name: 'bench_read_by_id', text: statement.text, values: queryFor(target).values })).rowCount ?? 0,
    });
    console.log(`row-level security, the read by id ${thousands(RLS_QUERIES)} times one after another per variant (µs per query):`);
    for (const [name, figures] of Object.entries(variants)) console.log(`  ${name.padEnd(22)} mean ${figures.meanUs}  p50 ${figures.p50Us}  p99 ${figures.p99Us}`);
    return { queries: RLS_QUERIES, sites: targets.length, statement: statement.text.replace(/\s+/g, ' ').trim(), variants };
  } finally {
    await plain.end();
    await app.close();
    await ownerDatabase.close();
  }
}

/** The statement getItem sends for a read by id, recorded from a call of it (as an administrator: no permission condition). */
async function recordReadById(database: Database, target: Target): Promise<SqlQuery> {
  const recorded: SqlQuery[] = [];
  const recording: Database = {
    ...database,
    withSiteReads: (site, work) =>
      database.withSiteReads(site, (tx) =>
        work({
          ...tx,
          query: async <Row extends object>(query: SqlQuery) => {
            recorded.push(query);
            return tx.query<Row>(query);
          },
        }),
      ),
  };
  const { context, close } = await createInProcessContext(recording, []);
  try {
    await getItem(context, {
      siteId: target.siteId,
      collection: 'articles',
      id: target.itemId,
      principal: { kind: 'user', userId: randomUUID(), roleId: null, admin: true, sessionId: null, via: 'session', realm: 'studio' },
      metadata: { actor: { kind: 'system', id: 'bench-rls' } },
    });
  } finally {
    await close();
  }
  const statement = recorded.find((query) => /FROM items i/.test(query.text) && query.values.includes(target.itemId));
  if (!statement) throw new Error('the read by id was not recorded');
  return statement;
}

/** A site's schema loaded into an empty schema cache (what a miss costs), for up to SCHEMA_LOADS sites one after another. */
async function measureSchemaLoads(databaseUrl: string, siteIds: string[]) {
  const database = createDatabase({ connectionString: databaseUrl, poolSize: 2 });
  const notifier = await createLogNotifier(() => database.connect());
  try {
    // The first loads of the process pay for its compilation, not the cache's work.
    const warmUp = createSchemaCache({ database, notifier });
    for (const siteId of siteIds.slice(0, 20)) await warmUp.site(siteId);
    warmUp.close();
    const cache = createSchemaCache({ database, notifier });
    const times: number[] = [];
    for (const siteId of siteIds) {
      const started = performance.now();
      await cache.site(siteId);
      times.push(performance.now() - started);
    }
    cache.close();
    const figures = { sites: siteIds.length, ...timing(times) };
    console.log(`schema cache miss (one site's schema loaded, ${siteIds.length} sites): mean ${figures.meanUs} µs, p50 ${figures.p50Us} µs, p99 ${figures.p99Us} µs`);
    return figures;
  } finally {
    await notifier.close();
    await database.close();
  }
}

type CacheLookups = Record<string, { hit: number; miss: number }>;

/** svc_cache_lookups_total of the service's Prometheus text, by cache. */
async function scrapeCacheLookups(metricsUrl: string): Promise<CacheLookups> {
  const text = await (await fetch(metricsUrl)).text();
  const lookups: CacheLookups = {};
  for (const [, labels, value] of text.matchAll(/^svc_cache_lookups_total\{([^}]*)\}\s+(\S+)$/gm)) {
    const cache = /cache="([^"]*)"/.exec(labels!)?.[1];
    const result = /result="([^"]*)"/.exec(labels!)?.[1];
    if (!cache || (result !== 'hit' && result !== 'miss')) continue;
    lookups[cache] ??= { hit: 0, miss: 0 };
    lookups[cache][result] = Number(value);
  }
  return lookups;
}

/** The hit rate of each of the schema and grants caches between two scrapes (null: no lookups). */
function hitRates(before: CacheLookups, after: CacheLookups) {
  const rates: Record<string, { hits: number; misses: number; hitRate: number | null }> = {};
  for (const cache of ['schema', 'grants']) {
    const hits = (after[cache]?.hit ?? 0) - (before[cache]?.hit ?? 0);
    const misses = (after[cache]?.miss ?? 0) - (before[cache]?.miss ?? 0);
    rates[cache] = { hits, misses, hitRate: hits + misses === 0 ? null : round((hits / (hits + misses)) * 100) / 100 };
  }
  return rates;
}

interface ScenarioFigures {
  scenario: string;
  sites: number;
  requestsPerSecond: number;
  requests: number;
  latencyMs: { p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  serverCpuMsPerRequest: number | null;
  rssBytes: number;
  caches: ReturnType<typeof hitRates>;
}

interface ScenarioOptions {
  name: string;
  sites: Target[];
  path: (target: Target) => string;
  url: string;
  metricsUrl: string;
  service: ChildProcess;
  duration: number;
  connections: number;
}

/**
 * GETs of `path`, each request to the next site in turn with that site's key: a warm-up, then the
 * measured run, with the caches' lookups scraped around it and the service's RSS after it. Any
 * answer but a 2xx fails the benchmark (a figure of error pages would measure nothing).
 */
async function measureScenario(options: ScenarioOptions): Promise<ScenarioFigures> {
  const { sites, service } = options;
  let cursor = 0;
  let firstFailure: string | null = null;
  const requests: AutocannonRequest[] = [
    {
      method: 'GET',
      setupRequest: (request) => {
        const target = sites[cursor++ % sites.length]!;
        return { ...request, path: options.path(target), headers: { ...request.headers, authorization: `Bearer ${target.key}`, 'x-svc-site': target.siteId } };
      },
      onResponse: (status, body) => {
        if ((status < 200 || status > 299) && firstFailure === null) firstFailure = `${status} ${body.slice(0, 300)}`;
      },
    },
  ];
  const load = (seconds: number) => autocannon({ url: options.url, connections: options.connections, duration: seconds, requests });
  const fail = (phase: string, result: AutocannonResult) => {
    if (result.non2xx > 0 || result.errors + result.timeouts > 0) {
      throw new Error(`${options.name} (${phase}): ${result.non2xx} non-2xx answers, ${result.errors + result.timeouts} errors; first: ${firstFailure ?? 'none recorded'}`);
    }
  };
  fail('warm-up', await load(WARM_UP_SECONDS));
  const before = await scrapeCacheLookups(options.metricsUrl);
  const cpuBefore = cpuMs(service.pid);
  const result = await load(options.duration);
  const cpuAfter = cpuMs(service.pid);
  const after = await scrapeCacheLookups(options.metricsUrl);
  const figures: ScenarioFigures = {
    scenario: options.name,
    sites: sites.length,
    requestsPerSecond: Math.round(result.requests.average),
    requests: result.requests.total,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    serverCpuMsPerRequest: cpuBefore === null || cpuAfter === null ? null : round((cpuAfter - cpuBefore) / Math.max(1, result.requests.total)),
    rssBytes: rssBytes(service.pid),
    caches: hitRates(before, after),
  };
  console.log(
    `  ${options.name.padEnd(26)} ${String(figures.requestsPerSecond).padStart(6)} req/s  p50 ${figures.latencyMs.p50} ms  p99 ${figures.latencyMs.p99} ms  ` +
      `non-2xx ${figures.non2xx}  RSS ${mib(figures.rssBytes)} MiB  schema hits ${percent(figures.caches.schema?.hitRate)}  grants hits ${percent(figures.caches.grants?.hitRate)}  server CPU ${figures.serverCpuMsPerRequest} ms/req`,
  );
  fail('measured', result);
  return figures;
}

/** A TCP port free on this machine right now (the service and its metrics listener each take one). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function rssBytes(pid: number | undefined): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

function printSummary(report: {
  options: { sites: number; itemsPerSite: number; sample: number };
  seed: { seconds: number; sitesPerSecond: number; itemsPerSecond: number };
  storage: { databaseBytes: number; bytesPerSite: number; bytesPerItem: number; siteBeforeItems: { events: number; eventBytes: number } };
  rowLevelSecurity: { variants: Record<string, Timing> };
  schemaLoad: Timing;
  http: Record<string, ScenarioFigures>;
}): void {
  const { options, seed, storage, rowLevelSecurity: rls, schemaLoad, http } = report;
  const v = rls.variants;
  console.log('');
  console.log(`summary: ${thousands(options.sites)} sites × ${options.itemsPerSite} articles (${thousands(options.sample)} sampled)`);
  console.log(`  seed        ${seed.seconds} s: ${seed.sitesPerSecond} sites/s, ${thousands(seed.itemsPerSecond)} items/s`);
  console.log(
    `  storage     ${mib(storage.databaseBytes)} MiB: ${thousands(storage.bytesPerSite)} B per site, ${thousands(storage.bytesPerItem)} B per item; ` +
      `a site before its items ${storage.siteBeforeItems.events} events (${thousands(storage.siteBeforeItems.eventBytes)} B)`,
  );
  console.log(
    `  RLS         read by id ${v.appRoleWithSite?.meanUs} µs (withSite, svc_app), ${v.appRoleWithSiteReads?.meanUs} µs (withSiteReads), ` +
      `${v.ownerWithSite?.meanUs} µs (withSite, owner), ${v.ownerPlain?.meanUs} µs (owner, plain)`,
  );
  console.log(`  schema miss ${schemaLoad.meanUs} µs per site (p99 ${schemaLoad.p99Us} µs)`);
  for (const figures of Object.values(http)) {
    console.log(
      `  ${figures.scenario.padEnd(26)} ${figures.requestsPerSecond} req/s, p50 ${figures.latencyMs.p50} ms, p99 ${figures.latencyMs.p99} ms, ` +
        `RSS ${mib(figures.rssBytes)} MiB, schema cache hits ${percent(figures.caches.schema?.hitRate)}, grants cache hits ${percent(figures.caches.grants?.hitRate)}`,
    );
  }
  console.log('');
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function mib(bytes: number): number {
  return Math.round((bytes / 2 ** 20) * 10) / 10;
}

/** A hit rate (0–1) as a percentage; n/a when the cache was not consulted. */
function percent(rate: number | null | undefined): string {
  return rate === null || rate === undefined ? 'n/a' : `${Math.round(rate * 1000) / 10}%`;
}

function thousands(value: number): string {
  return value.toLocaleString('en-US');
}
