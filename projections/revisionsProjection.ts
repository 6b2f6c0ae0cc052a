// Item revisions: one row per item event, with the whole item after the change (snapshot), what
// changed (delta), who and when. `revision_id` is the event id. Inline: a write's revision is visible at once.
import type { ItemEventType } from '../domain/content/events.ts';
import { ITEM_EVENT_TYPES, isStagedCause } from '../domain/content/versions/itemSnapshot.ts';
import type { StoredEvent } from '../domain/shared/events.ts';
import type { Queryable } from '../infra/postgres/database.ts';
import { prepared, sql } from '../infra/postgres/sql.ts';
import { defineProjection, sameHandler } from './projection.ts';

type ItemStoredEvent = StoredEvent<ItemEventType>;

function rowOf(event: ItemStoredEvent) {
  const data = event.data;
  const cause = data.cause ?? null;
  return {
    site_id: event.siteId,
    revision_id: event.eventId,
    collection: data.collection,
    item_id: data.itemId,
    version: event.streamPosition,
    event_type: event.type,
    snapshot: data.snapshot,
    delta: data.delta,
    cause,
    draft: data.draft ?? null,
    staged: isStagedCause(cause),
    actor_kind: event.metadata.actor?.kind ?? 'system',
    actor_id: event.metadata.actor?.id ?? null,
    request_id: event.metadata.requestId ?? null,
    position: event.position,
    recorded_at: event.recordedAt.toISOString(),
  };
}

async function insertRows(tx: Queryable, events: readonly ItemStoredEvent[]): Promise<void> {
  tx.defer(prepared(sql`
    INSERT INTO item_revisions (site_id, revision_id, collection, item_id, version, event_type, snapshot, delta, cause, draft, staged,
                                actor_kind, actor_id, request_id, position, recorded_at)
    SELECT r.site_id, r.revision_id, r.collection, r.item_id, r.version, r.event_type, r.snapshot, r.delta, r.cause, r.draft, r.staged,
           r.actor_kind, r.actor_id, r.request_id, r.position, r.recorded_at
      FROM jsonb_to_recordset(${JSON.stringify(events.map(rowOf))}::jsonb) AS r(
        site_id text, revision_id uuid, collection text, item_id text, version integer, event_type text, snapshot jsonb,
        delta jsonb, cause jsonb, draft jsonb, staged boolean, actor_kind text, actor_id text, request_id text,
        position bigint, recorded_at timestamptz)
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
