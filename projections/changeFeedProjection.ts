// The change feed: every content and schema event of the log as a `<resource>.<operation>` entry,
// numbered per site in apply order (= log order), so readers page by a plain sequence. Async: the
// daemon applies it after commit. Each batch tells waiting readers (long-poll, webhook reactor)
// which sites moved, with a notification that is delivered when the batch commits. An item's
// snapshot (a field's definition) is not copied: the entry points at it in the log (issue #16).
import { FEED_EVENT_TYPES, feedEntryOf } from '../domain/changeFeed/feedEntry.ts';
import { EVENT_TYPES } from '../domain/shared/eventCatalogue.ts';
import type { StoredEvent } from '../domain/shared/events.ts';
import type { Queryable } from '../infra/postgres/database.ts';
import { prepared, sql } from '../infra/postgres/sql.ts';
import { defineProjection, sameHandler } from './projection.ts';

export const CHANGE_FEED_PROJECTION = 'change-feed';

/** Payload of the `svc_checkpoints` notification sent when a site's feed grew. */
export function feedNotificationPayload(siteId: string): string {
  return `${CHANGE_FEED_PROJECTION}:${siteId}`;
}

function rowOf(event: StoredEvent) {
  const entry = feedEntryOf(event);
  if (!entry) return null;
  const actor = event.metadata.actor;
  return {
    position: event.position,
    event_id: event.eventId,
    type: entry.type,
    collection: entry.collection,
    item_id: entry.itemId,
    occurred_at: event.recordedAt.toISOString(),
    actor_kind: actor?.kind ?? 'system',
    actor_id: actor?.id ?? null,
    request_id: event.metadata.requestId ?? null,
    source_event: event.type,
    // Text, parsed as json (not jsonb) below, so the envelope keeps the snapshot's key order. Sent
    // even when the log holds it: the statement keeps it when the log's row is not the data seen here.
    snapshot: entry.data === null ? null : JSON.stringify(entry.data),
    snapshot_key: entry.dataKey,
    schema_version: event.schemaVersion,
    changed_keys: entry.changedKeys,
  };
}

/**
 * Appends the feed entries of events of one site in one statement: the site's head moves by their
 * count and each entry takes the next sequence in log order.
 */
async function appendEntries(tx: Queryable, events: readonly StoredEvent[]): Promise<void> {
  const rows = events.map(rowOf).filter((row) => row !== null);
  if (rows.length === 0) return;
  const siteId = events[0]!.siteId;
  // The envelope (docs/change-feed.md) is rendered here, once; the cursor is encodeCursor(seq). An
  // entry whose snapshot is a part of its event's data as stored leaves it to the log: its envelope
  // says null there, snapshot_key names the part, and readers put it back (feedEnvelope.ts). The log
  // row is read as stored, not upcast, so an event that an upcaster lifted (its stored version is
  // not the one seen here) keeps its snapshot in the envelope. The positions are a materialized
  // column before the join: under row-level security a join condition that computes them from the
  // JSON (`->>` is not leakproof) cannot probe the events' primary key, and PostgreSQL scanned the
  // whole log for every batch (120 ms per batch of 50 at 100,000 articles).
  tx.defer(prepared(sql`
    WITH head AS (
      INSERT INTO cdc_feed_sites (site_id, last_seq) VALUES (${siteId}, ${rows.length})
      ON CONFLICT (site_id) DO UPDATE SET last_seq = cdc_feed_sites.last_seq + ${rows.length}
      RETURNING last_seq - ${rows.length} AS before_seq
    ), input AS MATERIALIZED (
      SELECT r.value AS entry, r.ordinal, (r.value->>'position')::bigint AS position
        FROM jsonb_array_elements(${JSON.stringify(rows)}::jsonb) WITH ORDINALITY AS r(value, ordinal)
    ), entries AS (
      SELECT head.before_seq + i.ordinal AS seq, i.entry,
             CASE WHEN ev.schema_version = (i.entry->>'schema_version')::integer THEN i.entry->>'snapshot_key' END AS snapshot_key
        FROM head, input i
        LEFT JOIN events ev ON ev.position = i.position AND i.entry->>'snapshot_key' IS NOT NULL
    )
    INSERT INTO cdc_feed (site_id, seq, position, event_id, type, collection, item_id, occurred_at, envelope, snapshot_key)
    SELECT ${siteId}, e.seq, (e.entry->>'position')::bigint, (e.entry->>'event_id')::uuid, e.entry->>'type', e.entry->>'collection',
           e.entry->>'item_id', (e.entry->>'occurred_at')::timestamptz,
           json_build_object(
             'id', (e.entry->>'event_id')::uuid,
             'type', e.entry->>'type',
             'cursor', rtrim(translate(encode(convert_to('f1:' || e.seq, 'UTF8'), 'base64'), '+/', '-_'), '='),
             'sequence', e.seq,
             'position', (e.entry->>'position')::bigint,
             'site', ${siteId}::text,
             'occurredAt', to_char((e.entry->>'occurred_at')::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'collection', e.entry->>'collection',
             'itemId', e.entry->>'item_id',
             'actor', json_build_object('kind', e.entry->>'actor_kind', 'id', e.entry->>'actor_id'),
             'requestId', e.entry->>'request_id',
             'sourceEvent', e.entry->>'source_event',
             'snapshot', CASE WHEN e.snapshot_key IS NULL THEN (e.entry->>'snapshot')::json END,
             'changedKeys', ARRAY(SELECT jsonb_array_elements_text(e.entry->'changed_keys')))::text,
           e.snapshot_key
      FROM entries e`));
  tx.notifyAfterCommit('svc_checkpoints', feedNotificationPayload(siteId));
}

/** The log's event types that become feed entries (domain/changeFeed/feedEntry.ts maps them). */
const FEED_SOURCE_TYPES = EVENT_TYPES.filter((type) => FEED_EVENT_TYPES.includes(type));

export const changeFeedProjection = defineProjection({
  name: CHANGE_FEED_PROJECTION,
  mode: 'async',
  // The envelope is rendered per entry: about twice the audit log's cost per batch (see search's cost).
  cost: 2,
  tables: ['cdc_feed', 'cdc_feed_sites'],
  maintainers: [
    {
      table: 'cdc_feed',
      writer: 'src/modules/cdc/retention.ts (pruneSiteChangeFeed)',
      why: 'retention (SVC_CDC_RETENTION): removes entries older than the horizon, at most 50,000 per site and run.',
    },
    {
      table: 'cdc_feed_sites',
      writer: 'src/modules/cdc/retention.ts (pruneSiteChangeFeed)',
      why: 'moves the site\'s pruned_through with each prune, so that older cursors answer 410 CURSOR_EXPIRED.',
    },
  ],
  handlers: sameHandler(FEED_SOURCE_TYPES, (tx, event) => appendEntries(tx, [event])),
  applyBatch: appendEntries,
});
