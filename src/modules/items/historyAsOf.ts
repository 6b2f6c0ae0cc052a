// Time travel: `GET /items/:collection[/:id]?asOf=<ISO time>` runs the content module's own list and
// get queries over `items_as_of` (a view of item_history at the transaction's `svc.as_of`) instead
// of `items`, so filters, sorts, field selections, relations and aggregates behave as they do live.
import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError } from '../../../domain/shared/appError.ts';
import type { Database } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { ItemSource } from './itemSource.ts';
import { getItem, listItems, type GetItemInput, type ListItemsInput, type ListItemsResult } from './queries.ts';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/i;

/** Parses `asOf`: an ISO 8601 date (UTC midnight) or date-time with a zone; else 400 at ['query','asOf']. */
export function parseAsOf(text: unknown): Date {
  const value = typeof text === 'string' ? text.trim() : '';
  const at = ISO_TIME.test(value) ? new Date(value) : null;
  if (!at || Number.isNaN(at.getTime())) {
    throw new AppError('VALIDATION_FAILED', 400, 'asOf must be an ISO 8601 date or date-time with a time zone, e.g. 2024-05-01T12:00:00Z', {
      path: ['query', 'asOf'],
    });
  }
  return at;
}

/** The moment of the current request's asOf read, seen by the transactions it opens. */
const asOfMoment = new AsyncLocalStorage<string>();
const asOfContexts = new WeakMap<AppContext, AppContext>();

/**
 * The app context whose site reads see `svc.as_of` set to the moment of the running asOf read: each
 * read statement runs in its own transaction (withSiteReads), so the setting travels with each one,
 * in the same round trip. One per app context (so per-context caches, such as the schema cache, are
 * made once).
 */
function asOfContext(app: AppContext): AppContext {
  let context = asOfContexts.get(app);
  if (!context) {
    const database: Database = {
      ...app.database,
      withSiteReads: (siteId, work) =>
        app.database.withSiteReads(siteId, (tx) => {
          const moment = asOfMoment.getStore();
          if (!moment) return work(tx);
          return work({
            ...tx,
            query: (query) => {
              tx.defer(sql`SELECT set_config('svc.as_of', ${moment}, true)`);
              return tx.query(query);
            },
          });
        }),
    };
    context = { ...app, database };
    asOfContexts.set(app, context);
  }
  return context;
}

/** The view filters item_history by the transaction's `svc.as_of` (GiST-indexed range test). */
const AS_OF_SOURCE: ItemSource = { table: 'items_as_of' };

/** A page of the collection's items as they stood at `at` (same list parameters as a live list). */
export async function listItemsAsOf(app: AppContext, input: ListItemsInput, at: Date): Promise<ListItemsResult> {
  return asOfMoment.run(at.toISOString(), () => listItems(asOfContext(app), { ...input, draft: false, source: AS_OF_SOURCE }));
}

/** One item as it stood at `at`; 404 RECORD_NOT_FOUND when it did not exist then (or was soft-deleted). */
export async function getItemAsOf(app: AppContext, input: GetItemInput, at: Date): Promise<{ item: Record<string, unknown>; version: number }> {
  return asOfMoment.run(at.toISOString(), () => getItem(asOfContext(app), { ...input, draft: false, source: AS_OF_SOURCE }));
}
