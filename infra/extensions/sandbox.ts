// Runs an extension's code out of the service's process (docs/extensions.md, "The sandbox"): each run
// is a fresh `node` child (./sandboxChild.mjs) under Node's permission model, with a heap limit, an
// empty environment and a wall-time limit after which it is killed. The code reaches the service only
// by the calls its API sends over IPC, each handed to `onCall` (which checks the grants and answers);
// anything the child sends is bounded and parsed here as untrusted input.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

export interface SandboxLimits {
  /** Wall time of one run, from the start of the code to its answer. */
  timeoutMs: number;
  /** The child's V8 old-space heap, in MiB. */
  memoryMb: number;
  /**
   * The child's whole resident memory, in MiB, watched from here on Linux: array buffers and
   * WebAssembly memories live outside the V8 heap, so the heap limit alone does not bound them.
   */
  maxResidentMb: number;
  /** The run's output as JSON, in characters. */
  maxOutputCharacters: number;
  /** Capability calls one run may make; one more ends it. */
  maxCalls: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { timeoutMs: 5_000, memoryMb: 64, maxResidentMb: 256, maxOutputCharacters: 256 * 1024, maxCalls: 100 };

/** How long a child may take to start before the sandbox is reported unavailable. */
const BOOT_TIMEOUT_MS = 15_000;
/** How often the child's resident memory is read while it runs. */
const MEMORY_WATCH_MS = 25;
/** What of the child's stderr is kept, to tell a heap exhaustion from another crash. */
const MAX_STDERR_CHARACTERS = 16 * 1024;

export type SandboxFailureKind = 'error' | 'timeout' | 'memory_limit' | 'call_limit' | 'output_too_large' | 'crashed' | 'sandbox_unavailable';

export type SandboxOutcome =
  | { status: 'succeeded'; output: unknown; durationMs: number }
  | { status: 'failed'; error: { kind: SandboxFailureKind; message: string }; durationMs: number };

/** A call the code made through its API: a method and its arguments, as sent (unchecked beyond shape). */
export interface SandboxCall {
  method: string;
  args: unknown[];
}

/** What `onCall` throws to refuse or fail a call: the code sees `error.code` and `error.message`. */
export class SandboxCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface SandboxRunRequest {
  code: string;
  /** The exported function to call. */
  entry: string;
  input: unknown;
  limits: SandboxLimits;
  /** Answers a call (a JSON value), or throws; a SandboxCallError's code reaches the code, anything else is INTERNAL. */
  onCall(call: SandboxCall): Promise<unknown>;
}

export interface ExtensionSandbox {
  run(request: SandboxRunRequest): Promise<SandboxOutcome>;
  /** Kills every running child. */
  stop(): Promise<void>;
}

const CHILD_FILE = fileURLToPath(new URL('./sandboxChild.mjs', import.meta.url));

/**
 * Node 22.13+ and 23.5+ (and so 24) name the permission model `--permission`; Node 20 and earlier 22s
 * only know `--experimental-permission`. A flag the child's Node did not know would stop it before it
 * runs anything, and the child checks that the model is on before it takes any code.
 */
export function permissionFlag(version: string = process.versions.node): string {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 23 || (major === 23 && minor >= 5) || (major === 22 && minor >= 13) ? '--permission' : '--experimental-permission';
}

/** The child's command line: nothing granted but reading its own file. */
export function sandboxArguments(memoryMb: number): string[] {
  return [
    permissionFlag(),
    `--allow-fs-read=${CHILD_FILE}`,
    `--max-old-space-size=${memoryMb}`,
    '--disallow-code-generation-from-strings',
    '--no-warnings',
    CHILD_FILE,
  ];
}

const fromContext = z.union([
  z.object({ type: z.literal('call'), id: z.number().int().min(1), method: z.string().max(100), args: z.array(z.unknown()).max(10) }),
  z.object({ type: z.literal('done'), ok: z.literal(true), output: z.string() }),
  z.object({ type: z.literal('done'), ok: z.literal(false), name: z.string().max(1000), message: z.string() }),
]);
const fromChild = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), sandboxed: z.boolean() }),
  z.object({ type: z.literal('sandbox'), json: z.string() }),
  z.object({ type: z.literal('oversized'), characters: z.number() }),
  z.object({ type: z.literal('failed'), kind: z.enum(['error', 'timeout']), message: z.string() }),
]);

/** The resident memory of a process in bytes, from Linux's /proc; null where there is none. */
async function residentBytes(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kilobytes = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
    return kilobytes === undefined ? null : Number(kilobytes) * 1024;
  } catch {
    return null;
  }
}

const clip = (text: string, length = 2_000) => (text.length > length ? `${text.slice(0, length)}…` : text);

