// Database connections a test file holds besides its service's, each opened at the file's top level
// (with `await`) and closed after the file's last test. The owner is not bound by row-level
// security: tests use it to read what the service stored, or to change it behind the service's back.
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { createDatabase, type Database } from '../../infra/postgres/database.ts';
import type { MigrateOptions } from '../../infra/postgres/migrate.ts';
import { createFreshDatabase, type FreshDatabase } from '../projections/freshDatabase.ts';

/** A plain pg client as the owner of the test run's database (or of the database at `url`). */
export async function connectOwnerClientForFile(url: string = inject('databaseUrl')): Promise<pg.Client> {
  const owner = new pg.Client({ connectionString: url });
  await owner.connect();
  afterAll(() => owner.end());
  return owner;
}

/** A small pool as the owner of the test run's database, queried with `sql` templates. */
export function openOwnerDatabaseForFile(): Database {
  const owner = createDatabase({ connectionString: inject('databaseUrl'), poolSize: 2, asApplicationRole: false });
  afterAll(() => owner.close());
  return owner;
}

/** A migrated database of the file's own (see freshDatabase.ts; `migrations.through`: only so far), dropped after its last test. */
export async function createFreshDatabaseForFile(migrations: MigrateOptions = {}): Promise<FreshDatabase> {
  const fresh = await createFreshDatabase(migrations);
  afterAll(() => fresh.drop());
  return fresh;
}
