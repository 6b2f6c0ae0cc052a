// Item revisions: one row per item event, with the whole item after the change (snapshot), what
// changed (delta), who and when. `revision_id` is the event id. Inline: a write's revision is visible at once.
import { ITEM_EVENT_TYPES, isStagedCause, type ItemEventData } from '../domain/content/versions/itemSnapshot.ts';
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const revisionsProjection = defineProjection({
  name: 'item_revisions',
  mode: 'inline',
  eventTypes: ITEM_EVENT_TYPES,
  tables: ['item_revisions'],
  async apply(tx, event) {
    const data = event.data as unknown as ItemEventData;
    const { actor, requestId } = event.metadata;
    const cause = data.cause ?? null;
    await tx.query(sql`
      INSERT INTO item_revisions (site_id, revision_id, collection, item_id, version, event_type, snapshot, delta, cause, draft, staged,
                                  actor_kind, actor_id, request_id, position, recorded_at)
      VALUES (${event.siteId}, ${event.eventId}, ${data.collection}, ${data.itemId}, ${event.streamPosition}, ${event.type},
              ${JSON.stringify(data.snapshot ?? {})}::jsonb, ${JSON.stringify(data.delta ?? {})}::jsonb,
              ${cause === null ? null : JSON.stringify(cause)}::jsonb, ${data.draft ? JSON.stringify(data.draft) : null}::jsonb,
              ${isStagedCause(cause)},
              ${actor?.kind ?? 'system'}, ${actor?.id ?? null}, ${requestId ?? null}, ${event.position}, ${event.recordedAt})
      ON CONFLICT DO NOTHING`);
  },
});
