// Migration 0306 (lean search documents) keeps the documents already stored: rows written before it,
// whose tsvector PostgreSQL generated from title_text/body_text, hold the same tsvector after it and
// stay searchable. The expected tsvector is the one search.e2e.spec.ts expects the projection to
// write now for the same texts.
import { readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migrate, MIGRATIONS_DIRECTORY } from '../../../infra/postgres/migrate.ts';

const LEAN_MIGRATION = '0306_search_documents_lean.sql';
const name = `svc_search_lean_${randomBytes(5).toString('hex')}`;
let url: string;

async function withClient<T>(connectionString: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Applies the numbered migrations before `until` as migrate() would, recording each. */
async function migrateUpTo(client: pg.Client, until: string): Promise<void> {
  await client.query('CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
  const files = readdirSync(MIGRATIONS_DIRECTORY).filter((file) => file.endsWith('.sql') && file < until).sort();
  for (const file of files) {
    await client.query('BEGIN');
    await client.query(readFileSync(`${MIGRATIONS_DIRECTORY}/${file}`, 'utf8'));
    await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
    await client.query('COMMIT');
  }
}

beforeAll(async () => {
  await withClient(inject('adminDatabaseUrl'), (client) => client.query(`CREATE DATABASE ${name}`));
  const target = new URL(inject('adminDatabaseUrl'));
  target.pathname = `/${name}`;
  url = target.toString();
});
afterAll(async () => {
  await withClient(inject('adminDatabaseUrl'), (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
});

describe('the lean search documents migration', () => {
  it('keeps the tsvector of documents stored before it and drops the joined text', { timeout: 60_000 }, async () => {
    const texts = { title: { text: 'Học Tiếng Việt', weight: 'A' }, body: { text: 'Bài học', weight: 'B' }, tags: { text: 'phở', weight: 'B' } };
    await withClient(url, async (client) => {
      await migrateUpTo(client, LEAN_MIGRATION);
      await client.query(
        `INSERT INTO search_documents (site_id, collection, id, title_text, body_text, texts, version, indexed_at)
         VALUES ('s', 'posts', 'p1', $1, $2, $3, 1, now())`,
        ['Học Tiếng Việt', 'Bài học\nphở', JSON.stringify(texts)],
      );
    });

    expect((await migrate(url)).applied).toContain(LEAN_MIGRATION);

    await withClient(url, async (client) => {
      const { rows } = await client.query(`SELECT document::text AS document, texts FROM search_documents`);
      expect(rows).toEqual([{ document: "'bai':4B 'hoc':1A,5B 'pho':6B 'tieng':2A 'viet':3A", texts }]);
      const columns = await client.query(
        `SELECT attname FROM pg_attribute WHERE attrelid = 'search_documents'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
      );
      expect(columns.rows.map((row) => row.attname)).toEqual(['site_id', 'collection', 'id', 'document', 'texts']);
      const found = await client.query(`SELECT id FROM search_documents WHERE document @@ to_tsquery('simple', 'tieng:* & viet:*')`);
      expect(found.rows).toEqual([{ id: 'p1' }]);
    });
  });
});
