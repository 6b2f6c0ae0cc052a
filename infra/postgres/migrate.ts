// Applies the numbered SQL files of migrations/ once each, in order, under an advisory lock so that
// several instances starting together migrate once.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const migrationsDirectory = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
const MIGRATION_LOCK = 7_340_001;

export interface MigrationResult {
  applied: string[];
}

export async function migrate(connectionString: string): Promise<MigrationResult> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await client.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name));
    const files = readdirSync(migrationsDirectory).filter((f) => f.endsWith('.sql')).sort();
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      await client.query('BEGIN');
      try {
        await client.query(readFileSync(join(migrationsDirectory, file), 'utf8'));
        await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
        await grantApplicationRole(client);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${file} failed: ${(error as Error).message}`);
      }
      applied.push(file);
    }
    return { applied };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await client.end();
  }
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
