// A log recorded before time travel kept only closed versions in item_history (test/fixtures/
// oldItemLog, recorded by an older checkout) still works: migration 0640 rewrites that release's
// item read models to exactly what a rebuild from the log gives, and the log replayed into fresh read
// models answers time travel as the old service did, with the values its workload wrote.
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Database } from '../../../infra/postgres/database.ts';
import { migrate } from '../../../infra/postgres/migrate.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { projections } from '../../../projections/index.ts';
import { itemsProjection } from '../../../projections/itemsProjection.ts';
import { rebuildProjection } from '../../../src/runtime/projectionRunner.ts';
import { loadItemReadModels, loadLog, readOldLogFixture, type OldLogFixture } from '../../fixtures/oldItemLog/fixture.ts';
import { snapshotReadModels } from '../../projections/freshDatabase.ts';
import { connectOwnerClientForFile, createFreshDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { startTestService, type TestService } from '../../support/testService.ts';

const fixture = readOldLogFixture();
const MIGRATION = '0640_item_history_closed_versions.sql';
// The old release's database (migrated as far as the recording's), and one migrated to today.
const old = await createFreshDatabaseForFile({ through: fixture.recorded.lastMigration });
const fresh = await createFreshDatabaseForFile();
const oldClient = await connectOwnerClientForFile(old.url);
const freshClient = await connectOwnerClientForFile(fresh.url);

/** Every read model but those of `except`, replayed from the log (as `svc projections rebuild --all`). */
async function rebuildAll(owner: Database, except: readonly unknown[] = []): Promise<void> {
  for (const projection of projections) if (!except.includes(projection)) await rebuildProjection(owner, projection);
}

async function startService(url: string): Promise<TestService> {
  const service = await startTestService({ DATABASE_URL: url });
  onTestFinished(() => service.close());
  await service.context.daemon.drain();
  return service;
}

/** Each probe of the fixture, as the site's administrator: the old service's answer, and what the workload wrote. */
async function expectOldAnswers(service: TestService, { sites, probes }: OldLogFixture): Promise<void> {
  const tokens = new Map<string, string>();
  for (const { siteId, adminEmail, adminPassword } of sites) {
    const login = await service.request('POST', '/auth/login', { site: siteId, body: { email: adminEmail, password: adminPassword } });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    tokens.set(siteId, login.body.data.token);
  }
  expect(probes.filter((probe) => probe.kind === 'item' && probe.written !== null).length).toBeGreaterThan(10);
  for (const probe of probes) {
    const response = await service.request('GET', probe.path, { site: probe.site, token: tokens.get(probe.site)! });
    expect(response.status, `${probe.path}: ${JSON.stringify(response.body)}`).toBe(probe.status);
    expect(response.status === 200 ? response.body : response.body.errors[0].code, probe.path).toEqual(probe.answer);
    if (probe.kind === 'item') {
      expect(response.status, probe.path).toBe(probe.written === null ? 404 : 200);
      if (probe.written) expect(response.body.data, probe.path).toMatchObject(probe.written);
    }
  }
}

/** The item read models, and the live counts per key folded from item_count_deltas (each must equal the live items). */
async function itemSnapshot(): Promise<Record<string, string[]>> {
  const tables = await snapshotReadModels(old.owner, [itemsProjection]);
  const counted = await old.owner.query<{ key: string }>(sql`
    SELECT concat_ws('/', site_id, collection, status, sum(live)) AS key FROM item_count_deltas
     GROUP BY site_id, collection, status HAVING sum(live) <> 0 ORDER BY 1`);
  const live = await old.owner.query<{ key: string }>(sql`
    SELECT concat_ws('/', site_id, collection, status, count(*)) AS key FROM items WHERE deleted_at IS NULL
     GROUP BY site_id, collection, status ORDER BY 1`);
  expect(counted.map((row) => row.key), 'folded item counts').toEqual(live.map((row) => row.key));
  tables.item_counts = counted.map((row) => row.key);
  return tables;
}

const countRows = (client: pg.Client) =>
  client.query<{ row: string }>(`SELECT concat_ws('/', site_id, collection, status, live) AS row FROM item_count_deltas ORDER BY 1`).then(({ rows }) => rows.map((r) => r.row));

describe('a log recorded before item_history kept closed versions only', () => {
  it(`is rewritten by ${MIGRATION} to the read models a rebuild gives`, { timeout: 120_000 }, async () => {
    await loadLog(oldClient, fixture);
    await loadItemReadModels(oldClient, fixture);
    const { rows } = await oldClient.query<{ open: number; items: number }>(
      `SELECT (SELECT count(*)::int FROM item_history WHERE valid_to IS NULL) AS open, (SELECT count(*)::int FROM items) AS items`,
    );
    const before = { ...rows[0]!, counts: await countRows(oldClient) };
    // The old model: each item's current version also an open history row.
    expect(before.items).toBeGreaterThan(0);
    expect(before.open).toBe(before.items);

    const { applied } = await migrate(old.url);
    expect(applied).toContain(MIGRATION);
    const [after] = (await oldClient.query<{ open: number }>(`SELECT count(*)::int AS open FROM item_history WHERE valid_to IS NULL`)).rows;
    expect(after!.open, 'open history rows').toBe(0);
    // The migration's own UPDATE of every item ran no count trigger.
    expect(await countRows(oldClient)).toEqual(before.counts);

    // The rest of the database from the log (no item read model among them), then time travel as the old service answered.
    await rebuildAll(old.owner, [itemsProjection]);
    const service = await startService(old.url);
    await expectOldAnswers(service, fixture);
    await expectRebuildToGiveSameRows({
      service,
      owner: old.owner,
      projections: [itemsProjection],
      snapshot: itemSnapshot,
      tablesWithRows: ['items', 'item_history', 'item_drafts', 'item_counts'],
    });
  });

  it('replays into fresh read models that answer time travel as the old service did', { timeout: 120_000 }, async () => {
    await loadLog(freshClient, fixture);
    await rebuildAll(fresh.owner);
    const [counts] = await fresh.owner.query<{ items: number; history: number }>(
      sql`SELECT (SELECT count(*)::int FROM items) AS items, (SELECT count(*)::int FROM item_history) AS history`,
    );
    // Every item the old read model held, and each of its replaced versions closed.
    expect(counts).toEqual({ items: fixture.tables.items!.rows.length, history: fixture.tables.item_history!.rows.length - fixture.tables.items!.rows.length });
    const service = await startService(fresh.url);
    await expectOldAnswers(service, fixture);
  });
});
