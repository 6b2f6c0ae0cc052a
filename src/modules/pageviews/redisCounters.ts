// Pageview counters in Redis, shared by every instance: per site and UTC day a hash of views per path
// and a set of visitor entries, until a flush moves them into PostgreSQL. A flush first renames the
// pending keys into a batch (atomically per site and day: a hit after the rename starts fresh keys),
// then writes each batch member in one site transaction that records the batch, then deletes it
// from Redis. A flush that crashes anywhere leaves its batch listed; the next one finishes it, and
// a batch already recorded in PostgreSQL is deleted without being counted twice.
import { randomUUID } from 'node:crypto';
import type { Database } from '../../../infra/postgres/database.ts';
import type { Redis } from '../../../infra/redis/redis.ts';
import { emptyDayCounts, WHOLE_SITE, writeDayCounts, type DayCounts } from './pageviewCounts.ts';

/** How long counters live in Redis after their last hit: a safety net when no flush runs for days. */
export const COUNTER_TTL_SECONDS = 3 * 86_400;

export interface FlushReport {
  /** Site days written into PostgreSQL. */
  days: number;
  /** Views they added. */
  views: number;
}

export interface RedisCounters {
  /** Counts a hit: one round trip. Throws when Redis cannot be reached (the caller buffers it in memory). */
  record(siteId: string, day: string, path: string, visitor: string): Promise<void>;
  /** The first half of a flush: moves every pending site day into a new batch; its id, or null when nothing was pending. */
  claimPending(): Promise<string | null>;
  /** Writes one site day of a batch into PostgreSQL (false when nothing to write or written before), without deleting it from Redis. */
  writeBatchDay(database: Database, batchId: string, member: string): Promise<boolean>;
  /** Claims what is pending, then writes and deletes every batch: this one and any a crashed flush left. */
  flush(database: Database): Promise<FlushReport>;
  /** True for one caller per `intervalMs` across instances: the one whose periodic flush runs. */
  takeFlushTurn(intervalMs: number): Promise<boolean>;
}

// KEYS: views, visitors, pending. ARGV: path, visitor, ttl seconds, member (site/day).
const RECORD_SCRIPT = `
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('HINCRBY', KEYS[1], '', 1)
redis.call('SADD', KEYS[2], ARGV[2] .. ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
redis.call('SADD', KEYS[3], ARGV[4])
return 1`;

// KEYS: views, visitors, pending, batch views, batch visitors, batch members, batches. ARGV: member, batch id, ttl.
const CLAIM_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('RENAME', KEYS[1], KEYS[4]) end
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('RENAME', KEYS[2], KEYS[5]) end
redis.call('SADD', KEYS[6], ARGV[1])
redis.call('EXPIRE', KEYS[6], ARGV[3])
redis.call('SADD', KEYS[7], ARGV[2])
redis.call('SREM', KEYS[3], ARGV[1])
return 1`;

// KEYS: batch views, batch visitors, batch members, batches. ARGV: member ('' for none), batch id.
const RELEASE_SCRIPT = `
if ARGV[1] ~= '' then
  redis.call('DEL', KEYS[1], KEYS[2])
  redis.call('SREM', KEYS[3], ARGV[1])
