// Fixed-window counters: in memory for one instance, or in Redis shared by every instance (one
// atomic Lua script per hit: INCR, and the window's expiry set by the first hit of the window).
import type { Redis } from '../../infra/redis/redis.ts';
import { redisReady } from '../../infra/redis/redis.ts';

export interface WindowCount {
  /** Hits in the current window, this one included. */
  count: number;
  /** When the window ends (ms since the epoch). */
  resetAt: number;
}

export interface RateLimitStore {
  readonly kind: 'memory' | 'redis';
  /** Counts one hit; throws RateLimitStoreUnavailable when the counter cannot be reached. */
  hit(key: string, windowMs: number): Promise<WindowCount>;
  close(): Promise<void>;
}

export class RateLimitStoreUnavailable extends Error {}

export function createMemoryStore(): RateLimitStore {
  const windows = new Map<string, WindowCount>();
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [key, window] of windows) if (window.resetAt <= now) windows.delete(key);
  }, 30_000);
  sweeper.unref();
  return {
    kind: 'memory',
    async hit(key, windowMs) {
      const now = Date.now();
      let window = windows.get(key);
      if (!window || window.resetAt <= now) {
        window = { count: 0, resetAt: now + windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      return { count: window.count, resetAt: window.resetAt };
    },
    async close() {
      clearInterval(sweeper);
      windows.clear();
    },
  };
}

const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

type RateLimitRedis = Redis & { svcRateLimitHit(key: string, windowMs: number): Promise<[number, number]> };

/** How a limiter's Redis client is opened: no offline queue, no retry, a short timeout (a limit fails fast). */
export const LIMITER_REDIS_OPTIONS = { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 500, connectTimeout: 2_000 } as const;

/**
 * Runs a limiter's work on a Redis client that does not queue commands while disconnected
 * (enableOfflineQueue: false), so that an outage is noticed at once: only the very first connection
 * is waited for, and only until it is made or fails (a Redis that is down at start costs requests no
 * wait); after that a client that is not ready is an outage. Every failure is RateLimitStoreUnavailable.
 */
export function redisReachability(client: Redis, connectWaitMs: number): <T>(work: () => Promise<T>) => Promise<T> {
  let everReady = client.status === 'ready';
  let everFailed = false;
  client.on('ready', () => {
    everReady = true;
  });
  client.on('error', () => {
    everFailed = true;
  });
  return async (work) => {
    try {
      if (client.status !== 'ready') {
        if (everReady || everFailed) throw new RateLimitStoreUnavailable(`Redis is ${client.status}`);
        await redisReady(client, connectWaitMs);
      }
      return await work();
    } catch (error) {
      if (error instanceof RateLimitStoreUnavailable) throw error;
      throw new RateLimitStoreUnavailable((error as Error).message);
    }
  };
}

/** Counters in Redis (see redisReachability for how an outage is noticed). */
export function createRedisStore(client: Redis, options: { keyPrefix?: string; connectWaitMs?: number } = {}): RateLimitStore {
  const prefix = options.keyPrefix ?? 'svc:rl:';
  client.defineCommand('svcRateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  const redis = client as RateLimitRedis;
  const reachable = redisReachability(client, options.connectWaitMs ?? 2_000);
  return {
    kind: 'redis',
    hit: (key, windowMs) =>
      reachable(async () => {
        const [count, ttl] = await redis.svcRateLimitHit(prefix + key, windowMs);
        return { count, resetAt: Date.now() + Math.max(ttl, 0) };
      }),
    async close() {
      client.disconnect();
    },
  };
}
