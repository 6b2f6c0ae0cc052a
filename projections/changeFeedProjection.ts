// The change feed: every content and schema event of the log as a `<resource>.<operation>` entry,
// numbered per site in apply order (= log order), so readers page by a plain sequence. Async: the
// daemon applies it after commit. Each batch tells waiting readers (long-poll, webhook reactor)
// which sites moved, with a notification that is delivered when the batch commits.
import { FEED_EVENT_TYPES, feedEntryOf } from '../domain/changeFeed/feedEntry.ts';
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const CHANGE_FEED_PROJECTION = 'change-feed';

/** Payload of the `svc_checkpoints` notification sent when a site's feed grew. */
export function feedNotificationPayload(siteId: string): string {
  return `${CHANGE_FEED_PROJECTION}:${siteId}`;
}

export const changeFeedProjection = defineProjection({
  name: CHANGE_FEED_PROJECTION,
  mode: 'async',
  eventTypes: FEED_EVENT_TYPES,
  tables: ['cdc_feed', 'cdc_feed_sites'],
  async apply(tx, event) {
    const entry = feedEntryOf(event);
    if (!entry) return;
    const actor = event.metadata.actor;
    // The envelope (docs/change-feed.md) is rendered here, once; the cursor is encodeCursor(seq).
    tx.defer(sql`
      WITH head AS (
        INSERT INTO cdc_feed_sites (site_id, last_seq) VALUES (${event.siteId}, 1)
        ON CONFLICT (site_id) DO UPDATE SET last_seq = cdc_feed_sites.last_seq + 1
        RETURNING last_seq
      )
      INSERT INTO cdc_feed (site_id, seq, position, event_id, type, collection, item_id, occurred_at, envelope)
      SELECT ${event.siteId}, head.last_seq, ${event.position}, ${event.eventId}, ${entry.type}, ${entry.collection}, ${entry.itemId},
             ${event.recordedAt},
             json_build_object(
               'id', ${event.eventId}::uuid,
               'type', ${entry.type}::text,
               'cursor', rtrim(translate(encode(convert_to('f1:' || head.last_seq, 'UTF8'), 'base64'), '+/', '-_'), '='),
               'sequence', head.last_seq,
               'position', ${event.position}::bigint,
               'site', ${event.siteId}::text,
               'occurredAt', to_char(${event.recordedAt}::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'collection', ${entry.collection}::text,
               'itemId', ${entry.itemId}::text,
               'actor', json_build_object('kind', ${actor?.kind ?? 'system'}::text, 'id', ${actor?.id ?? null}::text),
               'requestId', ${event.metadata.requestId ?? null}::text,
               'sourceEvent', ${event.type}::text,
               'snapshot', ${entry.data === null ? null : JSON.stringify(entry.data)}::json,
               'changedKeys', ${entry.changedKeys}::text[])::text
        FROM head`);
    tx.notifyAfterCommit('svc_checkpoints', feedNotificationPayload(event.siteId));
  },
});
