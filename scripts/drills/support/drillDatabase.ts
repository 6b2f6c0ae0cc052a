// Where a drill's service keeps its data: a scratch database on the PostgreSQL server named by
// DRILL_DATABASE_URL or DATABASE_URL (created here, dropped afterwards; the role needs CREATEDB), or,
// when neither is set or the drill must stop the server itself, a throwaway cluster of its own (the
// embedded PostgreSQL on a free port and a temporary data dir). The machine's shared server is never
// stopped. `owner` is a pool of superuser connections for the drill's checks (no row-level security).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../../infra/postgres/embedded.ts';
import { freePort } from './freePort.ts';

export interface DrillDatabase {
  /** The database's URL, as DATABASE_URL of the service. */
  url: string;
  owner: pg.Pool;
  /** Present on a throwaway cluster only: stop it (a fast shutdown) and start it again on the same port. */
  server?: { stop(): Promise<void>; start(): Promise<void> };
  drop(): Promise<void>;
}

/** The server a scratch database goes on, or null for a throwaway cluster. */
function sharedServerUrl(): string | null {
  return process.env.DRILL_DATABASE_URL || process.env.DATABASE_URL || null;
}

/** With `ownCluster`, always a throwaway cluster (a drill that stops PostgreSQL). */
export async function createDrillDatabase(name: string, options: { ownCluster?: boolean } = {}): Promise<DrillDatabase> {
  const serverUrl = options.ownCluster ? null : sharedServerUrl();
  return serverUrl ? scratchDatabase(serverUrl, name) : throwawayCluster();
}

async function onServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

async function scratchDatabase(serverUrl: string, name: string): Promise<DrillDatabase> {
  const database = `drill_${name.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
  await onServer(serverUrl, `CREATE DATABASE ${database}`);
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  const owner = new pg.Pool({ connectionString: url.toString(), max: 4 });
  owner.on('error', () => undefined);
  return {
    url: url.toString(),
    owner,
    async drop() {
      await owner.end();
      await onServer(serverUrl, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    },
  };
}

async function throwawayCluster(): Promise<DrillDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-drill-pg-'));
  const port = await freePort();
  let embedded: EmbeddedServer | null = await startEmbeddedPostgres(dataDir, { port });
  const url = embedded.connectionString;
  const owner = new pg.Pool({ connectionString: url, max: 4 });
  // Connections of the pool die with the server while it is stopped; the pool replaces them.
  owner.on('error', () => undefined);
  return {
    url,
    owner,
    server: {
      async stop() {
        await embedded?.stop();
        embedded = null;
      },
      async start() {
        embedded ??= await startEmbeddedPostgres(dataDir, { port });
      },
    },
    async drop() {
      await owner.end().catch(() => undefined);
      await embedded?.stop();
      embedded = null;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
