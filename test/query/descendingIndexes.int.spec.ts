// The descending field indexes that serve `sort=-field` (nulls last): what
// svc_item_field_index_statement builds for `<kind>:desc`, and migration 0492 asking for the twin of
// every existing text or numeric field index. On a database of its own (it writes item_field_indexes
// rows for made-up sites and runs DDL on items).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIRECTORY } from '../../infra/postgres/migrate.ts';
import { createFreshDatabase, type FreshDatabase } from '../projections/freshDatabase.ts';

let fresh: FreshDatabase;
let owner: pg.Client;
beforeAll(async () => {
  fresh = await createFreshDatabase();
  owner = new pg.Client({ connectionString: fresh.url });
  await owner.connect();
});
afterAll(async () => {
  await owner?.end();
  await fresh?.drop();
});

async function statementFor(kind: string): Promise<string> {
  const { rows } = await owner.query<{ text: string }>("SELECT svc_item_field_index_statement('s1', 'articles', 'views', $1) AS text", [kind]);
  return rows[0]!.text;
}

describe('descending field indexes', () => {
  it('builds `<kind>:desc` DESC NULLS LAST under a name of its own, and the plain kind as before', async () => {
    const plain = await statementFor('numeric');
    const descending = await statementFor('numeric:desc');
    expect(plain).toMatch(/ON public\.items \(\(\(data ->> 'views'\)::numeric\)\) WHERE site_id = 's1' AND collection = 'articles' AND deleted_at IS NULL$/);
    expect(descending).toMatch(/ON public\.items \(\(\(data ->> 'views'\)::numeric\) DESC NULLS LAST\) WHERE site_id = 's1'/);
    const names = [plain, descending].map((text) => /EXISTS (items_f_\w+) ON/.exec(text)![1]);
    expect(names[0]).not.toBe(names[1]);
    await owner.query(descending);
    const { rows } = await owner.query<{ indexdef: string }>('SELECT indexdef FROM pg_indexes WHERE indexname = $1', [names[1]]);
    expect(rows[0]!.indexdef).toContain("(((data ->> 'views'::text))::numeric) DESC NULLS LAST");
  });

  it('refuses an unknown kind or direction', async () => {
    for (const kind of ['numeric:up', 'numeric:desc:desc', 'decimal']) {
      await expect(statementFor(kind), kind).rejects.toThrow(/unknown field kind/);
    }
    const refused = owner.query("INSERT INTO item_field_indexes (site_id, collection, field, kind, state) VALUES ('s1', 'articles', 'on', 'boolean:desc', 'building')");
    await expect(refused).rejects.toThrow(/item_field_indexes_kind_check/);
  });

  it('migration 0492 asks for the twin of every wanted text or numeric index, once', async () => {
    await owner.query(`INSERT INTO item_field_indexes (site_id, collection, field, kind, state) VALUES
      ('m1', 'articles', 'title', 'text', 'ready'), ('m1', 'articles', 'views', 'numeric', 'building'),
      ('m1', 'articles', 'on', 'boolean', 'ready'), ('m1', 'articles', 'meta', 'json', 'ready'),
      ('m1', 'articles', 'gone', 'text', 'dropping'), ('m2', 'pages', 'slug', 'text', 'failed')`);
    const migration = readFileSync(join(MIGRATIONS_DIRECTORY, '0492_descending_field_indexes.sql'), 'utf8');
    await owner.query(migration);
    await owner.query(migration);
    const { rows } = await owner.query("SELECT site_id, collection, field, kind, state FROM item_field_indexes WHERE site_id IN ('m1', 'm2') ORDER BY site_id, field, kind");
    expect(rows).toEqual([
      { site_id: 'm1', collection: 'articles', field: 'gone', kind: 'text', state: 'dropping' },
      { site_id: 'm1', collection: 'articles', field: 'meta', kind: 'json', state: 'ready' },
      { site_id: 'm1', collection: 'articles', field: 'on', kind: 'boolean', state: 'ready' },
      { site_id: 'm1', collection: 'articles', field: 'title', kind: 'text', state: 'ready' },
      { site_id: 'm1', collection: 'articles', field: 'title', kind: 'text:desc', state: 'building' },
      { site_id: 'm1', collection: 'articles', field: 'views', kind: 'numeric', state: 'building' },
      { site_id: 'm1', collection: 'articles', field: 'views', kind: 'numeric:desc', state: 'building' },
      { site_id: 'm2', collection: 'pages', field: 'slug', kind: 'text', state: 'failed' },
      { site_id: 'm2', collection: 'pages', field: 'slug', kind: 'text:desc', state: 'building' },
    ]);
  });

  it('migration 0491 keeps the manual-order column indexed for both placements', async () => {
    const { rows } = await owner.query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE indexname IN ('items_sort', 'items_sort_desc') ORDER BY indexname");
    expect(rows.map((row) => row.indexdef)).toEqual([
      expect.stringContaining('(site_id, collection, sort) WHERE (deleted_at IS NULL)'),
      expect.stringContaining('(site_id, collection, sort DESC NULLS LAST) WHERE (deleted_at IS NULL)'),
    ]);
  });
});
