// The pageview counters of one instance, started by the area's manifest and stopped with the context: hits
// go to Redis when REDIS_URL is set (to this instance's memory while Redis cannot be reached), else
// to memory; a timer flushes every SVC_PAGEVIEW_FLUSH_SECONDS (the in-process buffer on every
// instance, the Redis counters on one instance per interval), and the context's close flushes both.
import { SITE_ID_PATTERN } from '../../../domain/sites/site.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { deploymentNamespace } from '../../../infra/queue/deploymentNamespace.ts';
import { createRedis, redisReady, type Redis } from '../../../infra/redis/redis.ts';
import type { Config } from '../../config/config.ts';
import type { CustomRateLimit } from '../../rateLimit/limits.ts';
import type { AppContext } from '../../runtime/context.ts';
import { createMemoryBuffer } from './memoryBuffer.ts';
import { WHOLE_SITE, writeDayCounts, type DayCounts } from './pageviewCounts.ts';
import { createRedisCounters, type FlushReport, type RedisCounters } from './redisCounters.ts';
import { createVisitorHasher, utcDay } from './visitorHash.ts';

export type { FlushReport } from './redisCounters.ts';

export interface BeaconHit {
  siteId: string;
  path: string;
  ip: string;
  userAgent: string;
}

export interface PageviewService {
  /** Counts a hit of an existing site; false when not counted (unknown site, buffer full). */
  record(hit: BeaconHit, now?: Date): Promise<boolean>;
  /** Writes this instance's buffer and, with Redis, the shared counters into PostgreSQL now. */
  flush(): Promise<FlushReport>;
  /** Stops the timer and flushes one last time. */
  close(): Promise<void>;
}

/** The beacon's rate limit: per client IP, all sites together (the beacon resolves no site first). */
export function pageviewRateLimit(config: Config): CustomRateLimit {
  return { name: 'pageviews', limit: config.SVC_PAGEVIEW_RATE_LIMIT, per: 'ip' };
}

/** Where this deployment's counters live in Redis. */
export function pageviewKeyPrefix(config: Config): string {
  return `svc:${deploymentNamespace(config)}:pv:`;
}

/**
 * Moves the counters buffered in Redis (every instance's hits) into PostgreSQL, crashed flushes'
 * batches included; safe to run beside another flush. Without REDIS_URL there is nothing shared to
 * flush: each instance's in-process buffer is flushed by its own service (its timer, its close, or
 * POST /pageviews/flush on that instance).
 */
export async function flushPageviews(context: Pick<AppContext, 'config' | 'database'>): Promise<FlushReport> {
  if (!context.config.REDIS_URL) return { days: 0, views: 0 };
  const client = createRedis(context.config.REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    return await createRedisCounters(client, pageviewKeyPrefix(context.config)).flush(context.database);
  } finally {
    client.disconnect();
  }
}

const SITE_CACHE_MS = 60_000;
const SITE_CACHE_ENTRIES = 10_000;
const WARN_EVERY_MS = 60_000;

export async function startPageviewService(context: AppContext): Promise<PageviewService> {
  const { config, database, logger } = context;
  const hasher = createVisitorHasher(config.SVC_SECRET);
  const buffer = createMemoryBuffer();
  const intervalMs = config.SVC_PAGEVIEW_FLUSH_SECONDS * 1000;
  const lastWarning = new Map<string, number>();
  const warn = (message: string, error?: unknown) => {
    if (Date.now() - (lastWarning.get(message) ?? 0) < WARN_EVERY_MS) return;
    lastWarning.set(message, Date.now());
    logger.warn({ err: error }, message);
  };

  let client: Redis | null = null;
  let shared: RedisCounters | null = null;
  if (config.REDIS_URL) {
    // No offline queue: while Redis is away a hit fails at once and goes to the in-process buffer.
    client = createRedis(config.REDIS_URL, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 2_000,
      onError: (error) => warn('pageview Redis connection error', error),
    });
    shared = createRedisCounters(client, pageviewKeyPrefix(config));
    await redisReady(client, 2_000).catch((error: unknown) => warn('pageview Redis not ready: counting in memory meanwhile', error));
  }

  const sites = new Map<string, { exists: boolean; until: number }>();
  async function siteExists(siteId: string): Promise<boolean> {
    if (!SITE_ID_PATTERN.test(siteId)) return false;
    const cached = sites.get(siteId);
    if (cached && cached.until > Date.now()) return cached.exists;
    const rows = await database.query(sql`SELECT 1 AS found FROM sites WHERE id = ${siteId} AND deleted_at IS NULL`);
    // Unknown ids are cached too (a flood of made-up ids costs one query each per minute), within a bound.
    if (sites.size >= SITE_CACHE_ENTRIES) sites.clear();
    sites.set(siteId, { exists: rows.length > 0, until: Date.now() + SITE_CACHE_MS });
    return rows.length > 0;
  }

  async function flushMemory(): Promise<FlushReport> {
    const report: FlushReport = { days: 0, views: 0 };
    const failed: DayCounts[] = [];
    let failure: unknown = null;
    for (const counts of buffer.take()) {
      try {
        await writeDayCounts(database, counts, { batchId: null });
        report.days += 1;
        report.views += counts.views.get(WHOLE_SITE) ?? 0;
      } catch (error) {
        failed.push(counts);
        failure ??= error;
      }
    }
    if (failure) {
      buffer.restore(failed);
      throw failure;
    }
    return report;
  }

  /** The in-process buffer, then (sharedToo) the Redis counters; one failing does not stop the other. */
  async function flush(sharedToo: boolean): Promise<FlushReport> {
    const parts = [flushMemory, ...(shared && sharedToo ? [() => shared.flush(database)] : [])];
    const report: FlushReport = { days: 0, views: 0 };
    let failure: unknown = null;
    for (const part of parts) {
      try {
        const done = await part();
        report.days += done.days;
        report.views += done.views;
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure) throw failure;
    return report;
  }

  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = (async () => {
      const sharedTurn = shared ? await shared.takeFlushTurn(intervalMs).catch(() => false) : false;
      await flush(sharedTurn);
    })()
      .catch((error: unknown) => logger.error({ err: error }, 'pageview flush failed; retried at the next one'))
      .finally(() => {
        running = null;
      });
  }, intervalMs);
  timer.unref();

  return {
    async record(hit, now = new Date()) {
      if (!(await siteExists(hit.siteId))) return false;
      const day = utcDay(now);
      const visitor = hasher.hash(day, hit.siteId, hit.ip, hit.userAgent);
      if (shared) {
        try {
          await shared.record(hit.siteId, day, hit.path, visitor);
          return true;
        } catch (error) {
          warn('pageview Redis unreachable: counting in memory', error);
        }
      }
      if (buffer.record(hit.siteId, day, hit.path, visitor)) return true;
      warn('pageview buffer full: hits are not counted until the next flush');
      return false;
    },
    flush: () => flush(true),
    async close() {
      clearInterval(timer);
      await running;
      try {
        await flush(true);
      } catch (error) {
        logger.error({ err: error }, 'pageview flush at shutdown failed');
      } finally {
        client?.disconnect();
      }
    },
  };
}
