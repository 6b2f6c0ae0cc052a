// Time travel: `GET /items/:collection[/:id]?asOf=<ISO time>` runs the content module's own list and
// get queries over item_history at that moment instead of `items`, so filters, sorts, field
// selections, relations and aggregates behave as they do live.
import { AppError } from '../../../domain/shared/appError.ts';
import { raw, sql } from '../../../infra/postgres/sql.ts';
import type { ItemSource } from './itemSource.ts';
import { getItem, listItems, type GetItemInput, type ItemsReadContext, type ListItemsInput, type ListItemsResult } from './queries.ts';

const COLUMNS = raw('site_id, collection, id, status, sort, created_at, updated_at, user_created, user_updated, deleted_at, version, data');

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/i;

/** Parses `asOf`: an ISO 8601 date (UTC midnight) or date-time with a zone; else 400 at ['query','asOf']. */
export function parseAsOf(text: unknown): Date {
  const value = typeof text === 'string' ? text.trim() : '';
  const at = ISO_TIME.test(value) ? new Date(value) : null;
  if (!at || Number.isNaN(at.getTime())) {
    throw new AppError('VALIDATION_FAILED', 'asOf must be an ISO 8601 date or date-time with a time zone, e.g. 2024-05-01T12:00:00Z', {
      path: ['query', 'asOf'],
    });
  }
  return at;
}

/**
 * The items as they stood at one moment, as a derived table with the columns of `items`: the closed
 * versions of item_history whose range holds the moment, and the current versions (`items` rows)
 * that had begun by then (projections/itemsProjection.ts). The main query, nested relations,
 * relational filters and permission conditions all read this same table. The moment is a bound
 * parameter and the tests are plain comparisons, so the planner estimates them from statistics:
 * under row-level security it uses them only for leakproof operators, which timestamp comparisons
 * are and a range's `@>` is not (it then guessed 0.5 % of the rows where nearly all were valid, and
 * chose a scan of every valid row: 1.5 s for a page at 1,280,000 rows, 0.4 ms now).
 */
function asOfSource(at: Date): ItemSource {
  const moment = at.toISOString();
  return {
    table: sql`(SELECT ${COLUMNS} FROM item_history WHERE valid_from <= ${moment}::timestamptz AND valid_to > ${moment}::timestamptz
                UNION ALL
                SELECT ${COLUMNS} FROM items WHERE valid_from <= ${moment}::timestamptz)`,
  };
}

/** A page of the collection's items as they stood at `at` (same list parameters as a live list). */
export async function listItemsAsOf(app: ItemsReadContext, input: ListItemsInput, at: Date): Promise<ListItemsResult> {
  return comparingOldValues(() => listItems(app, { ...input, draft: false, source: asOfSource(at) }));
}

/** One item as it stood at `at`; 404 RECORD_NOT_FOUND when it did not exist then (or was soft-deleted). */
export async function getItemAsOf(app: ItemsReadContext, input: GetItemInput, at: Date): Promise<{ item: Record<string, unknown>; version: number }> {
  return comparingOldValues(() => getItem(app, { ...input, draft: false, source: asOfSource(at) }));
}

/**
 * History keeps the values a field held before its type changed (docs/content.md, "Changing a field's
 * type"), while filters, sorts and aggregates read the field as its type is now: PostgreSQL refusing
 * to read an old value so (SQLSTATE class 22, a failed cast) is the request's problem, not a fault.
 */
async function comparingOldValues<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('22') && !(error instanceof AppError)) {
      throw new AppError('VALIDATION_FAILED', 'At this moment a field held values of its type before a change, which this filter, sort or aggregate cannot read as its type now; filter, sort or aggregate on other fields, or pick a moment after the change', {
        path: ['query', 'asOf'],
      });
    }
    throw error;
  }
}
