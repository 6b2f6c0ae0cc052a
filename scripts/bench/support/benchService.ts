// The service under measurement: `svc start` as a child process, production-like and quiet, with the
// rate limits off so they never cap a figure. Each benchmark adds the variables it needs.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';

export const BENCH_INSTANCE_TOKEN = 'bench-instance-token-0123456789';
const COMPILED_ENTRY = 'dist/src/cli/run.js';

/** Compiles the service to dist/ (`npm run build`) for startBenchService's `compiled` option. */
export function buildCompiledService(): void {
  console.log('compiling the service (npm run build)…');
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
}

/**
 * `BENCH_SERVICE_NODE_ARGS` passes Node flags to the measured service only, e.g.
 * `BENCH_SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"` for a CPU profile of the run.
 */
export function startBenchService(databaseUrl: string, port: number, environment: Record<string, string> = {}, options: { compiled?: boolean } = {}): ChildProcess {
  const nodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // Compiled: what the production image runs (`npm run build`, buildCompiledService), without the
  // TypeScript loader and the source maps it keeps in memory (about 65 MiB of resident memory).
  const entry = options.compiled ? COMPILED_ENTRY : 'bin/svc.mjs';
  return spawn(process.execPath, [...nodeArgs, entry, 'start'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      SVC_SECRET: 'bench-secret-that-is-long-enough-0123456789',
      SVC_INSTANCE_TOKEN: BENCH_INSTANCE_TOKEN,
      SVC_RATE_LIMIT_ITEMS_READ: '0',
      SVC_RATE_LIMIT_ITEMS_WRITE: '0',
      SVC_RATE_LIMIT_AUTH: '0',
      REDIS_URL: '',
      ...environment,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/** Resolves once the service answers `base`/utils/version; throws if it exits or takes over a minute. */
export async function waitForHealth(base: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/utils/version`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the service did not start within 60 s');
}

/** Stops the service (SIGTERM, a graceful shutdown) and resolves once it has exited. */
export async function stopBenchService(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/**
 * The environment of a service a benchmark runs in its own process: production settings, no rate
 * limits, day-long access tokens, the bench's secret and instance token; `settings` on top.
 */
export function inProcessBenchEnvironment(databaseUrl: string, dataDir: string, settings: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: databaseUrl,
    SVC_DATA_DIR: dataDir,
    SVC_SECRET: 'bench-secret-that-is-long-enough-0123456789',
    SVC_INSTANCE_TOKEN: BENCH_INSTANCE_TOKEN,
    SVC_RATE_LIMIT_ITEMS_READ: '0',
    SVC_RATE_LIMIT_ITEMS_WRITE: '0',
    SVC_RATE_LIMIT_AUTH: '0',
    SVC_ACCESS_TOKEN_TTL: '86400',
    ...settings,
  };
}
