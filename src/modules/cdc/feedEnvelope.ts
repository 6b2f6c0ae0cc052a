// The change-feed envelope as clients and webhook receivers see it, and the filter both use.
import { FEED_OPERATIONS, FEED_TYPES } from '../../../domain/changeFeed/feedEntry.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import type { SiteFeedCursors } from './feedCursors.ts';

export interface FeedRow {
  seq: number;
  event_id: string;
  type: string;
  item_id: string | null;
  /** The envelope below as JSON text, as served (servedEnvelope). */
  envelope: string;
}

/**
 * The envelope as clients and webhook receivers see it (docs/change-feed.md). It is stored as JSON
 * text, so a page is sent without re-serializing every entry; only a snapshot read from the log is
 * serialized, into its place in that text.
 */
export interface FeedEnvelope {
  id: string;
  type: string;
  /** Opaque per site (feedCursors.ts). */
  cursor: string;
  sequence: number;
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

/** A cdc_feed row as stored: its envelope says null for a snapshot it leaves to the log. */
export interface StoredFeedRow extends Omit<FeedRow, 'envelope'> {
  stored_envelope: string;
  /** The snapshot read from the source event (snapshot_key of its data); null when the envelope holds it. */
  logged_snapshot: Record<string, unknown> | null;
}

/**
 * cdc_feed (alias `f`) with the source event of each entry that left its snapshot to the log (alias
 * `ev`), by the log's primary key: one probe per entry, in the page's own query.
 */
export const FEED_SOURCE = sql`cdc_feed f LEFT JOIN events ev ON ev.position = f.position AND f.snapshot_key IS NOT NULL`;

/** Columns of FEED_SOURCE for StoredFeedRow. */
export const FEED_ROW_COLUMNS = sql`f.seq, f.event_id, f.type, f.item_id, f.envelope AS stored_envelope, ev.data -> f.snapshot_key AS logged_snapshot`;

/** The snapshot of an entry as jsonb, wherever it is kept (FEED_SOURCE). */
export const FEED_SNAPSHOT_SQL = sql`coalesce(ev.data -> f.snapshot_key, (f.envelope::jsonb)->'snapshot')`;

/**
 * Where a stored envelope leaves the snapshot to the log. The projection renders every envelope
 * with json_build_object, so this text (quotes included) is there once: a quote inside a value is
 * always escaped, so no value can hold it, and changedKeys is the key after snapshot.
 */
const LOGGED_SNAPSHOT_SLOT = '"snapshot" : null, "changedKeys" : ';

/**
 * What the stored envelope says before `site` (the projection renders it with json_build_object):
 * its cursor there is the old readable one and `position` is the event's global log position. Both
 * would tell a reader about other sites' writes (issue 27, finding 11): a page replaces the cursor
 * with the site's opaque one and leaves the position out.
 */
const STORED_HEAD = /^\{"id" : ("[0-9a-f-]{36}"), "type" : ("[a-z_]+\.[a-z_]+"), "cursor" : "[A-Za-z0-9_-]*", "sequence" : (\d+), "position" : \d+, "site" : /;

/**
 * The envelope with the snapshot read from the log put in its place. It is serialized as the
 * projection serialized it before it stopped keeping a copy (JSON.stringify of the event's data as
 * read from the log), so the text is the same as it was.
 */
export function servedEnvelope(row: Pick<StoredFeedRow, 'stored_envelope' | 'logged_snapshot'>): string {
  if (row.logged_snapshot === null) return row.stored_envelope;
  const slot = row.stored_envelope.lastIndexOf(LOGGED_SNAPSHOT_SLOT);
  if (slot < 0) throw new Error('A change-feed envelope that leaves its snapshot to the log has no place for it');
  return `${row.stored_envelope.slice(0, slot)}"snapshot" : ${JSON.stringify(row.logged_snapshot)}, "changedKeys" : ${row.stored_envelope.slice(slot + LOGGED_SNAPSHOT_SLOT.length)}`;
}

/**
 * The envelope as a reader of the site receives it (a page, a webhook): servedEnvelope with the
 * site's opaque cursor and without the global position. Only the head of the text changes.
 */
export function siteEnvelope(row: Pick<StoredFeedRow, 'seq' | 'stored_envelope' | 'logged_snapshot'>, cursors: SiteFeedCursors): string {
  const text = servedEnvelope(row);
  const cursor = cursors.encode(row.seq);
  const head = STORED_HEAD.exec(text);
  if (head && Number(head[3]) === row.seq) {
    return `{"id" : ${head[1]}, "type" : ${head[2]}, "cursor" : "${cursor}", "sequence" : ${head[3]}, "site" : ${text.slice(head[0].length)}`;
  }
  // Not the projection's usual text (rendered by another version): the same fields, through JSON.
  const { position: _position, ...envelope } = JSON.parse(text) as FeedEnvelope & { position?: number };
  return JSON.stringify({ ...envelope, cursor });
}

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
