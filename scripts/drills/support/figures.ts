// What a drill reports: its properties checked one by one (each failure a sentence), its figures as
// one `key=value` line, and the small statistics the figures need.

export interface DrillOutcome {
  /** The one line of figures, ending in `result=PASS` or `result=FAIL`. */
  line: string;
  /** Each violated property, in words; empty when the drill passed. */
  failures: string[];
}

export class Verdict {
  readonly failures: string[] = [];

  /** Records `message` as a failure unless `holds`. */
  expect(holds: boolean, message: string): void {
    if (!holds) this.failures.push(message);
  }

  outcome(drill: string, startedAt: number, figures: Record<string, string | number | null>): DrillOutcome {
    const fields = Object.entries({ ...figures, runtime_s: Math.round((Date.now() - startedAt) / 1000) }).map(([key, value]) => `${key}=${value ?? '-'}`);
    return { line: `${drill} ${fields.join(' ')} result=${this.failures.length === 0 ? 'PASS' : 'FAIL'}`, failures: [...this.failures] };
  }
}

export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Rounds for the figures line (null stays null). */
export function rounded(value: number | null, digits = 0): number | null {
  if (value === null || !Number.isFinite(value)) return null;
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** Least-squares slope of y over x (null with fewer than two distinct x). */
export function slope(points: readonly { x: number; y: number }[]): number | null {
  if (points.length < 2) return null;
  const meanX = points.reduce((sum, point) => sum + point.x, 0) / points.length;
  const meanY = points.reduce((sum, point) => sum + point.y, 0) / points.length;
  let numerator = 0;
  let denominator = 0;
  for (const point of points) {
    numerator += (point.x - meanX) * (point.y - meanY);
    denominator += (point.x - meanX) ** 2;
  }
  return denominator === 0 ? null : numerator / denominator;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `probe` every `everyMs` until it answers true; resolves the milliseconds it took, or null after `timeoutMs`. */
export async function waitFor(probe: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 50): Promise<number | null> {
  const started = Date.now();
  while (Date.now() - started <= timeoutMs) {
    if (await probe()) return Date.now() - started;
    await sleep(everyMs);
  }
  return null;
}

/**
 * Runs `workers` loops of `step` until `stop()` says so; each loop waits `paceMs` between its steps
 * (load at a set rate, not as fast as the machine goes: the drills share two cores with other work).
 */
export async function runLoad(workers: number, stop: () => boolean, step: (worker: number, iteration: number) => Promise<unknown>, paceMs = 0): Promise<void> {
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (let iteration = 0; !stop(); iteration += 1) {
        await step(worker, iteration);
        if (paceMs > 0) await sleep(paceMs);
      }
    }),
  );
}

/** A progress line on stderr (`drill <name> +12.3s: message`): what the drill is doing while it runs. */
export function progress(drill: string, startedAt: number): (message: string) => void {
  return (message) => process.stderr.write(`drill ${drill} +${((Date.now() - startedAt) / 1000).toFixed(1)}s: ${message}\n`);
}

/** A drill's options could not be read: the runner prints the message (the usage) and exits 2. */
export class UsageError extends Error {}
