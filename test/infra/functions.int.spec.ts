// The SQL functions live in infra/postgres/functions/, re-applied by every migrate after the numbered
// migrations: whatever path a database took (created now, migrated step by step over the releases,
// a function edited by hand), it ends with the same function definitions and grants.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { applyFunctions, FUNCTIONS_DIRECTORY, migrate, MIGRATIONS_DIRECTORY } from '../../infra/postgres/migrate.ts';

/** Functions the numbered migrations call while they run: they stay in the migration that made them. */
const MIGRATION_HELPERS = ['svc_enable_site_rls'];

const created: string[] = [];

async function onServer<T>(work: (client: pg.Client) => Promise<T>, url = inject('adminDatabaseUrl')): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function newDatabase(): Promise<string> {
  const name = `svc_functions_${Date.now().toString(36)}_${created.length}_${process.pid}`;
  await onServer((client) => client.query(`CREATE DATABASE ${name}`));
  created.push(name);
  const url = new URL(inject('adminDatabaseUrl'));
  url.pathname = `/${name}`;
  return url.toString();
}

afterAll(async () => {
  await onServer(async (client) => {
    for (const name of created) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
});

interface FunctionState {
  signature: string;
  oid: number;
  acl: string | null;
  definition: string;
}

async function functionsOf(url: string): Promise<FunctionState[]> {
  return onServer(async (client) => {
    const { rows } = await client.query<FunctionState>(`
      SELECT p.oid::regprocedure::text AS signature, p.oid::int AS oid, p.proacl::text AS acl, pg_get_functiondef(p.oid) AS definition
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'public' AND p.proname LIKE 'svc\\_%'
       ORDER BY 1`);
    return rows;
  }, url);
}

const withoutOids = (states: FunctionState[]) => states.map(({ signature, acl, definition }) => ({ signature, acl, definition }));

const migrationFiles = readdirSync(MIGRATIONS_DIRECTORY).filter((file) => file.endsWith('.sql')).sort();

/** Applies the numbered migrations up to `last` as the runner did before functions/ existed. */
async function migrateTheOldWay(url: string, last: string): Promise<void> {
  await onServer(async (client) => {
    await client.query('CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    for (const file of migrationFiles.filter((name) => name <= last)) {
      await client.query('BEGIN');
      await client.query(readFileSync(join(MIGRATIONS_DIRECTORY, file), 'utf8'));
      await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
      await client.query('COMMIT');
    }
  }, url);
}

let fresh: string;
let freshFunctions: FunctionState[];

beforeAll(async () => {
  fresh = await newDatabase();
  await migrate(fresh);
  freshFunctions = await functionsOf(fresh);
}, 60_000);

describe('the SQL functions of infra/postgres/functions', () => {
  it('are every function of a migrated database but the migrations’ own helpers, one file each', () => {
    const files = readdirSync(FUNCTIONS_DIRECTORY).filter((file) => file.endsWith('.sql'));
    const names = files.map((file) => file.replace(/\.sql$/, '')).sort();
    const inDatabase = [...new Set(freshFunctions.map((state) => state.signature.replace(/\(.*$/, '')))].sort();
    expect(inDatabase).toEqual([...names, ...MIGRATION_HELPERS].sort());
    for (const file of files) {
      expect(readFileSync(join(FUNCTIONS_DIRECTORY, file), 'utf8'), file).toContain(`CREATE OR REPLACE FUNCTION ${file.replace(/\.sql$/, '')}(`);
    }
  });

  it('applied again to a database migrated from nothing, change no definition, grant or oid', async () => {
    await onServer((client) => applyFunctions(client), fresh);
    expect(await functionsOf(fresh)).toEqual(freshFunctions);
  });

  it('make migrating twice a no-op', async () => {
    expect((await migrate(fresh)).applied).toEqual([]);
    expect(await functionsOf(fresh)).toEqual(freshFunctions);
  });

  // Cut after each migration that redefined a function, and after the first and the last.
  it.each(['0001_event_store.sql', '0003_faster_append.sql', '0101_append_first_events.sql', '0153_fold_accents_quick_check.sql', '0300_change_feed.sql', migrationFiles.at(-1)!])(
    'leave a database migrated step by step, up to %s before they existed, as one migrated from nothing',
    async (last) => {
      const url = await newDatabase();
      await migrateTheOldWay(url, last);
      const rest = migrationFiles.filter((name) => name > last);
      expect((await migrate(url)).applied).toEqual(rest);
      expect(withoutOids(await functionsOf(url))).toEqual(withoutOids(freshFunctions));
    },
    60_000,
  );

  it('put back a function or a grant changed by hand at the next migrate', async () => {
    const url = await newDatabase();
    await migrate(url);
    await onServer(async (client) => {
      await client.query(`CREATE OR REPLACE FUNCTION svc_read_stream_head(p_stream text) RETURNS SETOF events
        LANGUAGE sql STABLE AS $$ SELECT * FROM events WHERE stream_id = p_stream ORDER BY stream_position DESC LIMIT 1 $$`);
      await client.query('REVOKE EXECUTE ON FUNCTION svc_append(text, text, bigint, jsonb) FROM svc_app');
    }, url);
    expect(withoutOids(await functionsOf(url))).not.toEqual(withoutOids(freshFunctions));
    await migrate(url);
    expect(withoutOids(await functionsOf(url))).toEqual(withoutOids(freshFunctions));
  }, 60_000);
});
