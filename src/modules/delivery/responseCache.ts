// The response cache of anonymous delivery (docs/delivery.md "Caching"): answers by cache key
// (`<site>:<path and query>`), each valid while the site's fingerprint is the one it was built at,
// so any write of the site retires every answer of it on every instance at once. In process (least
// recently used out), and shared through Redis when REDIS_URL is set: an instance that has not built
// an answer takes it from Redis before it builds it. Also the negative cache: page slugs that missed,
// remembered for SVC_NEGATIVE_CACHE_TTL while the fingerprint holds (creating or renaming a page to
// that slug is a write, so it clears the tombstone at once), at most `maxMisses` of them (least
// recently used out: random slugs cannot grow it). A purge drops answers by tag or key, in Redis and
// in every instance's memory (Redis pub/sub).
// Redis is optional: while it is down the cache is this instance's memory alone (a command fails at
// once, infra/redis), and when it is back the purge channel is subscribed again and the memory,
// which may have missed purges meanwhile, is dropped.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { cacheStats, type CacheStats } from '../../../infra/metrics/metrics.ts';
import { createRedis, redisHealth, type Redis } from '../../../infra/redis/redis.ts';

export interface CachedAnswer {
  contentType: string;
  body: string;
  /** Surrogate keys: the site, page and collections the answer was built from. */
  tags: string[];
  fingerprint: string;
}

export interface ResponseCache {
  get(siteId: string, key: string, fingerprint: string): Promise<CachedAnswer | null>;
  set(siteId: string, key: string, answer: CachedAnswer): Promise<void>;
  /** Whether the slug is remembered as a miss at this fingerprint. */
  isMiss(siteId: string, slug: string, fingerprint: string): Promise<boolean>;
  rememberMiss(siteId: string, slug: string, fingerprint: string): Promise<void>;
  /** Drops the answers carrying any of `tags` or stored under any of `keys`, and the site's tombstones. */
  purge(siteId: string, selection: { tags: string[]; keys: string[] }): Promise<void>;
  /** 'ok' without Redis or while Redis answers; 'down' while it does not (this instance's memory serves alone). */
  health(): Promise<'ok' | 'down'>;
  /** Tombstones held in memory now (at most `maxMisses`). */
  readonly missCount: number;
  /** Answers found (in memory or in Redis) and not found, for the metrics scrape. */
  readonly stats: CacheStats;
  close(): Promise<void>;
}

export interface ResponseCacheOptions {
  redisUrl?: string | undefined;
  /** Prefix of the Redis keys and channel (the deployment's namespace). */
  prefix: string;
  /** How long an answer is kept at most (it is retired sooner by a write). */
  ttlSeconds: number;
  negativeTtlMs: number;
  /** Answers kept in memory at most (default 5,000). */
  maxEntries?: number;
  /** Tombstones kept in memory at most (default 10,000). */
  maxMisses?: number;
  logger: Logger;
}

interface Entry extends CachedAnswer {
  siteId: string;
  key: string;
  expiresAt: number;
}

const hash = (text: string) => createHash('sha1').update(text).digest('hex');

