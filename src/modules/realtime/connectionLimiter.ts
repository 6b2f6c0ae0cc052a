// At most N concurrent realtime connections per site: counted in-process, or in Redis across
// instances (a sorted set per site scored by expiry, refreshed by each instance's heartbeat, so the
// connections of an instance that died stop counting on their own).
import type { Redis } from '../../../infra/redis/redis.ts';

export interface ConnectionLimiter {
  acquire(siteId: string, connectionId: string): Promise<boolean>;
  release(siteId: string, connectionId: string): Promise<void>;
  /** Keeps this instance's live connections counted (Redis); called on each heartbeat. */
  refresh(connections: { siteId: string; connectionId: string }[]): Promise<void>;
}

export function createInProcessLimiter(limit: number): ConnectionLimiter {
  const bySite = new Map<string, Set<string>>();
  return {
    async acquire(siteId, connectionId) {
      let set = bySite.get(siteId);
      if (!set) bySite.set(siteId, (set = new Set()));
      if (set.size >= limit) return false;
      set.add(connectionId);
      return true;
    },
    async release(siteId, connectionId) {
      const set = bySite.get(siteId);
      set?.delete(connectionId);
      if (set?.size === 0) bySite.delete(siteId);
    },
    async refresh() {
      // nothing expires in-process
    },
  };
}

const ACQUIRE_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

export function createRedisLimiter(options: { redis: Redis; prefix: string; limit: number; ttlMs: number }): ConnectionLimiter {
  const { redis, prefix, limit, ttlMs } = options;
  const keyOf = (siteId: string) => `${prefix}:conn:${siteId}`;
  return {
    async acquire(siteId, connectionId) {
      const now = Date.now();
      const result = await redis.eval(ACQUIRE_SCRIPT, 1, keyOf(siteId), now, now + ttlMs, limit, connectionId, ttlMs * 2);
      return result === 1;
    },
    async release(siteId, connectionId) {
      await redis.zrem(keyOf(siteId), connectionId);
    },
    async refresh(connections) {
      if (connections.length === 0) return;
      const expiry = Date.now() + ttlMs;
      const pipeline = redis.pipeline();
      for (const { siteId, connectionId } of connections) {
        pipeline.zadd(keyOf(siteId), 'XX', expiry, connectionId);
        pipeline.pexpire(keyOf(siteId), ttlMs * 2);
      }
      await pipeline.exec();
    },
  };
}
