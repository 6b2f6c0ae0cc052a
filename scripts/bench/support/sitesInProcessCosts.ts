// The sites bench's in-process measurements (scripts/bench/sites.ts): what row-level security costs a
// read by id, against the same read as the owner, and what loading one site's schema into an empty
// schema cache (a cache miss) costs.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createLogNotifier } from '../../../infra/eventstore/logNotifier.ts';
import { createDatabase, type Database } from '../../../infra/postgres/database.ts';
import type { SqlQuery } from '../../../infra/postgres/sql.ts';
import { getItem } from '../../../src/modules/items/queries.ts';
import { createSchemaCache } from '../../../src/schema/schemaCache.ts';
import { createInProcessContext } from './inProcessContext.ts';
import { recordingDatabase } from './recordingDatabase.ts';
import { percentile } from './percentile.ts';
import { thousands } from './sitesFormat.ts';
import type { Target } from './sitesSeed.ts';

const RLS_QUERIES = 5_000;
const RLS_WARM_UP = 500;
const RLS_ROUND = 100;
/** The sites whose schema is loaded cold, one after another. */
export const SCHEMA_LOADS = 500;

export interface Timing {
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
export async function measureRowLevelSecurity(databaseUrl: string, targets: Target[]) {
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
  const { database: recording, recorded } = recordingDatabase(database);
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
export async function measureSchemaLoads(databaseUrl: string, siteIds: string[]) {
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
