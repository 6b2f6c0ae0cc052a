// The counts of one site's day as a buffer holds them, and their one writer into PostgreSQL: views
// are added, visitors inserted once per (site, day, path) and counted only when new, in one site
// transaction. Both buffers (in-process and Redis) flush through writeDayCounts.
import type { Database } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';

/** The path of the row that counts the whole site's day (a counted path always starts with "/"). */
export const WHOLE_SITE = '';

/** Hex characters of a visitor hash (visitorHash.ts). */
const VISITOR_HEX_LENGTH = 32;

/** Visitor hashes older than this (in days) are deleted: no buffered hit can be that old (Redis keys live 3 days). */
export const UNIQUES_KEPT_DAYS = 4;

export interface DayCounts {
  siteId: string;
  /** UTC date, YYYY-MM-DD. */
  day: string;
  /** Views per path, WHOLE_SITE included. */
  views: Map<string, number>;
  /** visitorEntry(visitor, path) of each visitor seen on each path, WHOLE_SITE included. */
  visitors: Set<string>;
}

/** One string per visitor and path: the hash (fixed length) then the path. */
export function visitorEntry(visitor: string, path: string): string {
  return visitor + path;
}

function splitVisitorEntry(entry: string): { visitor: string; path: string } {
  return { visitor: entry.slice(0, VISITOR_HEX_LENGTH), path: entry.slice(VISITOR_HEX_LENGTH) };
}

export function emptyDayCounts(siteId: string, day: string): DayCounts {
  return { siteId, day, views: new Map(), visitors: new Set() };
}

/** Adds one view of `path` (and of the whole site) by `visitor`. */
export function addHit(counts: DayCounts, path: string, visitor: string): void {
  for (const counted of [path, WHOLE_SITE]) {
    counts.views.set(counted, (counts.views.get(counted) ?? 0) + 1);
    counts.visitors.add(visitorEntry(visitor, counted));
  }
}

export interface WriteOptions {
  /**
   * The Redis batch these counts come from: recorded in the same transaction, and a batch already
   * recorded is not written again (a retried flush). Null for the in-process buffer.
   */
  batchId: string | null;
}

/** Adds `counts` to the site's rows; false when the batch was written before (nothing done). */
export async function writeDayCounts(database: Database, counts: DayCounts, { batchId }: WriteOptions): Promise<boolean> {
  const { siteId, day } = counts;
  // Sorted, so that two flushes of overlapping counts lock rows in the same order.
  const visitors = [...counts.visitors].map(splitVisitorEntry).sort((a, b) => compare(a.path, b.path) || compare(a.visitor, b.visitor));
  const views = [...counts.views].sort(([a], [b]) => compare(a, b));
  return database.withSite(siteId, async (tx) => {
    if (batchId !== null) {
      const recorded = await tx.query(
        sql`INSERT INTO pageview_flushes (site_id, batch_id, day) VALUES (${siteId}, ${batchId}, ${day}) ON CONFLICT DO NOTHING RETURNING 1 AS recorded`,
      );
      if (recorded.length === 0) return false;
    }
    await tx.query(sql`
      WITH new_visitors AS (
        INSERT INTO pageview_uniques (site_id, day, path, visitor_hash)
        SELECT ${siteId}, ${day}::date, v.path, decode(v.visitor, 'hex')
          FROM unnest(${visitors.map((entry) => entry.path)}::text[], ${visitors.map((entry) => entry.visitor)}::text[]) AS v(path, visitor)
        ON CONFLICT DO NOTHING
        RETURNING path
      ),
      new_uniques AS (SELECT path, count(*) AS uniques FROM new_visitors GROUP BY path),
      new_views AS (SELECT * FROM unnest(${views.map(([path]) => path)}::text[], ${views.map(([, count]) => count)}::bigint[]) AS v(path, views))
      INSERT INTO pageview_daily AS daily (site_id, day, path, views, uniques)
      SELECT ${siteId}, ${day}::date, path, coalesce(new_views.views, 0), coalesce(new_uniques.uniques, 0)
        FROM new_views FULL JOIN new_uniques USING (path)
        ORDER BY path
      ON CONFLICT (site_id, day, path) DO UPDATE SET views = daily.views + EXCLUDED.views, uniques = daily.uniques + EXCLUDED.uniques`);
    // Retention, a few rows at a time: hashes no flush can need any more, and batch records older
    // than any Redis key they could guard.
    tx.defer(sql`DELETE FROM pageview_uniques WHERE site_id = ${siteId} AND day < (now() AT TIME ZONE 'UTC')::date - ${UNIQUES_KEPT_DAYS}::int`);
    tx.defer(sql`DELETE FROM pageview_flushes WHERE site_id = ${siteId} AND flushed_at < now() - interval '8 days'`);
    return true;
  });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
