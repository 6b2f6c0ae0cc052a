// The extension sandbox on its own (infra/extensions/sandbox.ts): the child's command line really
// denies the file system, child processes, workers and code generation on this Node, and the limits
// a run has (time, memory, calls, output) end it with what stopped it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_LIMITS, openExtensionSandbox, permissionFlag, SandboxCallError, sandboxArguments, type SandboxCall } from '../../../infra/extensions/sandbox.ts';

const sandbox = openExtensionSandbox({ concurrency: 2 });
afterAll(() => sandbox.stop());

const limits = { ...DEFAULT_SANDBOX_LIMITS, timeoutMs: 1_500 };
const echo = async (call: SandboxCall) => ({ method: call.method, args: call.args });
const runCode = (code: string, options: { input?: unknown; onCall?: (call: SandboxCall) => Promise<unknown>; limits?: Partial<typeof limits> } = {}) =>
  sandbox.run({ code, entry: 'run', input: options.input ?? null, limits: { ...limits, ...options.limits }, onCall: options.onCall ?? echo });

describe('the sandbox child’s command line', () => {
  it('names the permission model as the running Node does: stable from 22.13 and 23.5, experimental before', () => {
    expect(['20.19.0', '20.20.2', '22.12.0', '23.4.0'].map((version) => permissionFlag(version))).toEqual(Array(4).fill('--experimental-permission'));
    expect(['22.13.0', '22.20.1', '23.5.0', '24.0.0', '25.1.0'].map((version) => permissionFlag(version))).toEqual(Array(5).fill('--permission'));
  });

  it('runs code that escaped the vm context with no file system, child process, worker or code generation', () => {
    const folder = mkdtempSync(join(tmpdir(), 'svc-sandbox-probe-'));
    const probe = join(folder, 'probe.mjs');
    writeFileSync(
      probe,
      `import { readFileSync, writeFileSync } from 'node:fs';
       import { spawnSync } from 'node:child_process';
       import { Worker } from 'node:worker_threads';
       const attempt = (work) => { try { work(); return 'allowed'; } catch (error) { return error.code ?? error.message; } };
       process.stdout.write(JSON.stringify({
         permission: Boolean(process.permission),
         read: attempt(() => readFileSync(${JSON.stringify(join(process.cwd(), 'package.json'))})),
         write: attempt(() => writeFileSync(${JSON.stringify(join(folder, 'written'))}, 'x')),
         spawn: attempt(() => spawnSync(process.execPath, ['-v'])),
         worker: attempt(() => new Worker('1', { eval: true })),
         codeGeneration: attempt(() => new Function('return 1')()),
         environment: Object.keys(process.env),
       }));`,
    );
    const sandboxed = sandboxArguments(64);
    const childFile = sandboxed.at(-1)!;
    const result = spawnSync(process.execPath, sandboxed.map((argument) => argument.replaceAll(childFile, probe)), { env: {}, encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      permission: true,
      read: 'ERR_ACCESS_DENIED',
      write: 'ERR_ACCESS_DENIED',
      spawn: 'ERR_ACCESS_DENIED',
      worker: 'ERR_ACCESS_DENIED',
      codeGeneration: expect.stringContaining('Code generation from strings disallowed'),
      environment: [],
    });
  });
});

