// The ceiling of `npm run bench -- peer` (issue #38): a bare Fastify hello-world (helloWorld.ts),
// measured in the same sitting as the other suites by bench.mjs' scenario h, at the same
// connections, duration and warm-up. Each suite starts a fresh server and stops it after.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stopBenchService } from './benchService.ts';
import { runBench } from './peerBench.ts';

export const HELLO_PORT = 8056;
const SERVER = new URL('./helloWorld.ts', import.meta.url).pathname;

/** The harness's target descriptor for the hello-world (as its targets/fastify-hello.json, our pid file). */
export function writeHelloDescriptor(out: string): string {
  const file = join(out, 'hello.json');
  const descriptor = {
    name: `fastify hello-world (scripts/bench/support/helloWorld.ts) on node ${process.version}`,
    baseUrl: `http://127.0.0.1:${HELLO_PORT}`,
    headers: {},
    pidFile: join(out, 'hello.pid'),
    paths: { hello: '/' },
    idRange: [1, 1],
    notes: 'Written by `npm run bench -- peer`: the ceiling, a bare Fastify hello-world on the Node and the fastify that run ours.',
  };
  writeFileSync(file, JSON.stringify(descriptor, null, 2));
  return file;
}

/** One hello-world suite: start the server, bench.mjs scenario h with `loadArgs`, stop the server. */
export async function runHelloSuite(harness: string, descriptor: string, out: string, loadArgs: string[], file: string, toolsDir: string): Promise<void> {
  const pidFile = join(out, 'hello.pid');
  rmSync(pidFile, { force: true });
  // `--import tsx`: the loader ours runs under too (bin/svc.mjs registers it); nothing of it runs per request.
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER], {
    env: { ...process.env, PORT: String(HELLO_PORT), PIDFILE: pidFile, NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  try {
    await waitForHello(child, pidFile);
    await runBench(harness, descriptor, ['--scenarios', 'h', ...loadArgs], file, toolsDir);
  } finally {
    await stopBenchService(child);
  }
}

async function waitForHello(child: ChildProcess, pidFile: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the hello-world exited with ${child.exitCode} (is port ${HELLO_PORT} taken?)`);
    try {
      if ((await fetch(`http://127.0.0.1:${HELLO_PORT}/`)).ok && existsSync(pidFile)) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the hello-world did not start within 30 s');
}
