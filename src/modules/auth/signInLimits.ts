// The per-account limit on failed sign-ins, whatever the client IP (docs/security.md): counted per site
// and normalized email whether or not a user has it, so that its answers never tell an account that
// exists from one that does not. SVC_SIGNIN_FAILURES_BEFORE_BACKOFF attempts are free, then each
// failure locks the email 1 s, 2 s, 4 s … up to SVC_SIGNIN_LOCKOUT_SECONDS; while locked every attempt,
// a correct password included, gets 429 RATE_LIMITED with Retry-After. A success forgets the count;
// so does a day without attempts. Counters live in Redis when REDIS_URL is set, else in the process;
// an unreachable Redis fails open (a warning), or 503 with SVC_RATE_LIMIT_FAIL_CLOSED.
import { AppError } from '../../../domain/shared/appError.ts';
import { tokenHash } from '../../../infra/crypto/secrets.ts';
import { createRedis } from '../../../infra/redis/redis.ts';
import type { Config } from '../../config/config.ts';
import { createMemoryBackoffStore, createRedisBackoffStore, type BackoffPolicy, type BackoffStore } from '../../rateLimit/backoffStore.ts';
import { LIMITER_REDIS_OPTIONS, RateLimitStoreUnavailable } from '../../rateLimit/rateLimitStore.ts';

interface WarnLogger {
  warn(object: Record<string, unknown>, message: string): void;
}

export interface SignInLimiter {
  /** Counts a sign-in attempt for the email; throws 429 RATE_LIMITED while the email is locked. */
  beforeAttempt(siteId: string, email: string): Promise<void>;
  /** A sign-in succeeded: its email starts afresh. */
  succeeded(siteId: string, email: string): Promise<void>;
  close(): Promise<void>;
}

const FORGET_AFTER_MS = 86_400_000;
const WARN_EVERY_MS = 10_000;

export function createSignInLimiter(config: Config, logger: WarnLogger, givenStore?: BackoffStore): SignInLimiter {
  let lastWarning = 0;
  const warn = (message: string, error: unknown) => {
    if (Date.now() - lastWarning < WARN_EVERY_MS) return;
    lastWarning = Date.now();
    logger.warn({ err: error }, message);
  };
  const enabled = config.SVC_SIGNIN_FAILURES_BEFORE_BACKOFF > 0;
  const store =
    givenStore ??
    (config.REDIS_URL && enabled
      ? createRedisBackoffStore(
          createRedis(config.REDIS_URL, {
            ...LIMITER_REDIS_OPTIONS,
            onError: (error) => warn('sign-in limit Redis connection error', error),
          }),
        )
      : createMemoryBackoffStore());
  const policy: BackoffPolicy = {
    freeAttempts: config.SVC_SIGNIN_FAILURES_BEFORE_BACKOFF,
    maxLockMs: config.SVC_SIGNIN_LOCKOUT_SECONDS * 1000,
    forgetAfterMs: Math.max(FORGET_AFTER_MS, config.SVC_SIGNIN_LOCKOUT_SECONDS * 1000),
  };
  const keyOf = (siteId: string, email: string) => `signin:${siteId}:${tokenHash(email)}`;

  /** Runs a counter operation; an unreachable store fails open unless SVC_RATE_LIMIT_FAIL_CLOSED. */
  async function guarded<T>(work: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof RateLimitStoreUnavailable)) throw error;
      if (config.SVC_RATE_LIMIT_FAIL_CLOSED) {
        throw new AppError('RATE_LIMIT_UNAVAILABLE', 'The rate limiter is unavailable; retry shortly', { headers: { 'Retry-After': '1' } });
      }
      warn('sign-in limit unavailable: failing open', error);
      return fallback;
    }
  }

  return {
    async beforeAttempt(siteId, email) {
      if (!enabled) return;
      const verdict = await guarded(() => store.attempt(keyOf(siteId, email), policy), { allowed: true } as const);
      if (verdict.allowed) return;
      const retryAfter = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
      throw new AppError('RATE_LIMITED', `Too many failed sign-ins; retry in ${retryAfter} s`, {
        headers: { 'Retry-After': String(retryAfter) },
        extensions: { retryAfter },
      });
    },
    async succeeded(siteId, email) {
      if (!enabled) return;
      await guarded(() => store.clear(keyOf(siteId, email)), undefined);
    },
    close: () => store.close(),
  };
}
