// The temporal read model behind `?asOf=`: each item event closes the item's open row at the event's
// time and opens a row with the new state, so "the item at t" is the row whose
// [valid_from, valid_to) holds t. A hard delete closes the row and opens none.
import { contentFieldsOf, ITEM_EVENT_TYPES, type ItemEventData } from '../domain/content/versions/itemSnapshot.ts';
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const itemHistoryProjection = defineProjection({
  name: 'item_history',
  mode: 'inline',
  eventTypes: ITEM_EVENT_TYPES,
  tables: ['item_history'],
  async apply(tx, event) {
    const data = event.data as unknown as ItemEventData;
    const at = event.recordedAt;
    // GREATEST: a row never ends before it starts, even if two appends' clocks disagree.
    await tx.query(sql`
      UPDATE item_history SET valid_to = GREATEST(valid_from, ${at}::timestamptz)
       WHERE site_id = ${event.siteId} AND collection = ${data.collection} AND id = ${data.itemId} AND valid_to IS NULL`);
    if (event.type === 'item.hard_deleted') return;
    const snapshot = data.snapshot;
    await tx.query(sql`
      INSERT INTO item_history (site_id, collection, id, status, sort, created_at, updated_at, user_created, user_updated,
                                deleted_at, version, data, valid_from, valid_to)
      VALUES (${event.siteId}, ${data.collection}, ${data.itemId}, ${snapshot.status ?? null}, ${snapshot.sort ?? null},
              ${snapshot.createdAt ?? null}, ${snapshot.updatedAt ?? null}, ${snapshot.userCreated ?? null},
              ${snapshot.userUpdated ?? null}, ${snapshot.deletedAt ?? null}, ${event.streamPosition},
              ${JSON.stringify(contentFieldsOf(snapshot))}::jsonb, ${at}, NULL)
      ON CONFLICT (site_id, collection, id, version) DO NOTHING`);
  },
});
