// Item pins: which field of which item is held at which revision, from the item-pins streams.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const itemPinsProjection = defineProjection({
  name: 'item_pins',
  mode: 'inline',
  tables: ['item_pins'],
  handlers: {
    'pin.created': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO item_pins (site_id, collection, item_id, field, revision_id, target_collection, target_item_id, created_at, user_created)
        VALUES (${event.siteId}, ${d.collection}, ${d.itemId}, ${d.field}, ${d.revisionId}, ${d.targetCollection}, ${d.targetItemId},
                ${event.recordedAt}, ${event.metadata.actor?.id ?? null})
        ON CONFLICT (site_id, collection, item_id, field) DO UPDATE SET
          revision_id = excluded.revision_id, target_collection = excluded.target_collection,
          target_item_id = excluded.target_item_id, created_at = excluded.created_at, user_created = excluded.user_created`);
    },
    'pin.released': async (tx, event) => {
      const { collection, itemId, field } = event.data;
      await tx.query(sql`
        DELETE FROM item_pins WHERE site_id = ${event.siteId} AND collection = ${collection} AND item_id = ${itemId} AND field = ${field}`);
    },
  },
});
