// When a request may be sent again, and after how long: 429 and 503 answers name their wait in
// `Retry-After` (seconds or an HTTP date), which is honoured up to a bound; a request is repeated only
// when repeating it cannot do something twice.

export interface RetryOptions {
  /** Sends after the first, at most (default 3; 0 never retries). */
  retries?: number;
  /** The longest wait honoured: a longer `Retry-After` is answered with the error at once (default 10 s). */
  maxDelayMs?: number;
}

const RETRIED_STATUSES = new Set([429, 503]);
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
/** The wait without a `Retry-After`: 250 ms, doubled per attempt. */
const BASE_DELAY_MS = 250;

/** A method that is idempotent (RFC 9110), or a write made conditional by `If-Match`. */
export function mayRepeat(request: Request): boolean {
  return IDEMPOTENT_METHODS.has(request.method) || request.headers.has('if-match');
}

/** Milliseconds a `Retry-After` value asks for; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * How long to wait before sending `request` again after `response` (the `attempt`-th retry, from 1),
 * or null when it must not be sent again.
 */
export function retryDelay(request: Request, response: Response, attempt: number, options: Required<RetryOptions>): number | null {
  if (!RETRIED_STATUSES.has(response.status) || attempt > options.retries || !mayRepeat(request)) return null;
  const asked = retryAfterMs(response.headers.get('retry-after'));
  const delay = asked ?? BASE_DELAY_MS * 2 ** (attempt - 1);
  return delay > options.maxDelayMs ? null : delay;
}
