// Lockout counters with exponential backoff (the per-account limit on failed sign-ins): in memory for
// one instance, or in Redis shared by every instance (one atomic Lua script per attempt).
// An attempt is counted before it is judged and cleared when it succeeds, so that parallel attempts
// cannot all pass the check before the first failure is recorded.
import type { Redis } from '../../infra/redis/redis.ts';
import { redisReachability } from './rateLimitStore.ts';

export interface BackoffPolicy {
  /** Attempts that never lock; from this many on, each attempt locks the key for the next delay. */
  freeAttempts: number;
  /** The longest lock (the backoff doubles from one second up to it). */
  maxLockMs: number;
  /** How long a count is kept after the last attempt (and after its lock ends). */
  forgetAfterMs: number;
}

export type AttemptVerdict = { allowed: true } | { allowed: false; retryAfterMs: number };

export interface BackoffStore {
  readonly kind: 'memory' | 'redis';
  /** Counts an attempt unless the key is locked; throws RateLimitStoreUnavailable when the counter cannot be reached. */
  attempt(key: string, policy: BackoffPolicy): Promise<AttemptVerdict>;
  /** Forgets the key's attempts (a success). */
  clear(key: string): Promise<void>;
  close(): Promise<void>;
}

/** The lock after the attempt that brought the count to `attempts` (0 while under the free attempts). */
export function lockAfter(attempts: number, policy: BackoffPolicy): number {
  if (attempts < policy.freeAttempts) return 0;
  return Math.min(1000 * 2 ** Math.min(attempts - policy.freeAttempts, 30), policy.maxLockMs);
}

interface Counter {
  attempts: number;
  lockedUntil: number;
  expiresAt: number;
}

/** At most `maxKeys` counters (the least recently touched go first): made-up emails cannot grow memory without bound. */
export function createMemoryBackoffStore(maxKeys = 50_000): BackoffStore {
  const counters = new Map<string, Counter>();
  return {
    kind: 'memory',
    async attempt(key, policy) {
      const now = Date.now();
      let counter = counters.get(key);
      if (counter && counter.expiresAt <= now) counter = undefined;
      if (counter && counter.lockedUntil > now) return { allowed: false, retryAfterMs: counter.lockedUntil - now };
      const attempts = (counter?.attempts ?? 0) + 1;
      const lockedUntil = now + lockAfter(attempts, policy);
      counters.delete(key);
      counters.set(key, { attempts, lockedUntil, expiresAt: lockedUntil + policy.forgetAfterMs });
      if (counters.size > maxKeys) counters.delete(counters.keys().next().value!);
      return { allowed: true };
    },
    async clear(key) {
      counters.delete(key);
    },
    async close() {
      counters.clear();
    },
  };
}

// KEYS[1]: the counter; ARGV: free attempts, longest lock (ms), forget after (ms). Redis's clock, so
// that every instance agrees.
const ATTEMPT_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local stored = redis.call('HMGET', KEYS[1], 'attempts', 'lockedUntil')
local attempts = tonumber(stored[1]) or 0
local lockedUntil = tonumber(stored[2]) or 0
if lockedUntil > now then return {0, lockedUntil - now} end
attempts = attempts + 1
local free = tonumber(ARGV[1])
local lock = 0
if attempts >= free then lock = math.min(1000 * 2 ^ math.min(attempts - free, 30), tonumber(ARGV[2])) end
redis.call('HSET', KEYS[1], 'attempts', attempts, 'lockedUntil', now + lock)
redis.call('PEXPIRE', KEYS[1], lock + tonumber(ARGV[3]))
return {1, 0}`;

type BackoffRedis = Redis & { svcBackoffAttempt(key: string, free: number, maxLockMs: number, forgetAfterMs: number): Promise<[number, number]> };

/** Counters in Redis (see redisReachability for how an outage is noticed). */
export function createRedisBackoffStore(client: Redis, options: { keyPrefix?: string; connectWaitMs?: number } = {}): BackoffStore {
  const prefix = options.keyPrefix ?? 'svc:backoff:';
  client.defineCommand('svcBackoffAttempt', { numberOfKeys: 1, lua: ATTEMPT_SCRIPT });
  const redis = client as BackoffRedis;
  const reachable = redisReachability(client, options.connectWaitMs ?? 1_000);
  return {
    kind: 'redis',
    attempt: (key, policy) =>
      reachable(async () => {
        const [allowed, retryAfterMs] = await redis.svcBackoffAttempt(prefix + key, policy.freeAttempts, policy.maxLockMs, policy.forgetAfterMs);
        return allowed === 1 ? { allowed: true } : { allowed: false, retryAfterMs };
      }),
    clear: (key) =>
      reachable(async () => {
        await client.del(prefix + key);
      }),
    async close() {
      client.disconnect();
    },
  };
}
