// Named versions (drafts) of items, from the item-version streams: one row per live version.
import type { StoredEvent } from '../domain/shared/events.ts';
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

/** The row of the version an event is about. */
function versionRow(event: StoredEvent<'version.created' | 'version.updated' | 'version.deleted' | 'version.promoted'>) {
  const { collection, itemId, key } = event.data;
  return sql`site_id = ${event.siteId} AND collection = ${collection} AND item_id = ${itemId} AND key = ${key}`;
}

export const itemVersionsProjection = defineProjection({
  name: 'item_versions',
  mode: 'inline',
  tables: ['item_versions'],
  handlers: {
    'version.created': async (tx, event) => {
      const d = event.data;
      const actor = event.metadata.actor?.id ?? null;
      const at = event.recordedAt;
      await tx.query(sql`
        INSERT INTO item_versions (site_id, collection, item_id, key, name, data, base_data, base_version, version, created_at,
                                   updated_at, user_created, user_updated, promoted_at)
        VALUES (${event.siteId}, ${d.collection}, ${d.itemId}, ${d.key}, ${d.name}, ${JSON.stringify(d.data)}::jsonb,
                ${JSON.stringify(d.data)}::jsonb, ${d.baseVersion},
                ${event.streamPosition}, ${at}, ${at}, ${actor}, ${actor}, NULL)
        ON CONFLICT (site_id, collection, item_id, key) DO UPDATE SET
          name = excluded.name, data = excluded.data, base_data = excluded.base_data, base_version = excluded.base_version, version = excluded.version,
          created_at = excluded.created_at, updated_at = excluded.updated_at, user_created = excluded.user_created,
          user_updated = excluded.user_updated, promoted_at = NULL`);
    },
    'version.updated': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        UPDATE item_versions SET name = coalesce(${d.name ?? null}, name),
               data = coalesce(${d.data === undefined ? null : JSON.stringify(d.data)}::jsonb, data),
               version = ${event.streamPosition}, updated_at = ${event.recordedAt}, user_updated = ${event.metadata.actor?.id ?? null}
         WHERE ${versionRow(event)}`);
    },
    'version.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM item_versions WHERE ${versionRow(event)}`);
    },
    'version.promoted': async (tx, event) => {
      const main = JSON.stringify(event.data.data);
      const at = event.recordedAt;
      await tx.query(sql`
        UPDATE item_versions SET data = ${main}::jsonb, base_data = ${main}::jsonb, base_version = ${event.data.mainVersion}, version = ${event.streamPosition},
               promoted_at = ${at}, updated_at = ${at}, user_updated = ${event.metadata.actor?.id ?? null}
         WHERE ${versionRow(event)}`);
    },
  },
});
