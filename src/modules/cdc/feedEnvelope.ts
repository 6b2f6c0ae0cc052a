// The change-feed envelope as clients and webhook receivers see it, and the filter both use.
import { FEED_OPERATIONS, FEED_TYPES } from '../../../domain/changeFeed/feedEntry.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';

export interface FeedRow {
  seq: number;
  event_id: string;
  type: string;
  item_id: string | null;
  /** The envelope below as JSON text (rendered by PostgreSQL when the entry was projected). */
  envelope: string;
}

/**
 * The envelope as clients and webhook receivers see it (docs/change-feed.md). It is stored as JSON
 * text, so a page is sent without parsing and re-serializing every snapshot.
 */
export interface FeedEnvelope {
  id: string;
  type: string;
  cursor: string;
  sequence: number;
  position: number;
  site: string;
  occurredAt: string;
  collection: string | null;
  itemId: string | null;
  actor: { kind: string; id: string | null };
  requestId: string | null;
  sourceEvent: string;
  snapshot: Record<string, unknown> | null;
  changedKeys: string[];
}

/** Columns of a cdc_feed row (alias `f`) for FeedRow. */
export const FEED_ROW_COLUMNS = sql`f.seq, f.event_id, f.type, f.item_id, f.envelope`;

/** Which entries a reader wants: null = all. Operations are `create`, or a full type such as `items.create`. */
export interface FeedFilter {
  collections: string[] | null;
  operations: string[] | null;
}

const COLLECTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Parses the CSV query parameters; a bad value is a 400 naming the parameter. */
export function parseFeedFilter(query: { collections?: string; operations?: string }): FeedFilter {
  return {
    collections: parseList(query.collections, ['query', 'collections'], (value) => COLLECTION_NAME.test(value), 'a collection name'),
    operations: parseOperations(query.operations, ['query', 'operations']),
  };
}

export function parseOperations(value: string | string[] | undefined, path: (string | number)[]): string[] | null {
  return parseList(
    value,
    path,
    (operation) => (FEED_OPERATIONS as readonly string[]).includes(operation) || (FEED_TYPES as readonly string[]).includes(operation),
    `one of ${FEED_OPERATIONS.join(', ')} or a type such as items.create`,
  );
}

export function parseCollections(value: string | string[] | undefined, path: (string | number)[]): string[] | null {
  return parseList(value, path, (name) => COLLECTION_NAME.test(name), 'a collection name');
}

function parseList(value: string | string[] | undefined, path: (string | number)[], valid: (entry: string) => boolean, expected: string): string[] | null {
  if (value === undefined) return null;
  const entries = (Array.isArray(value) ? value : value.split(',')).map((entry) => entry.trim()).filter(Boolean);
  if (entries.length === 0) return null;
  const bad = entries.find((entry) => !valid(entry));
  if (bad !== undefined) throw new AppError('VALIDATION_FAILED', `"${bad}" is not ${expected}`, { path });
  return [...new Set(entries)];
}

/**
 * The sequences a page may come from (alias `f`). A site's sequences are dense above the pruned
 * prefix, so an unfiltered page of n entries is exactly the next n sequences: saying so keeps the
 * plan an index range read even when the planner's statistics are stale (a freshly filled feed).
 * `everyEntry` false: the reader's view leaves entries out, so the page may reach further.
 */
export function feedRangeSql(afterSeq: number, count: number, filter: FeedFilter, everyEntry = true): SqlFragment {
  const unfiltered = everyEntry && filter.collections === null && filter.operations === null;
  return unfiltered ? sql`f.seq > ${afterSeq} AND f.seq <= ${afterSeq + count}` : sql`f.seq > ${afterSeq}`;
}

/** SQL conditions for a filter over cdc_feed (alias `f`). */
export function feedFilterSql(filter: FeedFilter): SqlFragment {
  const collections = filter.collections === null ? sql`true` : sql`f.collection = ANY(${filter.collections}::text[])`;
  if (filter.operations === null) return collections;
  const bare = filter.operations.filter((operation) => !operation.includes('.'));
  const types = filter.operations.filter((operation) => operation.includes('.'));
  return sql`${collections} AND (f.type = ANY(${types}::text[]) OR split_part(f.type, '.', 2) = ANY(${bare}::text[]))`;
}
