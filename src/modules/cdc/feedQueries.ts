// Reading the change feed: keyset pages after a sequence, and where a site's feed stands.
import { cursorExpired } from '../../../domain/changeFeed/cursor.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { FEED_ROW_COLUMNS, feedFilterSql, feedRangeSql, type FeedFilter, type FeedRow } from './feedEnvelope.ts';

export interface FeedHead {
  /** The last sequence of the site's feed (0 when empty). */
  lastSeq: number;
  /** Entries up to this sequence were removed by retention; a cursor below it is expired. */
  prunedThrough: number;
}

export async function readFeedHead(tx: Pick<Queryable, 'query'>, siteId: string): Promise<FeedHead> {
  const [row] = await tx.query<{ last_seq: number; pruned_through: number }>(
    sql`SELECT last_seq, pruned_through FROM cdc_feed_sites WHERE site_id = ${siteId}`,
  );
  return { lastSeq: row?.last_seq ?? 0, prunedThrough: row?.pruned_through ?? 0 };
}

export interface FeedPage {
  /** Each entry's envelope as JSON text. */
  entries: string[];
  /** Sequence to continue after. */
  nextSeq: number;
  hasMore: boolean;
}

/**
 * One page after `afterSeq` (null = from the start of retention). Throws 410 CURSOR_EXPIRED when
 * entries after the cursor were pruned. When nothing more matches, the next cursor skips to the
 * head read before the page, so a filtered reader does not rescan entries it does not want:
 * the feed is written by one transaction at a time in sequence order, so every entry up to that
 * head is already visible to the page query that follows.
 */
export async function readFeedPage(
  tx: Queryable,
  siteId: string,
  request: { afterSeq: number | null; filter: FeedFilter; limit: number },
): Promise<FeedPage> {
  const head = await readFeedHead(tx, siteId);
  if (request.afterSeq !== null && request.afterSeq < head.prunedThrough) throw cursorExpired(head.prunedThrough);
  const after = request.afterSeq ?? head.prunedThrough;
  const rows = await tx.query<FeedRow>(sql`
    SELECT ${FEED_ROW_COLUMNS} FROM cdc_feed f
     WHERE f.site_id = ${siteId} AND ${feedRangeSql(after, request.limit + 1, request.filter)} AND ${feedFilterSql(request.filter)}
     ORDER BY f.seq LIMIT ${request.limit + 1}`);
  const hasMore = rows.length > request.limit;
  const page = hasMore ? rows.slice(0, request.limit) : rows;
  const lastSeen = page.at(-1)?.seq ?? after;
  return { entries: page.map((row) => row.envelope), nextSeq: hasMore ? lastSeen : Math.max(lastSeen, head.lastSeq), hasMore };
}
