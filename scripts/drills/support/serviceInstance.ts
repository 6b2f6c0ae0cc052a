// One instance of the service under drill: `node bin/svc.mjs start` as a child process on a port of
// its own, its log (pino JSON lines on stdout) tallied by level and message, and what the drills do
// to it: wait until it answers, kill it (SIGKILL or SIGTERM), start it again on the same port, read
// its resident memory and open descriptors from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort } from './freePort.ts';

export const DRILL_SECRET = 'drill-secret-that-is-long-enough-0123456789';
export const DRILL_INSTANCE_TOKEN = 'drill-instance-token-0123456789';
const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

export interface LogLine {
  level: number;
  msg: string;
  time?: number;
  [key: string]: unknown;
}

export interface ServiceInstance {
  /** `a`, `b`, …: also its PostgreSQL application_name (`drill-a`), so its sessions can be told apart. */
  readonly name: string;
  readonly port: number;
  /** http://127.0.0.1:<port> */
  readonly base: string;
  /** The process id while it runs, else null. */
  readonly pid: number | null;
  readonly running: boolean;
  /** Running and answered since its last start: where a drill's load may go. */
  readonly ready: boolean;
  /** Log lines at error level or above (level ≥ 50), every start of this instance together. */
  readonly errors: LogLine[];
  readonly warnings: LogLine[];
  /** Starts the process (again) and resolves once it answers /utils/version. */
  start(): Promise<void>;
  /** Sends `signal` and resolves once the process exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Resident set size in MB, from /proc (null when not running). */
  rssMb(): number | null;
  /** Open file descriptors, from /proc/<pid>/fd (null when not running). */
  openDescriptors(): number | null;
}

export interface InstanceOptions {
  name: string;
  databaseUrl: string;
  /** One data dir for every instance of a drill: local file storage is then shared, as a volume would be. */
  dataDir: string;
  environment?: Record<string, string>;
  /** Log lines also go to this callback (a drill watching for a message). */
  onLog?: (line: LogLine) => void;
}

export async function createInstance(options: InstanceOptions): Promise<ServiceInstance> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const errors: LogLine[] = [];
  const warnings: LogLine[] = [];
  let child: ChildProcess | null = null;
  let answered = false;

  const environment = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    // Every instance gets the very same DATABASE_URL: the service namespaces its Redis keys, channels
    // and queues by that text, so instances whose URLs differ (an application_name parameter) would
    // not share them. The sessions are named through libpq's variable instead, which pg reads too.
    DATABASE_URL: options.databaseUrl,
    PGAPPNAME: `drill-${options.name}`,
    SVC_DATA_DIR: options.dataDir,
    SVC_SECRET: DRILL_SECRET,
    SVC_INSTANCE_TOKEN: DRILL_INSTANCE_TOKEN,
    SVC_ACCESS_TOKEN_TTL: '86400',
    SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
    SVC_RATE_LIMIT_SITE_LOOKUP: '0',
    REDIS_URL: '',
    NATS_URL: '',
    ...options.environment,
  };

  function listen(process: ChildProcess): void {
    const lines = createInterface({ input: process.stdout! });
    lines.on('line', (text) => {
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        line = { level: 30, msg: text };
      }
      if (line.level >= 50) errors.push(line);
      else if (line.level >= 40) warnings.push(line);
      options.onLog?.(line);
    });
    // Anything on stderr (a crash before the logger exists) counts as an error.
    createInterface({ input: process.stderr! }).on('line', (text) => errors.push({ level: 60, msg: `stderr: ${text}` }));
  }

  async function waitReady(process: ChildProcess): Promise<void> {
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline) {
      if (process.exitCode !== null || process.signalCode !== null) {
        throw new Error(`instance ${options.name} exited during start (${process.exitCode ?? process.signalCode}): ${errors.map((line) => line.msg).join(' | ')}`);
      }
      try {
        if ((await fetch(`${base}/api/v1/utils/version`, { signal: AbortSignal.timeout(2_000) })).ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    throw new Error(`instance ${options.name} did not answer within 180 s`);
  }

  const isRunning = () => child !== null && child.exitCode === null && child.signalCode === null;
  const procPath = (leaf: string) => (child?.pid && isRunning() ? `/proc/${child.pid}/${leaf}` : null);

  return {
    name: options.name,
    port,
    base,
    get pid() {
      return isRunning() ? (child!.pid ?? null) : null;
    },
    get running() {
      return isRunning();
    },
    get ready() {
      return answered && isRunning();
    },
    errors,
    warnings,
    async start() {
      if (isRunning()) return;
      answered = false;
      // DRILL_SERVICE_NODE_ARGS: Node flags for the instances only (`--heapsnapshot-signal=SIGUSR2` in a soak).
      const nodeArgs = (process.env.DRILL_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
      child = spawn(process.execPath, [...nodeArgs, 'bin/svc.mjs', 'start'], { cwd: repositoryRoot, env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
      listen(child);
      await waitReady(child);
      answered = true;
    },
    async stop(signal = 'SIGTERM') {
      const running = child;
      answered = false;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = once(running, 'exit');
      running.kill(signal);
      await exited;
    },
    rssMb() {
      const path = procPath('status');
      if (!path) return null;
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(path, 'utf8'));
      return match ? Number(match[1]) / 1024 : null;
    },
    openDescriptors() {
      const path = procPath('fd');
      if (!path) return null;
      return readdirSync(path).length;
    },
  };
}

/** Error lines logged at or after `since` (ms since the epoch; boot-time lines of a loaded machine are left out by the callers that want). */
export function errorsSince(instances: readonly ServiceInstance[], since = 0): LogLine[] {
  return instances.flatMap((instance) => instance.errors.filter((line) => (line.time ?? Date.now()) >= since));
}

/** Log lines counted by message (with the first error's message): `msg (error)×n; …` (or `-`). */
export function messageSummary(lines: readonly LogLine[]): string {
  const counts = new Map<string, number>();
  for (const line of lines) {
    const error = (line.err as { message?: string } | undefined)?.message;
    const key = error ? `${line.msg} (${error.slice(0, 160)})` : line.msg;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts.size === 0 ? '-' : [...counts].map(([message, count]) => `${message}×${count}`).join('; ');
}
