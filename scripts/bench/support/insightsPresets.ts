// The view presets part of `npm run bench -- insights` (docs/presets.md "Figures"): seeds a scratch
// database (DATABASE_URL's server) with one site's roles in chains (through the role decider) and
// N presets in bulk SQL (users' default views and bookmarks over 10 collections, each role's, the
// global ones, and a tenth as many of another site), then times GET /presets/effective and
// GET /presets/bookmarks as the routes run them: one site transaction each, under row-level security.
// Reports p50/p99 of each and the plan of one effective lookup (the role chain walk and presets_slot).
//   npm run bench -- insights --part presets [--presets 100000] [--lookups 1000] [--keep]
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { roleDecider } from '../../../domain/identity/role.ts';
import { streamId } from '../../../domain/shared/events.ts';
import { createDatabase, type Database } from '../../../infra/postgres/database.ts';
import { migrate } from '../../../infra/postgres/migrate.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { projections } from '../../../projections/index.ts';
import { handleCommand } from '../../../src/runtime/commandHandler.ts';
import { effectivePresetQuery, findEffectivePreset, listVisibleBookmarks, type PresetViewer } from '../../../src/modules/presets/queries.ts';
import { positiveInteger } from './options.ts';
import { createScratchDatabase, scratchServerUrl } from './scratchDatabase.ts';
import { percentile } from './percentile.ts';

const SITE = 'bench-presets';
const COLLECTIONS = 10;
const CHAINS = 50;
const CHAIN_DEPTH = 4;
const usage = 'usage: npm run bench -- insights --part presets [--presets 100000] [--lookups 1000] [--keep]';


/** CHAINS chains of CHAIN_DEPTH roles each (root first), created as the roles area creates them. */
async function seedRoles(database: Database, siteId: string): Promise<string[][]> {
  const chains: string[][] = [];
  for (let chain = 0; chain < CHAINS; chain += 1) {
    const ids: string[] = [];
    for (let depth = 0; depth < CHAIN_DEPTH; depth += 1) {
      const roleId = randomUUID();
      await handleCommand({ database, projections }, {
        siteId,
        streamId: streamId(siteId, 'role', roleId),
        decider: roleDecider,
        command: { type: 'createRole', roleId, name: `role-${chain}-${depth}`, admin: false, parentId: ids.at(-1) ?? null, parentAncestry: [...ids].reverse() },
        metadata: { actor: { kind: 'system', id: 'bench' } },
      });
      ids.push(roleId);
    }
    chains.push(ids);
  }
  return chains;
}

/**
 * `users` users' presets (a default view and two bookmarks of each collection), a default and a
 * bookmark of each collection for each role, and four global ones per collection.
 */
async function seedPresets(owner: Database, siteId: string, users: number, roleIds: string[]): Promise<void> {
  await owner.query(sql`
    INSERT INTO presets (site_id, id, collection, bookmark, user_id, role_id, layout, query, options, created_at, updated_at)
    SELECT ${siteId}, gen_random_uuid(), 'c' || c, CASE WHEN k = 0 THEN NULL ELSE 'View ' || k END, u.id, NULL,
           'table', '{"fields":["title"],"sort":["-title"],"limit":50}'::jsonb, '{}'::jsonb, now(), now()
      FROM (SELECT gen_random_uuid() AS id FROM generate_series(1, ${users}::int)) AS u,
           generate_series(0, ${COLLECTIONS - 1}::int) AS c, generate_series(0, 2) AS k`);
  await owner.query(sql`
    INSERT INTO presets (site_id, id, collection, bookmark, user_id, role_id, layout, query, options, created_at, updated_at)
    SELECT ${siteId}, gen_random_uuid(), 'c' || c, CASE WHEN k = 0 THEN NULL ELSE 'Role view' END, NULL, r,
           'cards', '{}'::jsonb, '{}'::jsonb, now(), now()
      FROM unnest(${roleIds}::uuid[]) AS r, generate_series(0, ${COLLECTIONS - 1}::int) AS c, generate_series(0, 1) AS k`);
  await owner.query(sql`
    INSERT INTO presets (site_id, id, collection, bookmark, user_id, role_id, layout, query, options, created_at, updated_at)
    SELECT ${siteId}, gen_random_uuid(), 'c' || c, CASE WHEN k = 0 THEN NULL ELSE 'Global ' || k END, NULL, NULL,
           'table', '{}'::jsonb, '{}'::jsonb, now(), now()
      FROM generate_series(0, ${COLLECTIONS - 1}::int) AS c, generate_series(0, 3) AS k`);
}

