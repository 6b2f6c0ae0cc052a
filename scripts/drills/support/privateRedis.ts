// A redis-server of the drill's own on a free port, run as a child process, so a drill can kill it
// (the machine's Redis on 6379 is shared with other work and never touched).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedis, redisReady } from '../../../infra/redis/redis.ts';
import { freePort } from './freePort.ts';

export interface PrivateRedis {
  url: string;
  /** Starts it (again) on the same port and resolves once it answers. */
  start(): Promise<void>;
  /** SIGKILL: the outage a crash or a lost host gives (no shutdown, no goodbye to clients). */
  kill(): Promise<void>;
  /** Kills it and removes its data. */
  remove(): Promise<void>;
}

/**
 * With `persistent`, every write is in an append-only file synced at once (`appendfsync always`), so
 * a Redis killed and started again comes back with its data (the job queue's jobs included);
 * without it, a restart is an empty Redis.
 */
export async function startPrivateRedis(options: { persistent?: boolean } = {}): Promise<PrivateRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const directory = mkdtempSync(join(tmpdir(), 'svc-drill-redis-'));
  const persistence = options.persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  let child: ChildProcess | null = null;
  const redis: PrivateRedis = {
    url,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', directory, '--save', '', ...persistence, '--daemonize', 'no'], { stdio: 'ignore' });
      const probe = createRedis(url, { retryStrategy: () => 50 });
      try {
        await redisReady(probe, 10_000);
      } finally {
        probe.disconnect();
      }
    },
    async kill() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = once(running, 'exit');
      running.kill('SIGKILL');
      await exited;
    },
    async remove() {
      await redis.kill();
      rmSync(directory, { recursive: true, force: true });
    },
  };
  await redis.start();
  return redis;
}
