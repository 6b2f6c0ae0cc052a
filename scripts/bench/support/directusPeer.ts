// Directus, as the peer harness (../shared/bench/peer-directus) installs it under /tmp/directus-bench:
// whether it is set up, and one suite of it from the seeded state (reset, restart, bench.mjs).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const DIRECTUS_HOME = '/tmp/directus-bench';
const PSQL = ['-h', '127.0.0.1', '-p', '55433', '-U', 'postgres', '-d', 'directus', '-Atc'];

/** True once the harness's setup.sh has installed, bootstrapped and seeded Directus. */
export function directusIsSetUp(): boolean {
  return existsSync(join(DIRECTUS_HOME, 'app/node_modules/@directus/api')) && existsSync(join(DIRECTUS_HOME, 'pg/PG_VERSION'));
}

function psql(sql: string): string {
  return execFileSync('psql', [...PSQL, sql], { encoding: 'utf8' }).trim();
}

/** Starts Directus' own PostgreSQL cluster (port 55433) when it is not running. */
export function startDirectusDatabase(): void {
  if (spawnSync('pg_isready', ['-h', '127.0.0.1', '-p', '55433']).status === 0) return;
  execFileSync('su', ['postgres', '-c', `/usr/lib/postgresql/15/bin/pg_ctl -D ${DIRECTUS_HOME}/pg -l ${DIRECTUS_HOME}/pg-logs/pg.log -o "-p 55433 -k /tmp -c listen_addresses=127.0.0.1" -w start`], {
    stdio: 'inherit',
  });
}

export interface DirectusSeed {
  /** The highest activity/revision id of the seeded state, which every suite's reset goes back to. */
  lastLogId: number;
  /** The database's size right after the seed. */
  bytes: number;
}

/**
 * Directus' seeded state, read once, before the first suite writes, and kept beside its install
 * (every later run resets to it). `set-indexes.mjs on` (the fair setting for the list scenario,
 * as in SIDE-BY-SIDE.md) runs first: it adds log rows of its own.
 */
export function prepareDirectusSeed(harness: string): DirectusSeed {
  const file = join(DIRECTUS_HOME, 'peer-seed.json');
  startDirectusDatabase();
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as DirectusSeed;
  const indexed = psql(
    `SELECT count(*) FROM pg_indexes WHERE tablename = 'articles' AND (indexdef LIKE '%(status)%' OR indexdef LIKE '%(published_at)%')`,
  );
  if (Number(indexed) < 2) {
    spawnSync('bash', [join(harness, 'stop-directus.sh')], { cwd: harness, stdio: 'ignore' });
    runHarness(harness, 'start-directus.sh', []);
    execFileSync(process.execPath, ['set-indexes.mjs', 'on'], { cwd: harness, stdio: 'inherit' });
    runHarness(harness, 'stop-directus.sh', []);
  }
  const seed = {
    lastLogId: Number(psql(`SELECT greatest((SELECT max(id) FROM directus_activity), (SELECT max(id) FROM directus_revisions))`)),
    bytes: Number(psql('SELECT pg_database_size(current_database())')),
  };
  writeFileSync(file, JSON.stringify(seed));
  return seed;
}

function runHarness(harness: string, script: string, args: string[], env: Record<string, string> = {}): void {
  execFileSync('bash', [join(harness, script), ...args], { cwd: harness, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...env } });
}

/** One Directus suite from the seeded state: stop, reset the rows the scenarios touch, start, run bench.mjs. */
export function runDirectusSuite(harness: string, seedLastLogId: number, benchArgs: string[], out: string, toolsDir: string): void {
  spawnSync('bash', [join(harness, 'stop-directus.sh')], { cwd: harness, stdio: 'ignore' });
  execFileSync(process.execPath, ['reset-directus-state.mjs', String(seedLastLogId)], { cwd: harness, stdio: ['ignore', 'ignore', 'inherit'] });
  runHarness(harness, 'start-directus.sh', [], { DIRECTUS_LOG: join(DIRECTUS_HOME, 'directus-peer.log') });
  try {
    execFileSync(process.execPath, ['bench.mjs', '--target', 'targets/directus.json', ...benchArgs, '--out', out], {
      cwd: harness,
      stdio: 'inherit',
      env: { ...process.env, BENCH_TOOLS_DIR: toolsDir },
    });
  } finally {
    spawnSync('bash', [join(harness, 'stop-directus.sh')], { cwd: harness, stdio: 'ignore' });
  }
}
