// The per-site overhead of the multi-tenant design (docs/scaling.md): --sites sites of --items articles
// each, seeded in-process on the service's context (a site as POST /instance/sites makes it, its
// `articles` collection through the command registry as its administrator, its items in one bulk
// create), on a scratch database of DATABASE_URL's server. Then: the storage a site and an item cost;
// the cost of row-level security per query and of loading a site's schema cold, in-process; and item
// reads over HTTP (the service as a child process, autocannon here) on one site and rotating over many,
// with the service's memory and the hit rates of its schema and grants caches, which hold at most
// 2,000 sites each. The steps live in scripts/bench/support/sites*.ts.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { migrate } from '../../infra/postgres/migrate.ts';
import { startBenchService, stopBenchService, waitForHealth } from './support/benchService.ts';
import { positiveInteger } from './support/options.ts';
import { moveAsyncCheckpoints, waitForAsyncProjections } from './support/readiness.ts';
import { createScratchDatabase, scratchServerUrl } from './support/scratchDatabase.ts';
import { mib, percent, thousands } from './support/sitesFormat.ts';
import { freePort } from '../drills/support/freePort.ts';
import { measureScenario, rssBytes, WARM_UP_SECONDS, type ScenarioFigures } from './support/sitesHttp.ts';
import { measureRowLevelSecurity, measureSchemaLoads, SCHEMA_LOADS, type Timing } from './support/sitesInProcessCosts.ts';
import { createCredentials, SEED_CONCURRENCY, seedSites, type Target } from './support/sitesSeed.ts';
import { databaseBytes, measureStorage } from './support/sitesStorage.ts';

/** The "1,000 sites" scenario: well inside the service's per-site caches (2,000 sites each). */
const MANY_SITES = 1_000;
/** Past this many sampled sites the caches cannot hold them all: the "all sampled sites" scenario shows a miss's cost. */
const CACHED_SITES = 2_000;

const usage = `usage: npm run bench -- sites [--sites 10000] [--items 100] [--duration 10] [--connections 10] [--sample 1000] [--keep]
  --sites        sites to seed in-process (default 10000), ${SEED_CONCURRENCY} at a time
  --items        articles per site, created in one bulk create (default 100)
  --duration     seconds per measured HTTP scenario (default 10, after a ${WARM_UP_SECONDS} s warm-up)
  --connections  concurrent HTTP connections (default 10)
  --sample       the first sites that get a read-only API key and are read over HTTP (default 1000; over
                 ${CACHED_SITES} adds a scenario over more sites than the service's caches hold)
  --keep         keep the scratch database (prints its name)`;

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
    const credentials = await createCredentials(scratch.url, seeded.sampled);
    await moveAsyncCheckpoints(owner);
    const targets = credentials.targets;
    const rls = await measureRowLevelSecurity(scratch.url, targets);
    const schemaLoad = await measureSchemaLoads(scratch.url, siteIds.slice(0, SCHEMA_LOADS));

    const port = await freePort();
    const metricsPort = await freePort();
    // One client rotating over thousands of sites is what the per-IP limit of site lookups refuses
    // (600 a minute by default): it is off here, as the other limits are for every bench.
    child = startBenchService(scratch.url, port, { SVC_METRICS: 'true', SVC_METRICS_PORT: String(metricsPort), SVC_RATE_LIMIT_SITE_LOOKUP: '0' });
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