export async function createResponseCache(options: ResponseCacheOptions): Promise<ResponseCache> {
  const maxEntries = options.maxEntries ?? 5_000;
  const maxMisses = options.maxMisses ?? 10_000;
  const entries = new Map<string, Entry>();
  const misses = new Map<string, { fingerprint: string; expiresAt: number }>();
  const onError = (error: Error) => options.logger.warn({ err: error }, 'delivery cache Redis connection error');
  const redis: Redis | null = options.redisUrl ? createRedis(options.redisUrl, { onError }) : null;
  const subscriber: Redis | null = options.redisUrl ? createRedis(options.redisUrl, { onError, autoResubscribe: false }) : null;
  const channel = `${options.prefix}:purge`;
  const answerKey = (siteId: string, key: string) => `${options.prefix}:answer:${siteId}:${hash(key)}`;
  const missKey = (siteId: string, slug: string) => `${options.prefix}:miss:${siteId}:${hash(slug)}`;

  function remember(entry: Entry): void {
    const id = `${entry.siteId}\u0000${entry.key}`;
    entries.delete(id);
    if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
    entries.set(id, entry);
  }

  const matches = (entry: { key: string; tags: string[] }, selection: { tags: string[]; keys: string[] }) =>
    selection.keys.includes(entry.key) || entry.tags.some((tag) => selection.tags.includes(tag));

  function rememberTombstone(id: string, tombstone: { fingerprint: string; expiresAt: number }): void {
    misses.delete(id);
    if (misses.size >= maxMisses) misses.delete(misses.keys().next().value!);
    misses.set(id, tombstone);
  }

  /** Whether Redis can be asked now: a command to a Redis that is down would only fail. */
  const sharedRedis = (): Redis | null => (redis?.status === 'ready' ? redis : null);

  function purgeLocal(siteId: string, selection: { tags: string[]; keys: string[] }): void {
    for (const [id, entry] of entries) if (entry.siteId === siteId && matches(entry, selection)) entries.delete(id);
    for (const id of misses.keys()) if (id.startsWith(`${siteId}\u0000`)) misses.delete(id);
  }

  if (subscriber) {
    subscriber.on('message', (_channel: string, text: string) => {
      try {
        const { siteId, tags, keys } = JSON.parse(text) as { siteId: string; tags: string[]; keys: string[] };
        purgeLocal(siteId, { tags, keys });
      } catch {
        // not ours
      }
    });
    // Subscribed on each (re)connection, never awaited: the service starts and serves without Redis.
    let connectedBefore = false;
    subscriber.on('ready', () => {
      subscriber.subscribe(channel).then(
        () => {
          // Purges published while this instance was cut off never reached it: start from empty.
          if (connectedBefore) {
            entries.clear();
            misses.clear();
          }
          connectedBefore = true;
        },
        (error: unknown) => options.logger.warn({ err: error }, 'delivery cache could not subscribe to purges'),
      );
    });
  }

  async function purgeShared(redis: Redis, siteId: string, selection: { tags: string[]; keys: string[] }): Promise<void> {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${options.prefix}:answer:${siteId}:*`, 'COUNT', 500);
      cursor = next;
      for (const key of keys) {
        const text = await redis.get(key);
        if (text && matches(JSON.parse(text) as Entry, selection)) await redis.del(key);
      }
    } while (cursor !== '0');
    let missCursor = '0';
    do {
      const [next, keys] = await redis.scan(missCursor, 'MATCH', `${options.prefix}:miss:${siteId}:*`, 'COUNT', 500);
      missCursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (missCursor !== '0');
    await redis.publish(channel, JSON.stringify({ siteId, ...selection }));
  }

  async function lookup(siteId: string, key: string, fingerprint: string): Promise<CachedAnswer | null> {
    const local = entries.get(`${siteId}\u0000${key}`);
    if (local && local.fingerprint === fingerprint && local.expiresAt > Date.now()) return local;
    const redis = sharedRedis();
    if (!redis) return null;
    const text = await redis.get(answerKey(siteId, key)).catch(() => null);
    if (!text) return null;
    const shared = JSON.parse(text) as Entry;
    if (shared.fingerprint !== fingerprint) return null;
    remember({ ...shared, expiresAt: Date.now() + options.ttlSeconds * 1_000 });
    return shared;
  }

  const stats = cacheStats();
  return {
    stats,
    async get(siteId, key, fingerprint) {
      const found = await lookup(siteId, key, fingerprint);
      if (found) stats.hits += 1;
      else stats.misses += 1;
      return found;
    },
    async set(siteId, key, answer) {
      const entry: Entry = { ...answer, siteId, key, expiresAt: Date.now() + options.ttlSeconds * 1_000 };
      remember(entry);
      await sharedRedis()?.set(answerKey(siteId, key), JSON.stringify(entry), 'EX', options.ttlSeconds).catch(() => undefined);
    },
    async isMiss(siteId, slug, fingerprint) {
      if (options.negativeTtlMs <= 0) return false;
      const id = `${siteId}\u0000${slug}`;
      const local = misses.get(id);
      if (local && local.fingerprint === fingerprint && local.expiresAt > Date.now()) {
        rememberTombstone(id, local);
        return true;
      }
      const redis = sharedRedis();
      if (!redis) return false;
      return (await redis.get(missKey(siteId, slug)).catch(() => null)) === fingerprint;
    },
    async rememberMiss(siteId, slug, fingerprint) {
      if (options.negativeTtlMs <= 0) return;
      rememberTombstone(`${siteId}\u0000${slug}`, { fingerprint, expiresAt: Date.now() + options.negativeTtlMs });
      await sharedRedis()?.set(missKey(siteId, slug), fingerprint, 'PX', options.negativeTtlMs).catch(() => undefined);
    },
    async purge(siteId, selection) {
      purgeLocal(siteId, selection);
      const redis = sharedRedis();
      if (!redis) return;
      try {
        await purgeShared(redis, siteId, selection);
      } catch (error) {
        // The instances that missed it drop their memory when they reconnect (above).
        options.logger.warn({ err: error }, 'delivery cache purge could not reach Redis: purged in this instance only');
      }
    },
    async health() {
      return redis ? redisHealth(redis) : 'ok';
    },
    get missCount() {
      return misses.size;
    },
    async close() {
      entries.clear();
      misses.clear();
      subscriber?.disconnect();
      redis?.disconnect();
    },
  };
}
