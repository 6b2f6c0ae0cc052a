import { readdirSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { migrate } from '../../infra/postgres/migrate.ts';

// A database of its own: migrating from nothing must not touch the suite's shared database.
const name = `svc_migrate_${Date.now().toString(36)}_${process.pid}`;
let url: string;

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const target = new URL(inject('adminDatabaseUrl'));
  target.pathname = `/${name}`;
  url = target.toString();
});
afterAll(async () => {
  await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
});

describe('migrations', () => {
  it('apply every file once, in name order, even when several instances start together', async () => {
    const files = readdirSync(new URL('../../infra/postgres/migrations/', import.meta.url))
      .filter((file) => file.endsWith('.sql'))
      .sort();
    const results = await Promise.all([migrate(url), migrate(url), migrate(url)]);
    const applied = results.flatMap((result) => result.applied);
    expect(applied).toEqual(files);
    expect((await migrate(url)).applied).toEqual([]);

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      expect(rows.map((row) => row.name)).toEqual(files);
    } finally {
      await client.end();
    }
  });
});
