// A database of its own for one benchmark run, on the server of `serverUrl` (the role needs CREATEDB):
// created here, dropped by `drop()` (even with sessions left open). `reuse` names one that exists.
import pg from 'pg';

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

async function run(serverUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/** DATABASE_URL: the PostgreSQL server a benchmark creates its scratch database on. */
export function scratchServerUrl(): string {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error('set DATABASE_URL to a PostgreSQL server (a scratch database is created on it)');
  return serverUrl;
}

export async function createScratchDatabase(serverUrl: string, name: string, options: { reuse?: boolean } = {}): Promise<ScratchDatabase> {
  if (!options.reuse) await run(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => run(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
