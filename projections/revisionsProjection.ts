// Item revisions: one row per item event: which version, who and when. `revision_id` is the event id.
// The content (the whole item after the change, what changed, the cause, the draft) is the event's
// data, which reads take from the log by `position` (src/modules/items/historyQueries.ts): it is not
// copied here. Inline: a write's revision is visible at once.
import type { ItemEventType } from '../domain/content/events.ts';
import { ITEM_EVENT_TYPES, isStagedCause } from '../domain/content/versions/itemSnapshot.ts';
import type { StoredEvent } from '../domain/shared/events.ts';
import type { Queryable } from '../infra/postgres/database.ts';
import { prepared, sql } from '../infra/postgres/sql.ts';
import { defineProjection, sameHandler } from './projection.ts';

type ItemStoredEvent = StoredEvent<ItemEventType>;

function rowOf(event: ItemStoredEvent) {
  const data = event.data;
  return {
    site_id: event.siteId,
    revision_id: event.eventId,
    collection: data.collection,
    item_id: data.itemId,
    version: event.streamPosition,
    event_type: event.type,
    staged: isStagedCause(data.cause),
    actor_kind: event.metadata.actor?.kind ?? 'system',
    actor_id: event.metadata.actor?.id ?? null,
    request_id: event.metadata.requestId ?? null,
    position: event.position,
    recorded_at: event.recordedAt.toISOString(),
  };
}

async function insertRows(tx: Queryable, events: readonly ItemStoredEvent[]): Promise<void> {
  tx.defer(prepared(sql`
    INSERT INTO item_revisions (site_id, revision_id, collection, item_id, version, event_type, staged,
                                actor_kind, actor_id, request_id, position, recorded_at)
    SELECT r.site_id, r.revision_id, r.collection, r.item_id, r.version, r.event_type, r.staged,
           r.actor_kind, r.actor_id, r.request_id, r.position, r.recorded_at
      FROM jsonb_to_recordset(${JSON.stringify(events.map(rowOf))}::jsonb) AS r(
        site_id text, revision_id uuid, collection text, item_id text, version integer, event_type text,
        staged boolean, actor_kind text, actor_id text, request_id text, position bigint, recorded_at timestamptz)
    ON CONFLICT DO NOTHING`));
}

export const revisionsProjection = defineProjection({
  name: 'item_revisions',
  mode: 'inline',
  tables: ['item_revisions'],
  handlers: sameHandler(ITEM_EVENT_TYPES, (tx, event) => insertRows(tx, [event])),
  // Rows do not depend on each other: a bulk create is one statement.
  applyBatch: insertRows,
});
