// Runs the real `svc` command (bin/svc.mjs) in a child process.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';

export const repositoryRoot = new URL('../../', import.meta.url);
const bin = new URL('bin/svc.mjs', repositoryRoot);

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a CLI run against the test database; `overrides` may unset a variable with undefined. */
export function cliEnvironment(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: inject('databaseUrl'),
    SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-cli-test-')),
    SVC_SECRET: 'test-secret-that-is-long-enough-0123456789',
  };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete environment[name];
    else environment[name] = value;
  }
  return environment;
}

export function spawnCli(args: string[], environment: NodeJS.ProcessEnv = cliEnvironment()): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [bin.pathname, ...args], { cwd: repositoryRoot, env: environment });
}

export function runCli(args: string[], environment: NodeJS.ProcessEnv = cliEnvironment(), timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, environment);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc ${args.join(' ')} did not finish in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Resolves with the first line of the child's stdout that `matches`. */
export function waitForLine(child: ChildProcessWithoutNullStreams, matches: (line: string) => boolean, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => {
      child.stdout.off('data', onData);
      reject(new Error(`no matching line within ${timeoutMs} ms; output so far:\n${buffered}`));
    }, timeoutMs);
    function onData(chunk: Buffer) {
      buffered += chunk.toString();
      for (const line of buffered.split('\n').slice(0, -1)) {
        if (matches(line)) {
          clearTimeout(timer);
          child.stdout.off('data', onData);
          resolve(line);
          return;
        }
      }
    }
    child.stdout.on('data', onData);
  });
}