describe('a run in the sandbox', () => {
  it('calls the entry function with the input and answers its output; calls reach onCall as sent', async () => {
    const outcome = await runCode('module.exports.run = async (input, api) => ({ input, answer: await api.items.read("articles", "a1", { fields: ["title"] }) });', {
      input: { n: 1 },
    });
    expect(outcome).toMatchObject({ status: 'succeeded', output: { input: { n: 1 }, answer: { method: 'items.read', args: ['articles', 'a1', { fields: ['title'] }] } } });
  });

  it('hands a refusal of onCall to the code as an error with its code, and hides any other failure', async () => {
    const onCall = async (call: SandboxCall) => {
      if (call.method === 'log') throw new SandboxCallError('CAPABILITY_DENIED', 'not granted');
      throw new Error('a database detail the code must not see');
    };
    const outcome = await runCode(
      `exports.run = async (input, api) => {
         const caught = async (work) => { try { await work(); } catch (error) { return [error.code, error.message]; } };
         return [await caught(() => api.log('x')), await caught(() => api.items.list('a'))];
       };`,
      { onCall },
    );
    expect(outcome).toMatchObject({ status: 'succeeded', output: [['CAPABILITY_DENIED', 'not granted'], ['INTERNAL', 'The call failed']] });
  });

  it('stops a synchronous loop, an asynchronous one and a memory bomb, each with what stopped it', async () => {
    const loop = await runCode('exports.run = () => { while (true) {} };');
    expect(loop).toMatchObject({ status: 'failed', error: { kind: 'timeout' } });
    expect(loop.durationMs).toBeLessThan(4_000);
    expect(await runCode('exports.run = async () => { while (true) await null; };')).toMatchObject({ status: 'failed', error: { kind: 'timeout' } });
    // Waiting forever on nothing is stopped by the wall-time limit too.
    expect(await runCode('exports.run = () => new Promise(() => {});')).toMatchObject({ status: 'failed', error: { kind: 'timeout' } });
    const bomb = await runCode('exports.run = () => { const kept = []; for (;;) kept.push(new Array(1e5).fill(1.5)); };', { limits: { timeoutMs: 10_000 } });
    expect(bomb).toMatchObject({ status: 'failed', error: { kind: 'memory_limit' } });
    // Array buffers and WebAssembly memories live outside the V8 heap: the resident-memory watch stops them.
    const buffers = await runCode('exports.run = () => { const kept = []; for (;;) kept.push(new Uint8Array(32e6).fill(1)); };', { limits: { timeoutMs: 20_000 } });
    expect(buffers).toMatchObject({ status: 'failed', error: { kind: 'memory_limit', message: expect.stringContaining('resident') } });
    const wasm = await runCode('exports.run = () => { const memory = new WebAssembly.Memory({ initial: 1, maximum: 65536 }); for (;;) { memory.grow(500); new Uint8Array(memory.buffer).fill(1); } };', {
      limits: { timeoutMs: 20_000 },
    });
    expect(wasm).toMatchObject({ status: 'failed', error: { kind: 'memory_limit' } });
  }, 60_000);

  it('ends a run over its call budget or with too large an output', async () => {
    expect(await runCode('exports.run = async (input, api) => { for (let i = 0; i < 1000; i++) await api.log("x"); };')).toMatchObject({
      status: 'failed',
      error: { kind: 'call_limit' },
    });
    expect(await runCode('exports.run = () => "x".repeat(300000);')).toMatchObject({ status: 'failed', error: { kind: 'output_too_large' } });
    expect(await runCode('exports.run = async (input, api) => { await api.log("x".repeat(2 * 1024 * 1024)); };')).toMatchObject({
      status: 'failed',
      error: { kind: 'output_too_large' },
    });
  });

  it('keeps the vm context free of host objects, and the prelude’s bridge out of reach', async () => {
    const outcome = await runCode(`exports.run = () => ({
      globals: Object.getOwnPropertyNames(globalThis).filter((name) => !/^[A-Z]/.test(name)).sort(),
      hidden: [typeof globalThis.__svcHost, typeof globalThis.__svcStart],
      host: [typeof process, typeof require, typeof Buffer, typeof setTimeout, typeof queueMicrotask, typeof console, typeof fetch],
    });`);
    expect(outcome.status).toBe('succeeded');
    const output = (outcome as { output: { globals: string[]; hidden: string[]; host: string[] } }).output;
    expect(output.globals).toEqual(['decodeURI', 'decodeURIComponent', 'encodeURI', 'encodeURIComponent', 'escape', 'eval', 'globalThis', 'isFinite', 'isNaN', 'parseFloat', 'parseInt', 'undefined', 'unescape']);
    expect(output.hidden).toEqual(['undefined', 'undefined']);
    expect(new Set(output.host)).toEqual(new Set(['undefined']));
  });

  it('answers every run when more are asked for than it runs at once (the others wait their turn)', async () => {
    const started = Date.now();
    const outcomes = await Promise.all([1, 2, 3].map((n) => runCode('exports.run = (n) => n * 2;', { input: n })));
    expect(outcomes.map((outcome) => (outcome as { output: unknown }).output)).toEqual([2, 4, 6]);
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
