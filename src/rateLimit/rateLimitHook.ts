// The one onRequest hook that applies a route's `config.rateLimit`: counts the hit, sets the
// X-RateLimit-* headers, answers 429 RATE_LIMITED with Retry-After past the limit. When Redis cannot
// be reached it lets the request through (fail-open), or answers 503 RATE_LIMIT_UNAVAILABLE when
// SVC_RATE_LIMIT_FAIL_CLOSED=true.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/shared/appError.ts';
import { createRedis } from '../../infra/redis/redis.ts';
import type { Config } from '../config/config.ts';
import { scopeLimits, type CustomRateLimit, type RateLimitRule } from './limits.ts';
import { createMemoryStore, createRedisStore, LIMITER_REDIS_OPTIONS, RateLimitStoreUnavailable, type RateLimitStore } from './rateLimitStore.ts';

interface WarnLogger {
  warn(object: Record<string, unknown>, message: string): void;
}

export interface RateLimiting {
  readonly store: RateLimitStore;
  onRequest(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /**
   * Counts one hit of `rule` for `subject` where no route config applies (site lookups, before the
   * site is known): throws 429 RATE_LIMITED past the limit, and follows the same fail-open rule.
   */
  enforce(rule: CustomRateLimit, subject: string): Promise<void>;
  close(): Promise<void>;
}

export interface RateLimitingOptions {
  config: Config;
  logger: WarnLogger;
  /** Use this store instead of the one REDIS_URL selects (tests). */
  store?: RateLimitStore;
}

const WARN_EVERY_MS = 10_000;

export function createRateLimiting({ config, logger, store: givenStore }: RateLimitingOptions): RateLimiting {
  let lastWarning = 0;
  const warn = (message: string, error: unknown) => {
    if (Date.now() - lastWarning < WARN_EVERY_MS) return;
    lastWarning = Date.now();
    logger.warn({ err: error }, message);
  };
  const store =
    givenStore ??
    (config.REDIS_URL
      ? createRedisStore(
          createRedis(config.REDIS_URL, {
            ...LIMITER_REDIS_OPTIONS,
            onError: (error) => warn('rate-limit Redis connection error', error),
          }),
        )
      : createMemoryStore());
  const scopes = scopeLimits(config);
  const windowMs = config.SVC_RATE_LIMIT_WINDOW_SECONDS * 1000;

  function ruleOf(rule: RateLimitRule): CustomRateLimit {
    return typeof rule === 'string' ? scopes[rule] : rule;
  }

  /** Per IP counters are kept per site too: a site's sign-in traffic never throttles another site's. */
  function subjectOf(rule: CustomRateLimit, request: FastifyRequest): string {
    const site = request.siteId || '-';
    const { principal } = request;
    if (rule.per === 'user' && principal?.kind === 'user') return `${site}:user:${principal.userId}`;
    return `${site}:ip:${request.ip}`;
  }

  /** Counts one hit; throws past the limit; the X-RateLimit-* headers, or null when failing open. */
  async function count(rule: CustomRateLimit, subject: string): Promise<Record<string, string> | null> {
    let hit;
    try {
      hit = await store.hit(`${rule.name}:${subject}`, windowMs);
    } catch (error) {
      if (!(error instanceof RateLimitStoreUnavailable)) throw error;
      if (config.SVC_RATE_LIMIT_FAIL_CLOSED) {
        throw new AppError('RATE_LIMIT_UNAVAILABLE', 'The rate limiter is unavailable; retry shortly', { headers: { 'Retry-After': '1' } });
      }
      warn('rate limiter unavailable: failing open', error);
      return null;
    }
    const headers = {
      'X-RateLimit-Limit': String(rule.limit),
      'X-RateLimit-Remaining': String(Math.max(0, rule.limit - hit.count)),
      'X-RateLimit-Reset': String(Math.ceil(hit.resetAt / 1000)),
    };
    if (hit.count > rule.limit) {
      const retryAfter = Math.max(1, Math.ceil((hit.resetAt - Date.now()) / 1000));
      throw new AppError('RATE_LIMITED', `Too many requests; retry in ${retryAfter} s`, {
        headers: { ...headers, 'Retry-After': String(retryAfter) },
        extensions: { limit: rule.limit, retryAfter },
      });
    }
    return headers;
  }

  return {
    store,
    async onRequest(request, reply) {
      const declared = request.routeOptions.config.rateLimit;
      if (!declared) return;
      const rule = ruleOf(declared);
      if (!rule || rule.limit <= 0) return;
      const headers = await count(rule, subjectOf(rule, request));
      if (headers) reply.headers(headers);
    },
    async enforce(rule, subject) {
      if (rule.limit > 0) await count(rule, subject);
    },
    close: () => store.close(),
  };
}
