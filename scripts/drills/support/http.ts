// HTTP calls of the drills: one function that never throws on a status, times the call, and names a
// transport failure (refused, reset: an instance that is down) as status 0, so load loops count it.

/**
 * A JSON body as the drills read it: many shapes, checked by what the drill asserts, not by a type.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;
export interface Answer<T = Json> {
  /** The HTTP status, or 0 when no answer came (connection refused or reset, timeout). */
  status: number;
  body: T;
  headers: Headers;
  ms: number;
  /** For status 0: why no answer came. */
  failure?: string;
}

export interface CallOptions {
  site?: string;
  token?: string;
  body?: unknown;
  /** A raw body sent with its own content type (file bytes). */
  raw?: { bytes: string; type: string };
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/** `method` `/api/v1<path>` on `base` (http://host:port). */
export async function call<T = Json>(base: string, method: string, path: string, options: CallOptions = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.site) headers['x-svc-site'] = options.site;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.raw) {
    body = options.raw.bytes;
    headers['content-type'] = options.raw.type;
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const started = performance.now();
  try {
    const response = await fetch(`${base}/api/v1${path}`, { method, headers, body, signal: AbortSignal.timeout(options.timeoutMs ?? 30_000) });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed as T, headers: response.headers, ms: performance.now() - started };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const failure = cause?.code ?? cause?.message ?? (error as Error).name ?? String(error);
    return { status: 0, body: null as T, headers: new Headers(), ms: performance.now() - started, failure };
  }
}

/** Like `call`, but a status outside `expected` (201 and 200 by default) throws with the answer: for setup steps. */
export async function must<T = Json>(base: string, method: string, path: string, options: CallOptions = {}, expected: number[] = [200, 201, 204]): Promise<T> {
  const answer = await call<T>(base, method, path, options);
  if (!expected.includes(answer.status)) {
    throw new Error(`${method} ${path}: ${answer.status} ${answer.failure ?? JSON.stringify(answer.body).slice(0, 500)}`);
  }
  return answer.body;
}

/** Counts answers by status (0 = no answer), for the figures line. */
export class StatusTally {
  readonly counts = new Map<number, number>();

  add(status: number): void {
    this.counts.set(status, (this.counts.get(status) ?? 0) + 1);
  }

  total(predicate: (status: number) => boolean = () => true): number {
    let sum = 0;
    for (const [status, count] of this.counts) if (predicate(status)) sum += count;
    return sum;
  }

  /** `200:812,201:40,503:12` in status order; `-` when empty. */
  format(predicate: (status: number) => boolean = () => true): string {
    const entries = [...this.counts].filter(([status]) => predicate(status)).sort(([a], [b]) => a - b);
    return entries.length === 0 ? '-' : entries.map(([status, count]) => `${status}:${count}`).join(',');
  }
}
