// The field index builder: a schema command only records the index a field asks for; the builder
// makes it with CREATE INDEX CONCURRENTLY outside any transaction, so writes to `items` go on while
// it builds. On a database of its own, so that this file's services are the only builders and a
// transaction held open here delays no other file's builds.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { schemaProjection } from '../../projections/schemaProjection.ts';
import type { FieldIndexBuilderStats } from '../../src/runtime/fieldIndexBuilder.ts';
import { rebuildProjection } from '../../src/runtime/projectionRunner.ts';
import { createFreshDatabaseForFile } from '../support/databases.ts';
import { catalogIndex, eventually, indexRowsOf, settledIndexes } from '../support/fieldIndexes.ts';
import { createTestSite, startTestService, startTestServiceForFile, type TestService, type TestSite } from '../support/testService.ts';

const POLL = { SVC_FIELD_INDEX_POLL_MS: '100' };

const fresh = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: fresh.url, ...POLL });
const owner = new pg.Client({ connectionString: fresh.url });
await owner.connect();
afterAll(() => owner.end());

function as(site: TestSite, via: TestService = service) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await via.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }) });
    expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
    return response;
  };
}

async function indexStatus(site: TestSite, collection: string, field: string) {
  return (await as(site)('GET', `/fields/${collection}/${field}`)).body.meta.indexStatus;
}

function awaitIndexState(site: TestSite, collection: string, field: string, state: string) {
  return eventually(service, `${collection}.${field} to be ${state}`, async () => {
    const status = await indexStatus(site, collection, field);
    return status?.state === state ? status : null;
  });
}

/** The builder's statement of the moment, when it waits on a lock (a build held open by a writer). */
async function waitingBuilderStatement(): Promise<{ pid: number; query: string } | null> {
  const { rows } = await owner.query<{ pid: number; query: string }>(
    `SELECT pid, query FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = 'svc-field-index-builder' AND wait_event_type = 'Lock'`,
  );
  return rows[0] ?? null;
}

/** A transaction that holds ROW EXCLUSIVE on `items` (what every writer of an item holds until it commits). */
async function holdWriterLock(): Promise<pg.Client> {
  const holder = new pg.Client({ connectionString: fresh.url });
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query('LOCK TABLE items IN ROW EXCLUSIVE MODE');
  return holder;
}

async function release(holder: pg.Client): Promise<void> {
  await holder.query('COMMIT');
  await holder.end();
}

function sumStats(services: TestService[]): FieldIndexBuilderStats {
  const total = { built: 0, dropped: 0, repaired: 0, failed: 0 };
  for (const { context } of services) {
    for (const key of Object.keys(total) as (keyof FieldIndexBuilderStats)[]) total[key] += context.fieldIndexBuilder.stats[key];
  }
  return total;
}