end
if redis.call('SCARD', KEYS[3]) == 0 then redis.call('SREM', KEYS[4], ARGV[2]) end
return 1`;

type CounterRedis = Redis & {
  svcPageviewRecord(views: string, visitors: string, pending: string, path: string, visitor: string, ttl: number, member: string): Promise<number>;
  svcPageviewClaim(...args: [string, string, string, string, string, string, string, string, string, number]): Promise<number>;
  svcPageviewRelease(views: string, visitors: string, members: string, batches: string, member: string, batchId: string): Promise<number>;
};

/** A site day's name in Redis: `site/day` (site ids hold no "/"). */
function memberOf(siteId: string, day: string): string {
  return `${siteId}/${day}`;
}

function parseMember(member: string): { siteId: string; day: string } {
  const slash = member.lastIndexOf('/');
  return { siteId: member.slice(0, slash), day: member.slice(slash + 1) };
}

/** Counters under `prefix` (one per deployment: pageviewKeyPrefix in pageviewService.ts). */
export function createRedisCounters(client: Redis, prefix: string): RedisCounters {
  client.defineCommand('svcPageviewRecord', { numberOfKeys: 3, lua: RECORD_SCRIPT });
  client.defineCommand('svcPageviewClaim', { numberOfKeys: 7, lua: CLAIM_SCRIPT });
  client.defineCommand('svcPageviewRelease', { numberOfKeys: 4, lua: RELEASE_SCRIPT });
  const redis = client as CounterRedis;
  const keys = {
    pending: `${prefix}pending`,
    batches: `${prefix}batches`,
    gate: `${prefix}flush-gate`,
    views: (member: string) => `${prefix}views:${member}`,
    visitors: (member: string) => `${prefix}visitors:${member}`,
    batchMembers: (batchId: string) => `${prefix}batch:${batchId}:members`,
    batchViews: (batchId: string, member: string) => `${prefix}batch:${batchId}:views:${member}`,
    batchVisitors: (batchId: string, member: string) => `${prefix}batch:${batchId}:visitors:${member}`,
  };

  async function claimPending(): Promise<string | null> {
    const pending = await redis.smembers(keys.pending);
    if (pending.length === 0) return null;
    const batchId = randomUUID();
    await Promise.all(
      pending.map((member) =>
        redis.svcPageviewClaim(
          keys.views(member),
          keys.visitors(member),
          keys.pending,
          keys.batchViews(batchId, member),
          keys.batchVisitors(batchId, member),
          keys.batchMembers(batchId),
          keys.batches,
          member,
          batchId,
          COUNTER_TTL_SECONDS,
        ),
      ),
    );
    return batchId;
  }

  async function readBatchDay(batchId: string, member: string): Promise<DayCounts | null> {
    const [views, visitors] = await Promise.all([redis.hgetall(keys.batchViews(batchId, member)), redis.smembers(keys.batchVisitors(batchId, member))]);
    if (Object.keys(views).length === 0 && visitors.length === 0) return null;
    const { siteId, day } = parseMember(member);
    const counts = emptyDayCounts(siteId, day);
    for (const [path, count] of Object.entries(views)) counts.views.set(path, Number(count));
    for (const entry of visitors) counts.visitors.add(entry);
    return counts;
  }

  async function writeBatchDay(database: Database, batchId: string, member: string): Promise<boolean> {
    const counts = await readBatchDay(batchId, member);
    return counts !== null && (await writeDayCounts(database, counts, { batchId }));
  }

  const release = (batchId: string, member: string) =>
    redis.svcPageviewRelease(keys.batchViews(batchId, member), keys.batchVisitors(batchId, member), keys.batchMembers(batchId), keys.batches, member, batchId);

  return {
    async record(siteId, day, path, visitor) {
      const member = memberOf(siteId, day);
      await redis.svcPageviewRecord(keys.views(member), keys.visitors(member), keys.pending, path, visitor, COUNTER_TTL_SECONDS, member);
    },
    claimPending,
    writeBatchDay,
    async flush(database) {
      await claimPending();
      const report: FlushReport = { days: 0, views: 0 };
      // A site day that cannot be written stays in its batch for the next flush; the others go on.
      let failure: unknown = null;
      for (const batchId of await redis.smembers(keys.batches)) {
        for (const member of await redis.smembers(keys.batchMembers(batchId))) {
          try {
            const counts = await readBatchDay(batchId, member);
            if (counts && (await writeDayCounts(database, counts, { batchId }))) {
              report.days += 1;
              report.views += counts.views.get(WHOLE_SITE) ?? 0;
            }
            await release(batchId, member);
          } catch (error) {
            failure ??= error;
          }
        }
        // A batch whose members were all written (or expired) leaves the list.
        await release(batchId, '');
      }
      if (failure) throw failure;
      return report;
    },
    async takeFlushTurn(intervalMs) {
      return (await redis.set(keys.gate, '1', 'PX', Math.max(1_000, intervalMs - 1_000), 'NX')) === 'OK';
    },
  };
}
