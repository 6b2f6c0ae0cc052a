// List totals from the live-item counts (migration 0104: triggers on `items` keep the change of
// each write per site, collection and status) instead of counting the matching rows: exact, and
// independent of the collection's size. Only for totals those counts answer: live items with no
// filter, or a filter that is exactly `{ status: { _eq: "<text>" } }`, read by someone whose
// permissions put no row condition on the collection. Anything else is counted row by row.
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import type { FilterTree } from '../../query/index.ts';
import type { AppContext } from '../../runtime/context.ts';
import { LIVE_ITEMS, type ReadContext } from './itemSource.ts';

/** The status a filter asks for (null: none), or undefined when the counts cannot answer it. */
function countedStatus(filter: FilterTree | null | undefined): string | null | undefined {
  if (filter === undefined || filter === null || Object.keys(filter).length === 0) return null;
  const keys = Object.keys(filter);
  if (keys.length !== 1 || keys[0] !== 'status') return undefined;
  const condition = filter.status;
  if (typeof condition !== 'object' || condition === null || Array.isArray(condition)) return undefined;
  const operators = Object.keys(condition);
  const value = (condition as Record<string, unknown>)._eq;
  // A `$`-value may be a dynamic variable ($CURRENT_USER…): leave those to the compiled filter.
  if (operators.length !== 1 || typeof value !== 'string' || value.startsWith('$')) return undefined;
  return value;
}

/**
 * The statement that reads the number of live items of `collection` matching `filter` from the
 * counts, or null when they cannot answer it (other filters, row conditions, drafts of another
 * source, time travel). A list puts it in its own statement as an uncorrelated subquery (computed
 * once), so that a page and its total take one round trip.
 */
export function countedTotalQuery(
  context: ReadContext,
  collection: string,
  filter: FilterTree | null | undefined,
  restricted: boolean,
): SqlFragment | null {
  if (context.source !== LIVE_ITEMS || restricted) return null;
  if (context.permissions?.rowCondition(collection, 'i', context.source.table)) return null;
  const status = countedStatus(filter);
  if (status === undefined) return null;
  return sql`
    SELECT coalesce(sum(live), 0)::bigint FROM item_count_deltas
     WHERE site_id = ${context.siteId} AND collection = ${collection}${status === null ? sql`` : sql` AND status = ${status}`}`;
}

/** Scheduler task: folds each key's count rows into one, so a total sums few rows. */
export async function compactItemCounts(context: Pick<AppContext, 'database'>): Promise<void> {
  await context.database.query(sql`SELECT svc_compact_item_counts()`);
}
