// A private redis-server on a free port, run as a child process, so a test can take Redis down
// (the shared Redis on 6379 is never stopped: other tests use it).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRedis, redisReady } from '../../../../infra/redis/redis.ts';
import { freePort } from '../../../support/freePort.ts';

export interface PrivateRedis {
  url: string;
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const url = `redis://127.0.0.1:${port}`;
  const redis: PrivateRedis = {
    url,
    port,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
        stdio: 'ignore',
      });
      const probe = createRedis(url, { retryStrategy: () => 50 });
      try {
        await redisReady(probe, 10_000);
      } finally {
        probe.disconnect();
      }
    },
    async stop() {
      if (!child || child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
      child = null;
    },
  };
  await redis.start();
  return redis;
}
