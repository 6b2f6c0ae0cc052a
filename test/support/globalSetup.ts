// One fresh database per test run: on DATABASE_URL's server when set, else on an embedded PostgreSQL.
// Test files share it and isolate themselves by using a fresh site id each.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../infra/postgres/embedded.ts';
import { migrate } from '../../infra/postgres/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    adminDatabaseUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The Studio's browser tests drive the built app (test/studio/): built here when its sources changed.
  const studio = spawnSync(process.execPath, [join(import.meta.dirname, '..', '..', 'scripts', 'studio', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  if (studio.status !== 0) throw new Error('The Studio did not build (scripts/studio/build.mjs)');
  let serverUrl = process.env.DATABASE_URL;
  let stopEmbedded: (() => Promise<void>) | null = null;
  let dataDir: string | null = null;
  if (!serverUrl) {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-test-pg-'));
    const embedded = await startEmbeddedPostgres(dataDir);
    serverUrl = embedded.connectionString;
    stopEmbedded = embedded.stop;
  }
  const databaseName = `svc_test_${Date.now().toString(36)}_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${databaseName}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  await migrate(url.toString());
  project.provide('databaseUrl', url.toString());
  project.provide('adminDatabaseUrl', serverUrl);

  return async () => {
    const cleanup = new pg.Client({ connectionString: serverUrl });
    await cleanup.connect();
    await cleanup.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
    await cleanup.end();
    if (stopEmbedded) await stopEmbedded();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
}
