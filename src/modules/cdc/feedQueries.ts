// Reading the change feed: keyset pages after a sequence as one reader sees them, and where a
// site's feed stands.
import type { SensitiveRead } from '../../../domain/content/sensitiveReads.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { SiteFeedCursors } from './feedCursors.ts';
import { feedFilterSql, feedRangeSql, siteEnvelope, type FeedFilter } from './feedEnvelope.ts';
import type { FeedView, SelectedFeedRow, VisibleFeedRow } from './feedVisibility.ts';

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
  /** Each entry's envelope as JSON text, as the reader sees it. */
  entries: string[];
  /** The pii/phi values the page shows, to log as item reads are logged. */
  sensitive: SensitiveRead[];
  /** Sequence to continue after. */
  nextSeq: number;
  hasMore: boolean;
}

/**
 * Up to `limit` entries after `afterSeq` (and up to `throughSeq`) that the filter and the view's
 * scope admit, in feed order, before the view's per-entry checks (row conditions, fields), with
 * their envelopes as served to the site (its opaque cursors): one query, snapshots kept in the log
 * read in it.
 */
export async function selectFeedRows(
  tx: Pick<Queryable, 'query'>,
  siteId: string,
  request: { afterSeq: number; throughSeq?: number; limit: number; filter: FeedFilter; view: FeedView; cursors: SiteFeedCursors },
): Promise<VisibleFeedRow[]> {
  const { view, filter } = request;
  const through = request.throughSeq === undefined ? sql`` : sql` AND f.seq <= ${request.throughSeq}`;
  const scope = view.scope === null ? sql`` : sql` AND ${view.scope}`;
  const rows = await tx.query<SelectedFeedRow>(sql`
    SELECT ${view.from}
     WHERE f.site_id = ${siteId} AND ${feedRangeSql(request.afterSeq, request.limit, filter, view.scope === null)}${through} AND ${feedFilterSql(filter)}${scope}
     ORDER BY f.seq LIMIT ${request.limit}`);
  return rows.map((row) => visibleRowOf(row, request.cursors));
}

function visibleRowOf(row: SelectedFeedRow, cursors: SiteFeedCursors): VisibleFeedRow {
  const { seq, event_id, type, item_id, collection, row_visible } = row;
  return { seq, event_id, type, item_id, collection, row_visible, envelope: siteEnvelope(row, cursors) };
}

/**
 * One page after `afterSeq` (null = from the start of retention) as `view` sees it. Throws 410
 * CURSOR_EXPIRED when entries after the cursor were pruned. The page is cut before the view's
 * per-entry checks (row conditions, schema entries), so a reader with conditions may get a short
 * page, even an empty one with `hasMore`; the cursor still moves past what was left out.
 * When nothing more matches, the next cursor skips to the head read before the page, so a filtered
 * reader does not rescan entries it does not want: the feed is written by one transaction at a
 * time in sequence order, so every entry up to that head is already visible to the page query
 * that follows.
 */
export async function readFeedPage(
  tx: Queryable,
  siteId: string,
  request: { afterSeq: number | null; filter: FeedFilter; limit: number; view: FeedView; cursors: SiteFeedCursors },
): Promise<FeedPage> {
  const head = await readFeedHead(tx, siteId);
  if (request.afterSeq !== null && request.afterSeq < head.prunedThrough) throw request.cursors.expired(head.prunedThrough);
  const after = request.afterSeq ?? head.prunedThrough;
  const rows = await selectFeedRows(tx, siteId, { afterSeq: after, limit: request.limit + 1, filter: request.filter, view: request.view, cursors: request.cursors });
  const hasMore = rows.length > request.limit;
  const page = hasMore ? rows.slice(0, request.limit) : rows;
  const lastSeen = page.at(-1)?.seq ?? after;
  const presented = page.map((row) => request.view.present(row)).filter((entry) => entry !== null);
  return {
    entries: presented.map((entry) => entry.envelope),
    sensitive: presented.flatMap((entry) => (entry.sensitive ? [entry.sensitive] : [])),
    nextSeq: hasMore ? lastSeen : Math.max(lastSeen, head.lastSeq),
    hasMore,
  };
}
