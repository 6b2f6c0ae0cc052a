// Applies the numbered SQL files of migrations/ once each, in order, then the SQL functions of
// functions/ on every run, all under an advisory lock so that several instances starting together
// migrate once. The numbered files change tables, indexes and data; functions/ holds the current
// definition of every function (CREATE OR REPLACE), so a database migrated from nothing and one
// migrated step by step end with the same functions.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const here = dirname(fileURLToPath(import.meta.url));
export const MIGRATIONS_DIRECTORY = join(here, 'migrations');
export const FUNCTIONS_DIRECTORY = join(here, 'functions');
const MIGRATION_LOCK = 7_340_001;

export interface MigrationResult {
  /** The numbered migrations this run applied (the functions are applied on every run). */
  applied: string[];
}

export interface MigrateOptions {
  /**
   * Stop after this numbered migration (its file name, e.g. `0630_extensions.sql`): a database as
   * an older release left it, for tests of a later migration. functions/ is applied as on every run
   * (today's definitions).
   */
  through?: string;
}

export async function migrate(connectionString: string, options: MigrateOptions = {}): Promise<MigrationResult> {
  const files = sqlFiles(MIGRATIONS_DIRECTORY);
  if (options.through !== undefined && !files.includes(options.through)) throw new Error(`no migration ${options.through}`);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await client.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name));
    const applied: string[] = [];
    for (const file of files) {
      if (options.through !== undefined && file > options.through) break;
      if (done.has(file)) continue;
      await client.query('BEGIN');
      try {
        await client.query(readFileSync(join(MIGRATIONS_DIRECTORY, file), 'utf8'));
        await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
        await grantApplicationRole(client);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${file} failed: ${(error as Error).message}`);
      }
      applied.push(file);
    }
    await applyFunctions(client);
    return { applied };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await client.end();
  }
}

/**
 * Re-applies every file of functions/, in name order, in one transaction: CREATE OR REPLACE keeps
 * each function's identity (its oid, its grants, the triggers and columns that use it), so a run that
 * changes nothing leaves the catalogue as it was. A numbered migration runs before this: one that
 * needs a function of its own while it runs must define it itself.
 */
export async function applyFunctions(client: pg.ClientBase): Promise<void> {
  await client.query('BEGIN');
  for (const file of sqlFiles(FUNCTIONS_DIRECTORY)) {
    try {
      await client.query(readFileSync(join(FUNCTIONS_DIRECTORY, file), 'utf8'));
    } catch (error) {
      await client.query('ROLLBACK');
      throw new Error(`function file ${file} failed: ${(error as Error).message}`);
    }
  }
  await client.query('COMMIT');
}

function sqlFiles(directory: string): string[] {
  return readdirSync(directory)
    .filter((file) => file.endsWith('.sql'))
    .sort();
}

/** The application role may read and write read models, and only append to and read the log. */
async function grantApplicationRole(client: pg.Client): Promise<void> {
  await client.query(`
    GRANT USAGE ON SCHEMA public TO svc_app;
    GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO svc_app;
    GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO svc_app;
    REVOKE UPDATE, DELETE, TRUNCATE ON events FROM svc_app;
    REVOKE INSERT, UPDATE, DELETE ON schema_migrations FROM svc_app;
  `);
}
