// The peer harness's load generator (bench.mjs) as a child process the bench awaits, so that the
// bench's own event loop keeps running meanwhile (the freshness poller, projectionFreshness.ts), and
// the merge of a suite's parts, each one bench.mjs invocation, into the suite's one result file.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Runs `bench.mjs --target <descriptor> <args> --out <out>` from the harness folder; rejects if it fails. */
export async function runBench(harness: string, descriptor: string, args: string[], out: string, toolsDir: string): Promise<void> {
  const child = spawn(process.execPath, [join(harness, 'bench.mjs'), '--target', descriptor, ...args, '--out', out], {
    cwd: harness,
    stdio: 'inherit',
    env: { ...process.env, BENCH_TOOLS_DIR: toolsDir },
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode, signal) => resolve(signal ? null : exitCode));
  });
  if (code !== 0) throw new Error(`bench.mjs ${args.join(' ')} failed (${code === null ? 'killed' : `exit ${code}`})`);
}

/** Splits the scenario letters around `letter`: [b,c,d,a,e,x] → [[b,c,d,a], [e], [x]]; no empty parts. */
export function splitAround(scenarios: string[], letter: string): string[][] {
  const parts: string[][] = [];
  for (const scenario of scenarios) {
    const last = parts.at(-1);
    if (scenario === letter || !last || last[0] === letter) parts.push([scenario]);
    else last.push(scenario);
  }
  return parts;
}

interface BenchFile {
  meta: Record<string, unknown>;
  runs: unknown[];
}

/** Writes the parts' runs, in order, as one bench.mjs result file (the first part's meta, the last one's end), and removes the parts. */
export function mergeBenchFiles(parts: string[], file: string): void {
  const read = parts.map((part) => JSON.parse(readFileSync(part, 'utf8')) as BenchFile);
  const first = read[0]!.meta;
  const last = read.at(-1)!.meta;
  const meta = { ...first, order: read.flatMap((part) => part.meta.order as string[]), finishedAt: last.finishedAt, serverMemAtEnd: last.serverMemAtEnd, parts: read.length };
  writeFileSync(file, JSON.stringify({ meta, runs: read.flatMap((part) => part.runs) }, null, 2));
  for (const part of parts) if (part !== file) rmSync(part, { force: true });
}
