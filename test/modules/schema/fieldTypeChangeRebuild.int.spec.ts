// A field's type change is folded by the read models that hold its values (items and drafts, the
// item history's open rows, search) and by the schema's (its definition and index): rebuilt from the
// log, they hold the same rows as the incremental run, converted values included, and so do the
// writes after the change (which start from the converted item). Also: the conversion function's table.
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { itemsProjection } from '../../../projections/itemsProjection.ts';
import { schemaProjection } from '../../../projections/schemaProjection.ts';
import { searchProjection } from '../../../projections/searchProjection.ts';
import { snapshotReadModels } from '../../projections/freshDatabase.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { settledIndexes } from '../../support/fieldIndexes.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { adminCalls } from './support.ts';

const projections = [schemaProjection, itemsProjection, searchProjection];
const fresh = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: fresh.url });

describe('a field type change and the read models', () => {
  it('rebuilds to the same rows: converted values, drafts, search texts and indexes', { timeout: 60_000 }, async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    const ok = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
      const response = headers
        ? await service.request(method, path, { site: site.siteId, token: site.adminToken, body, headers })
        : await call(method, path, body);
      expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
      return response.body;
    };
    await ok('POST', '/collections', {
      name: 'notes',
      fields: [
        { field: 'title', type: 'string' },
        { field: 'code', type: 'string' },
        { field: 'label', type: 'string', indexed: true },
      ],
    });
    const first = (await ok('POST', '/items/notes', { title: 'one', code: '12', label: 'keep-me' })).data;
    await ok('POST', '/items/notes', { title: 'two', code: 'abc', label: 'Not A Slug' });
    await ok('PATCH', `/items/notes/${first.id}`, { code: '13' }, { 'x-svc-draft': 'true' });
    expect((await ok('PATCH', '/fields/notes/code?allowDestructive=true', { type: 'integer' })).meta).toEqual({ converted: 1, nulled: 1 });
    expect((await ok('PATCH', '/fields/notes/label?allowDestructive=true', { type: 'slug' })).meta).toEqual({ converted: 1, nulled: 1 });
    await ok('POST', '/items/notes', { title: 'three', code: 3, label: 'fresh' });
    const items = await fresh.owner.query<{ code: unknown; label: unknown }>(
      sql`SELECT data -> 'code' AS code, data -> 'label' AS label FROM items WHERE site_id = ${site.siteId} ORDER BY data ->> 'title'`,
    );
    expect(items).toEqual([
      { code: 12, label: 'keep-me' },
      { code: 3, label: 'fresh' },
      { code: null, label: null },
    ]);
    // The history of "one": created with "12", converted by each change (same version, from the change's moment); the open version is its items row.
    const history = await fresh.owner.query<{ version: number; code: unknown; label: unknown; open: boolean }>(
      sql`SELECT version, code, label, open FROM (
            SELECT version, data -> 'code' AS code, data -> 'label' AS label, false AS open, valid_from FROM item_history
             WHERE site_id = ${site.siteId} AND id = ${first.id}
            UNION ALL
            SELECT version, data -> 'code', data -> 'label', true, valid_from FROM items WHERE site_id = ${site.siteId} AND id = ${first.id}) v
           ORDER BY valid_from, version`,
    );
    expect(history).toEqual([
      { version: 1, code: '12', label: 'keep-me', open: false },
      { version: 2, code: '12', label: 'keep-me', open: false },
      { version: 2, code: 12, label: 'keep-me', open: true },
    ]);
    // A write after the changes starts from the converted item.
    await ok('PATCH', `/items/notes/${first.id}`, { title: 'one again' });
    const [latest] = await fresh.owner.query<{ code: unknown }>(
      sql`SELECT data -> 'snapshot' -> 'code' AS code FROM events WHERE site_id = ${site.siteId} AND type = 'item.updated' ORDER BY position DESC LIMIT 1`,
    );
    expect(latest!.code).toBe(12);
    const [draft] = await fresh.owner.query<{ code: unknown }>(sql`SELECT data -> 'code' AS code FROM item_drafts WHERE site_id = ${site.siteId}`);
    expect(draft!.code).toBe(13);
    await service.context.daemon.drain();
    const texts = await fresh.owner.query<{ texts: Record<string, unknown> }>(sql`SELECT texts FROM search_documents WHERE site_id = ${site.siteId} ORDER BY id`);
    expect(texts.map((row) => Object.keys(row.texts).sort())).toEqual([['label', 'title'], ['title'], ['label', 'title']]);
    await settledIndexes(service, fresh.owner.pool, site.siteId);
    await expectRebuildToGiveSameRows({
      service,
      owner: fresh.owner,
      projections,
      snapshot: () => snapshotReadModels(fresh.owner, projections),
      tablesWithRows: ['collection_fields', 'item_field_indexes', 'items', 'item_drafts', 'item_history', 'search_documents', 'search_fields'],
    });
  });

  it('converts by the table: exact parses only', async () => {
    const cases: [unknown, string, unknown][] = [
      ['12', 'integer', 12],
      ['12.5', 'integer', null],
      [12.0, 'integer', 12],
      [true, 'integer', null],
      ['99999999999', 'integer', null],
      ['99999999999', 'bigInteger', '99999999999'],
      ['1.5e3', 'float', 1500],
      [12.5, 'decimal', '12.5'],
      [true, 'string', 'true'],
      [12.5, 'string', '12.5'],
      [{ a: 1 }, 'string', '{"a": 1}'],
      ['x'.repeat(256), 'string', null],
      [' TRUE ', 'boolean', true],
      ['yes', 'boolean', null],
      ['2024-02-29', 'date', '2024-02-29'],
      ['2024-02-30', 'date', null],
      ['2024-05-01', 'dateTime', '2024-05-01T00:00:00.000Z'],
      ['2024-05-01T10:00:00.1239+02:00', 'dateTime', '2024-05-01T08:00:00.123Z'],
      ['10:30', 'time', '10:30:00'],
      ['#ABC', 'color', '#abc'],
      [' a, ,b ', 'csv', 'a,b'],
      [['a', 'b'], 'csv', 'a,b'],
      ['Not A Slug', 'slug', null],
      ['abc', 'json', 'abc'],
      [{ type: 'Point', coordinates: [1, 2] }, 'geometry', { type: 'Point', coordinates: [1, 2] }],
      ['pw', 'hash', null],
    ];
    for (const [value, type, expected] of cases) {
      const [row] = await fresh.owner.query<{ converted: unknown }>(
        sql`SELECT svc_convert_field_value(${JSON.stringify(value)}::jsonb, ${type}) AS converted`,
      );
      expect(row!.converted, `${JSON.stringify(value)} → ${type}`).toEqual(expected);
      const [again] = await fresh.owner.query<{ converted: unknown }>(
        sql`SELECT svc_convert_field_value(svc_convert_field_value(${JSON.stringify(value)}::jsonb, ${type}), ${type}) AS converted`,
      );
      expect(again!.converted, `converting ${JSON.stringify(value)} to ${type} twice`).toEqual(expected);
    }
  });
});
