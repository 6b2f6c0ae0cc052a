// Named versions (drafts) of items, from the item-version streams: one row per live version.
import { VERSION_EVENT_TYPES, type VersionEvent } from '../domain/content/versions/events.ts';
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const itemVersionsProjection = defineProjection({
  name: 'item_versions',
  mode: 'inline',
  eventTypes: VERSION_EVENT_TYPES,
  tables: ['item_versions'],
  async apply(tx, event) {
    const typed = { type: event.type, data: event.data } as VersionEvent;
    const actor = event.metadata.actor?.id ?? null;
    const at = event.recordedAt;
    const { collection, itemId, key } = typed.data;
    const where = sql`site_id = ${event.siteId} AND collection = ${collection} AND item_id = ${itemId} AND key = ${key}`;
    switch (typed.type) {
      case 'version.created': {
        const d = typed.data;
        await tx.query(sql`
          INSERT INTO item_versions (site_id, collection, item_id, key, name, data, base_data, base_version, version, created_at,
                                     updated_at, user_created, user_updated, promoted_at)
          VALUES (${event.siteId}, ${collection}, ${itemId}, ${key}, ${d.name}, ${JSON.stringify(d.data)}::jsonb,
                  ${JSON.stringify(d.data)}::jsonb, ${d.baseVersion},
                  ${event.streamPosition}, ${at}, ${at}, ${actor}, ${actor}, NULL)
          ON CONFLICT (site_id, collection, item_id, key) DO UPDATE SET
            name = excluded.name, data = excluded.data, base_data = excluded.base_data, base_version = excluded.base_version, version = excluded.version,
            created_at = excluded.created_at, updated_at = excluded.updated_at, user_created = excluded.user_created,
            user_updated = excluded.user_updated, promoted_at = NULL`);
        return;
      }
      case 'version.updated': {
        const d = typed.data;
        await tx.query(sql`
          UPDATE item_versions SET name = coalesce(${d.name ?? null}, name),
                 data = coalesce(${d.data === undefined ? null : JSON.stringify(d.data)}::jsonb, data),
                 version = ${event.streamPosition}, updated_at = ${at}, user_updated = ${actor}
           WHERE ${where}`);
        return;
      }
      case 'version.deleted':
        await tx.query(sql`DELETE FROM item_versions WHERE ${where}`);
        return;
      case 'version.promoted': {
        const main = JSON.stringify(typed.data.data);
        await tx.query(sql`
          UPDATE item_versions SET data = ${main}::jsonb, base_data = ${main}::jsonb, base_version = ${typed.data.mainVersion}, version = ${event.streamPosition},
                 promoted_at = ${at}, updated_at = ${at}, user_updated = ${actor}
           WHERE ${where}`);
        return;
      }
    }
  },
});
