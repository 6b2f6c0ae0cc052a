// A database of its own for tests that truncate read models or need an exact log: created from the
// admin URL, migrated, dropped afterwards, so parallel test files never see it.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createDatabase, type Database } from '../../infra/postgres/database.ts';
import { migrate, type MigrateOptions } from '../../infra/postgres/migrate.ts';
import { identifier, sql } from '../../infra/postgres/sql.ts';
import type { Projection } from '../../projections/projection.ts';

export interface FreshDatabase {
  url: string;
  /** Owner connections: no row-level security, may truncate and rebuild. */
  owner: Database;
  drop(): Promise<void>;
}

async function onServer(work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

/** `migrations.through`: migrated up to that migration only (a database as an older release left it). */
export async function createFreshDatabase(migrations: MigrateOptions = {}): Promise<FreshDatabase> {
  const name = `svc_fresh_${randomBytes(5).toString('hex')}`;
  await onServer((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(inject('adminDatabaseUrl'));
  url.pathname = `/${name}`;
  try {
    await migrate(url.toString(), migrations);
  } catch (error) {
    await onServer((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    throw error;
  }
  const owner = createDatabase({ connectionString: url.toString(), poolSize: 4, asApplicationRole: false });
  return {
    url: url.toString(),
    owner,
    async drop() {
      await owner.close();
      await onServer((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** Every row of every table the given projections own, as sorted JSON lines (to compare a rebuild). */
export async function snapshotReadModels(owner: Database, projections: readonly Projection[]): Promise<Record<string, string[]>> {
  const tables: Record<string, string[]> = {};
  for (const projection of projections) {
    for (const table of projection.tables) {
      const rows = await owner.query(sql`SELECT * FROM ${identifier(table)}`);
      tables[table] = rows.map((row) => JSON.stringify(row)).sort();
    }
  }
  return tables;
}
