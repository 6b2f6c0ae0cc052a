// While PostgreSQL or Redis is down, every part that reconnects or retries (the projection daemon,
// LISTEN/NOTIFY listeners, the scheduler, Redis clients, requests answered 503) would log each
// failure: hundreds of lines a minute. This pino hook lets one line per message through per interval
// and counts the ones it held back (`suppressed` on the next line). Lines whose error is not an
// outage are never held back.
import type { LogFn, Logger } from 'pino';
import { isDatabaseUnavailable } from '../../infra/postgres/database.ts';
import { isRedisUnavailable } from '../../infra/redis/redis.ts';

export const OUTAGE_LOG_INTERVAL_MS = 30_000;
/** Distinct messages remembered at most (they come from the code, so there are few). */
const MAX_MESSAGES = 1_000;
const WARN_LEVEL = 40;

export function isOutageError(error: unknown): boolean {
  return isDatabaseUnavailable(error) || isRedisUnavailable(error);
}

type LogMethodHook = (this: Logger, args: Parameters<LogFn>, method: LogFn, level: number) => void;

export function throttleOutageLogs(intervalMs = OUTAGE_LOG_INTERVAL_MS, now: () => number = Date.now): LogMethodHook {
  const seen = new Map<string, { at: number; suppressed: number }>();
  return function logMethod(this: Logger, args, method, level) {
    const [first, message] = args as unknown[];
    const error = first instanceof Error ? first : typeof first === 'object' && first !== null ? (first as { err?: unknown }).err : undefined;
    if (level < WARN_LEVEL || !isOutageError(error)) {
      method.apply(this, args);
      return;
    }
    const key = `${level}\u0000${typeof message === 'string' ? message : (error as Error).message}`;
    const last = seen.get(key);
    if (last && now() - last.at < intervalMs) {
      last.suppressed += 1;
      return;
    }
    if (!last && seen.size >= MAX_MESSAGES) seen.delete(seen.keys().next().value!);
    seen.set(key, { at: now(), suppressed: 0 });
    if (!last?.suppressed) {
      method.apply(this, args);
      return;
    }
    const fields = first instanceof Error ? { err: first } : (first as Record<string, unknown>);
    (method as (...parameters: unknown[]) => void).apply(this, [{ ...fields, suppressed: last.suppressed }, ...args.slice(1)]);
  };
}