/** Runs one request in one child, to its outcome; `track` keeps the child killable by `stop`. */
function runInChild(request: SandboxRunRequest, track: (child: ChildProcess | null) => void): Promise<SandboxOutcome> {
  const { limits } = request;
  let started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, sandboxArguments(limits.memoryMb), {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: {},
      serialization: 'json',
      windowsHide: true,
    });
    track(child);
    let stderr = '';
    let calls = 0;
    let settled = false;
    let running = false;
    let timer = setTimeout(() => fail('sandbox_unavailable', `The sandbox did not start within ${BOOT_TIMEOUT_MS} ms`), BOOT_TIMEOUT_MS);

    // One read at a time, each scheduled when the last is done (a run's watch, not a recurring timer of the service).
    let memoryWatch: NodeJS.Timeout | undefined;
    function watchMemory() {
      memoryWatch = setTimeout(async () => {
        const resident = child.pid === undefined ? null : await residentBytes(child.pid);
        if (resident !== null && resident > limits.maxResidentMb * 1024 * 1024) return fail('memory_limit', `The run was stopped at its memory limit of ${limits.maxResidentMb} MiB resident`);
        if (!settled && resident !== null) watchMemory();
      }, MEMORY_WATCH_MS);
    }

    function settle(outcome: SandboxOutcome) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(memoryWatch);
      child.kill('SIGKILL');
      track(null);
      resolve(outcome);
    }
    function fail(kind: SandboxFailureKind, message: string) {
      settle({ status: 'failed', error: { kind, message: clip(message) }, durationMs: Date.now() - started });
    }
    function reply(id: number, answer: { ok: true; value: string } | { ok: false; error: { code: string; message: string } }) {
      if (!settled && child.connected) child.send({ type: 'reply', json: JSON.stringify({ id, ...answer }) });
    }
    async function answerCall(id: number, call: SandboxCall) {
      calls += 1;
      if (calls > limits.maxCalls) return fail('call_limit', `The code made more than ${limits.maxCalls} capability calls`);
      try {
        const value = await request.onCall(call);
        reply(id, { ok: true, value: JSON.stringify(value ?? null) });
      } catch (error) {
        const refused = error instanceof SandboxCallError ? { code: error.code, message: error.message } : { code: 'INTERNAL', message: 'The call failed' };
        reply(id, { ok: false, error: refused });
      }
    }
    function onContextMessage(json: string) {
      let parsed: z.infer<typeof fromContext>;
      try {
        parsed = fromContext.parse(JSON.parse(json));
      } catch {
        return fail('error', 'The sandbox sent a message this service does not understand');
      }
      if (parsed.type === 'call') return void answerCall(parsed.id, { method: parsed.method, args: parsed.args });
      if (!parsed.ok) return fail('error', `${parsed.name}: ${parsed.message}`);
      if (parsed.output.length > limits.maxOutputCharacters) return fail('output_too_large', `The output is over ${limits.maxOutputCharacters} characters of JSON`);
      let output: unknown;
      try {
        output = JSON.parse(parsed.output);
      } catch {
        // What the context says is the extension's to forge (a toJSON of its own): never trusted to parse.
        return fail('error', 'The sandbox answered an output that is not JSON');
      }
      settle({ status: 'succeeded', output, durationMs: Date.now() - started });
    }

    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      if (stderr.length < MAX_STDERR_CHARACTERS) stderr += chunk.slice(0, MAX_STDERR_CHARACTERS - stderr.length);
    });
    child.on('error', (error) => fail('sandbox_unavailable', `The sandbox could not start: ${error.message}`));
    child.on('message', (raw) => {
      const message = fromChild.safeParse(raw);
      if (!message.success) return fail('error', 'The sandbox sent a message this service does not understand');
      const value = message.data;
      switch (value.type) {
        case 'ready':
          // Said once, before any code runs: a second one would restart the clock.
          if (running) return fail('error', 'The sandbox said it was ready twice');
          if (!value.sandboxed) return fail('sandbox_unavailable', 'The child process does not run under the permission model: no code is run');
          running = true;
          clearTimeout(timer);
          started = Date.now();
          watchMemory();
          timer = setTimeout(() => fail('timeout', `The run was stopped at its time limit of ${limits.timeoutMs} ms`), limits.timeoutMs);
          child.send({ type: 'start', code: request.code, entry: request.entry, input: JSON.stringify(request.input ?? null), timeoutMs: limits.timeoutMs });
          return;
        case 'sandbox':
          return running ? onContextMessage(value.json) : fail('error', 'The sandbox spoke before it was ready');
        case 'oversized':
          return fail('output_too_large', `The code sent ${value.characters} characters at once`);
        case 'failed':
          return value.kind === 'timeout' ? fail('timeout', `The run was stopped at its time limit of ${limits.timeoutMs} ms`) : fail('error', value.message);
      }
    });
    // `close` comes once stderr has ended too: a crash's last words are read.
    child.on('close', (code, signal) => {
      if (/heap out of memory|Reached heap limit|allocation failed/i.test(stderr)) return fail('memory_limit', `The run was stopped at its memory limit of ${limits.memoryMb} MiB`);
      fail('crashed', `The sandbox process ended (${signal ?? `exit code ${code}`}) before the code answered${stderr ? `: ${stderr.trim().split('\n').at(-1)}` : ''}`);
    });
  });
}

/** A sandbox that runs at most `concurrency` children at once; the other runs wait their turn. */
export function openExtensionSandbox({ concurrency }: { concurrency: number }): ExtensionSandbox {
  const running = new Set<ChildProcess>();
  const waiting: (() => void)[] = [];
  let active = 0;
  let stopped = false;

  async function turn(): Promise<void> {
    if (active < concurrency) {
      active += 1;
      return;
    }
    await new Promise<void>((resume) => waiting.push(resume));
  }
  function release() {
    const next = waiting.shift();
    if (next) next();
    else active -= 1;
  }

  return {
    async run(request) {
      const stopping: SandboxOutcome = { status: 'failed', error: { kind: 'sandbox_unavailable', message: 'The service is stopping' }, durationMs: 0 };
      if (stopped) return stopping;
      await turn();
      if (stopped) {
        release();
        return stopping;
      }
      let current: ChildProcess | null = null;
      try {
        return await runInChild(request, (child) => {
          if (current) running.delete(current);
          current = child;
          if (child) running.add(child);
        });
      } finally {
        if (current) running.delete(current);
        release();
      }
    },
    async stop() {
      stopped = true;
      for (const resume of waiting.splice(0)) resume();
      for (const child of running) child.kill('SIGKILL');
      running.clear();
    },
  };
}