export async function runPresets(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: false,
    options: { presets: { type: 'string', default: '100000' }, lookups: { type: 'string', default: '1000' }, keep: { type: 'boolean', default: false } },
  });
  const total = positiveInteger(values.presets as string, 'presets', usage);
  const lookups = positiveInteger(values.lookups as string, 'lookups', usage);
  const users = Math.max(1, Math.floor(total / (COLLECTIONS * 3)));
  const scratch = await createScratchDatabase(scratchServerUrl(), `svc_bench_presets_${Date.now().toString(36)}`);
  let owner: Database | null = null;
  let database: Database | null = null;
  try {
    await migrate(scratch.url);
    // The owner seeds presets (a maintainer of the table, projections/presetsProjection.ts); reads run as the service does.
    owner = createDatabase({ connectionString: scratch.url, poolSize: 2, asApplicationRole: false });
    database = createDatabase({ connectionString: scratch.url, poolSize: 2 });
    const seedStarted = Date.now();
    const chains = await seedRoles(database, SITE);
    await seedPresets(owner, SITE, users, chains.flat());
    await seedPresets(owner, `${SITE}-other`, Math.max(1, Math.floor(users / 10)), []);
    await owner.query(sql`VACUUM ANALYZE presets`);
    await owner.query(sql`ANALYZE roles`);
    const [{ count } = { count: 0 }] = await owner.query<{ count: number }>(sql`SELECT count(*)::int AS count FROM presets WHERE site_id = ${SITE}`);
    const userIds = (await owner.query<{ id: string }>(sql`SELECT DISTINCT user_id::text AS id FROM presets WHERE site_id = ${SITE} AND user_id IS NOT NULL LIMIT 2000`)).map((row) => row.id);
    console.log(`presets: seeded ${count} presets of ${SITE} (${users} users, ${CHAINS} role chains of ${CHAIN_DEPTH}) and a tenth of another site in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);

    // Viewers at the bottom of a chain: half with presets of their own, half without (the walk up the chain decides).
    let next = 0;
    const viewer = (): PresetViewer => {
      next += 1;
      const roleId = chains[next % CHAINS]!.at(-1)!;
      return { userId: next % 2 === 0 ? userIds[next % userIds.length]! : randomUUID(), roleId };
    };
    const collection = () => `c${next % COLLECTIONS}`;
    const time = async (name: string, read: (tx: Queryable, who: PresetViewer, where: string) => Promise<unknown>) => {
      const once = () => {
        const who = viewer();
        const where = collection();
        return database!.withSite(SITE, (tx) => read(tx, who, where));
      };
      for (let index = 0; index < 50; index += 1) await once(); // warm the cache and the statement plans
      const timings: number[] = [];
      for (let index = 0; index < lookups; index += 1) {
        const started = performance.now();
        await once();
        timings.push(performance.now() - started);
      }
      timings.sort((a, b) => a - b);
      console.log(`presets: ${lookups} ${name} among ${count}: p50 ${percentile(timings, 50).toFixed(2)} ms, p99 ${percentile(timings, 99).toFixed(2)} ms, max ${timings.at(-1)!.toFixed(2)} ms`);
    };
    await time('effective lookups', (tx, who, where) => findEffectivePreset(tx, SITE, who, where));
    await time('bookmark lists', (tx, who, where) => listVisibleBookmarks(tx, SITE, who, where));

    const plan = await database.withSite(SITE, async (tx) => {
      const rows = await tx.query<{ 'QUERY PLAN': string }>(sql`EXPLAIN (ANALYZE, BUFFERS) ${effectivePresetQuery(SITE, viewer(), 'c3')}`);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    console.log(plan.split('\n').map((line) => `  ${line}`).join('\n'));
    console.log(`presets: the effective lookup ${plan.includes('presets_slot') ? 'uses presets_slot' : 'DOES NOT use presets_slot'} and ${plan.includes('Seq Scan on presets') ? 'SCANS presets' : 'never scans presets'}`);
  } finally {
    await database?.close();
    await owner?.close();
    if (values.keep) console.log(`presets: kept ${scratch.name}`);
    else await scratch.drop();
  }
}