describe('field index builds', () => {
  it('answers a schema change at once and keeps items writable while the index builds, then reports it ready', async () => {
    const site = await createTestSite(service, 'fib');
    const call = as(site);
    await call('POST', '/collections', { name: 'articles', fields: [{ field: 'title', type: 'string' }] });
    await call('POST', '/items/articles', { title: 'Before' });

    // A writer's open transaction: a plain CREATE INDEX would wait for it and queue every other write behind it.
    const holder = await holdWriterLock();
    try {
      const started = Date.now();
      expect((await call('POST', '/fields/articles', { field: 'code', type: 'string', indexed: true })).status).toBe(201);
      expect(Date.now() - started).toBeLessThan(5_000);
      const building = await indexStatus(site, 'articles', 'code');
      expect(building).toEqual({ state: 'building', error: null, index: expect.stringMatching(/^items_f_/) });

      // The concurrent build has started (its INVALID index is in the catalog) and waits for the writer.
      const waiting = await eventually(service, 'the build to wait for the writer', waitingBuilderStatement);
      expect(waiting.query).toMatch(/^CREATE INDEX CONCURRENTLY IF NOT EXISTS/);
      expect(await catalogIndex(owner, building.index)).toMatchObject({ valid: false });

      // Meanwhile other sessions write items, through the API and directly.
      const written = await call('POST', '/items/articles', { title: 'During', code: 'b' });
      expect(written.status).toBe(201);
      await owner.query(`INSERT INTO items (site_id, collection, id, version, data) VALUES ($1, 'articles', 'direct', 1, '{"code": "c"}')`, [site.siteId]);
      expect((await indexStatus(site, 'articles', 'code')).state).toBe('building');
    } finally {
      await release(holder);
    }

    const ready = await awaitIndexState(site, 'articles', 'code', 'ready');
    const index = await catalogIndex(owner, ready.index);
    expect(index?.valid).toBe(true);
    expect(index?.definition).toBe(
      `CREATE INDEX ${ready.index} ON public.items USING btree (((data ->> 'code'::text))) ` +
        `WHERE ((site_id = '${site.siteId}'::text) AND (collection = 'articles'::text) AND (deleted_at IS NULL))`,
    );
  });

  it('drops the index when the field loses its indexed flag, changes kind, is removed or its collection is deleted', async () => {
    const site = await createTestSite(service, 'fib');
    const call = as(site);
    await call('POST', '/collections', {
      name: 'articles',
      fields: [
        { field: 'a', type: 'string', indexed: true },
        { field: 'b', type: 'integer', indexed: true },
        { field: 'c', type: 'string', indexed: true },
      ],
    });
    await call('POST', '/collections', { name: 'other', fields: [{ field: 'd', type: 'string', indexed: true }] });
    const rows = await settledIndexes(service, owner, site.siteId);
    // Sorted kinds have a DESC NULLS LAST twin (`:desc`) for `sort=-field` with empty values last.
    expect(rows.map((row) => `${row.collection}.${row.field}:${row.kind}`)).toEqual([
      'articles.a:text', 'articles.a:text:desc', 'articles.b:numeric', 'articles.b:numeric:desc', 'articles.c:text', 'articles.c:text:desc', 'other.d:text', 'other.d:text:desc',
    ]);
    const namesOf = (field: string) => rows.filter((row) => row.field === field).map((row) => row.index_name);
    for (const row of rows) expect(await catalogIndex(owner, row.index_name)).toMatchObject({ valid: true });

    await call('PATCH', '/fields/articles/a', { indexed: false });
    await call('DELETE', '/fields/articles/b');
    await call('PATCH', '/fields/articles/c', { type: 'integer' });
    await call('DELETE', '/collections/other');
    const after = await settledIndexes(service, owner, site.siteId);
    expect(after.map((row) => `${row.collection}.${row.field}:${row.kind}`)).toEqual(['articles.c:numeric', 'articles.c:numeric:desc']);
    expect(await indexStatus(site, 'articles', 'a')).toBeNull();
    for (const field of ['a', 'b', 'c', 'd']) for (const name of namesOf(field)) expect(await catalogIndex(owner, name), field).toBeNull();
    for (const row of after) expect(await catalogIndex(owner, row.index_name)).toMatchObject({ valid: true });
  });

  it('repairs the INVALID index a crashed build left: drops it and builds again', async () => {
    const site = await createTestSite(service, 'fib');
    const call = as(site);
    await call('POST', '/collections', { name: 'articles', fields: [{ field: 'code', type: 'string' }] });
    const repairedBefore = service.context.fieldIndexBuilder.stats.repaired;
    const holder = await holdWriterLock();
    let name: string;
    try {
      await call('PATCH', '/fields/articles/code', { indexed: true });
      name = (await indexStatus(site, 'articles', 'code')).index;
      const waiting = await eventually(service, 'the build to wait for the writer', waitingBuilderStatement);
      // The builder's connection dies in the middle of the build (a crash, a failover).
      await owner.query('SELECT pg_terminate_backend($1)', [waiting.pid]);
      expect(await catalogIndex(owner, name)).toMatchObject({ valid: false });
      expect((await indexStatus(site, 'articles', 'code')).state).toBe('building');
    } finally {
      await release(holder);
    }
    await awaitIndexState(site, 'articles', 'code', 'ready');
    expect(service.context.fieldIndexBuilder.stats.repaired).toBeGreaterThan(repairedBefore);
    expect(await catalogIndex(owner, name!)).toMatchObject({ valid: true });
  });

  it('records a failed build with its error, leaves no INVALID index behind and goes on with other builds', async () => {
    const site = await createTestSite(service, 'fib');
    const call = as(site);
    await call('POST', '/collections', { name: 'flags', fields: [{ field: 'on', type: 'boolean' }, { field: 'n', type: 'integer' }] });
    await call('POST', '/items/flags', { on: true, n: 1 });
    // A value the index expression cannot cast (data written before a rule, or by hand).
    await owner.query(`UPDATE items SET data = jsonb_set(data, '{on}', '"maybe"') WHERE site_id = $1 AND collection = 'flags'`, [site.siteId]);

    await call('PATCH', '/fields/flags/on', { indexed: true });
    const failed = await awaitIndexState(site, 'flags', 'on', 'failed');
    expect(failed.error).toMatch(/invalid input syntax for type boolean/);
    expect(await catalogIndex(owner, failed.index)).toBeNull();
    expect((await call('POST', '/items/flags', { on: false, n: 2 })).status).toBe(201);

    // The builder is still at work.
    await call('PATCH', '/fields/flags/n', { indexed: true });
    await awaitIndexState(site, 'flags', 'n', 'ready');

    // Once the data is fixed, asking again builds it.
    await owner.query(`UPDATE items SET data = jsonb_set(data, '{on}', 'true') WHERE site_id = $1 AND collection = 'flags' AND data->>'on' = 'maybe'`, [
      site.siteId,
    ]);
    await call('PATCH', '/fields/flags/on', { indexed: false });
    await call('PATCH', '/fields/flags/on', { indexed: true });
    await awaitIndexState(site, 'flags', 'on', 'ready');
  });

  it('lets a site record indexes for itself only', async () => {
    const [site, other] = await Promise.all([createTestSite(service, 'fib'), createTestSite(service, 'fib')]);
    await as(other)('POST', '/collections', { name: 'articles', fields: [{ field: 'code', type: 'string', indexed: true }] });
    await settledIndexes(service, owner, other.siteId);
    const asSite = (statement: string) =>
      service.context.database.withSite(site.siteId, (tx) => tx.query({ text: statement, values: [other.siteId] }));
    // The application role cannot ask for an index of another site, nor mark another site's for dropping.
    await expect(asSite(`INSERT INTO item_field_indexes (site_id, collection, field, kind, state) VALUES ($1, 'articles', 'x', 'text', 'building')`)).rejects.toThrow(
      /row-level security/,
    );
    expect(await asSite(`UPDATE item_field_indexes SET state = 'dropping' WHERE site_id = $1 RETURNING 1`)).toEqual([]);
    // Nor build one itself.
    await expect(
      service.context.database.withSite(site.siteId, (tx) =>
        tx.query({ text: `SELECT svc_item_field_index_statement($1, 'articles', 'x', 'text')`, values: [site.siteId] }),
      ),
    ).rejects.toThrow(/permission denied/);
    expect((await indexRowsOf(owner, other.siteId)).map((row) => row.state)).toEqual(['ready', 'ready']);
  });

  it('a rebuild of the schema projection records the same index rows and builds nothing', async () => {
    const site = await createTestSite(service, 'fib');
    const call = as(site);
    await call('POST', '/collections', { name: 'authors', fields: [{ field: 'name', type: 'string', indexed: true }] });
    await call('POST', '/collections', { name: 'articles', fields: [{ field: 'author', type: 'uuid' }, { field: 'rank', type: 'integer', indexed: true }] });
    await call('POST', '/relations', { kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors' });
    await call('PATCH', '/fields/articles/rank', { indexed: false });
    await call('PATCH', '/fields/articles/rank', { indexed: true });
    await settledIndexes(service, owner, site.siteId);
    const everyRow = async () => (await owner.query('SELECT * FROM item_field_indexes ORDER BY site_id, collection, field, kind')).rows;
    const before = await everyRow();
    const stats = { ...service.context.fieldIndexBuilder.stats };

    await rebuildProjection(fresh.owner, schemaProjection);
    expect(await everyRow()).toEqual(before);
    await settledIndexes(service, owner, site.siteId);
    expect(service.context.fieldIndexBuilder.stats).toEqual(stats);
  });
});

describe('field index builds on several instances', () => {
  it('builds each index once, on the instance that holds the builder lock; another takes over when it stops', async () => {
    const others = [await startTestService({ DATABASE_URL: fresh.url, ...POLL }), await startTestService({ DATABASE_URL: fresh.url, ...POLL })];
    try {
      const instances = [service, ...others];
      const site = await createTestSite(service, 'fib');
      const before = sumStats(instances);
      // Schema changes through every instance: each hears them all.
      await as(site, others[0])('POST', '/collections', { name: 'articles', fields: [{ field: 'a', type: 'string', indexed: true }] });
      await as(site, others[1])('POST', '/fields/articles', { field: 'b', type: 'integer', indexed: true });
      await as(site, service)('POST', '/fields/articles', { field: 'c', type: 'boolean', indexed: true });
      // a and b with their descending twins, c (boolean: no twin).
      expect(await settledIndexes(service, owner, site.siteId)).toHaveLength(5);
      const after = sumStats(instances);
      expect(after.built - before.built).toBe(5);
      expect(after.repaired - before.repaired).toBe(0);
      expect(instances.filter((instance) => instance.context.fieldIndexBuilder.leading)).toHaveLength(1);

      const leader = instances.find((instance) => instance.context.fieldIndexBuilder.leading)!;
      await leader.context.fieldIndexBuilder.stop();
      const standing = instances.filter((instance) => instance !== leader);
      const builtBefore = sumStats(standing).built;
      await as(site, standing[0])('POST', '/fields/articles', { field: 'd', type: 'string', indexed: true });
      expect(await settledIndexes(service, owner, site.siteId)).toHaveLength(7);
      expect(sumStats(standing).built - builtBefore).toBe(2);
      expect(standing.filter((instance) => instance.context.fieldIndexBuilder.leading)).toHaveLength(1);
    } finally {
      for (const other of others) await other.close();
    }
  });
});
