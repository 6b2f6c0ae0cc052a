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
    await tx.query(sql`
      WITH head AS (
        INSERT INTO cdc_feed_sites (site_id, last_seq) VALUES (${event.siteId}, 1)
        ON CONFLICT (site_id) DO UPDATE SET last_seq = cdc_feed_sites.last_seq + 1
        RETURNING last_seq
      )
      INSERT INTO cdc_feed (site_id, seq, position, event_id, type, source_type, collection, item_id, actor_kind, actor_id,
                            request_id, occurred_at, data, changed_keys)
      SELECT ${event.siteId}, head.last_seq, ${event.position}, ${event.eventId}, ${entry.type}, ${event.type}, ${entry.collection},
             ${entry.itemId}, ${actor?.kind ?? 'system'}, ${actor?.id ?? null}, ${event.metadata.requestId ?? null}, ${event.recordedAt},
             ${entry.data === null ? null : JSON.stringify(entry.data)}::jsonb, ${entry.changedKeys}::text[]
        FROM head`);
    tx.notifyAfterCommit('svc_checkpoints', feedNotificationPayload(event.siteId));
  },
});
