// Each site's view presets as they are now (docs/presets.md). A deleted collection, user or role takes
// its presets with it: what only it could see, or what views a collection that is gone, is dropped.
import type { Queryable } from '../infra/postgres/database.ts';
import { sql } from '../infra/postgres/sql.ts';
import type { StoredEvent } from '../domain/shared/events.ts';
import { defineProjection } from './projection.ts';

async function writePreset(tx: Queryable, event: StoredEvent<'preset.created' | 'preset.updated'>): Promise<void> {
  const { presetId, preset } = event.data;
  await tx.query(sql`
    INSERT INTO presets (site_id, id, collection, bookmark, user_id, role_id, layout, query, options, icon, color, created_at, updated_at)
    VALUES (${event.siteId}, ${presetId}, ${preset.collection}, ${preset.bookmark}, ${preset.userId}::uuid, ${preset.roleId}::uuid, ${preset.layout},
            ${JSON.stringify(preset.query)}::jsonb, ${JSON.stringify(preset.options)}::jsonb, ${preset.icon}, ${preset.color}, ${event.recordedAt}, ${event.recordedAt})
    ON CONFLICT (site_id, id) DO UPDATE SET collection = EXCLUDED.collection, bookmark = EXCLUDED.bookmark, user_id = EXCLUDED.user_id,
           role_id = EXCLUDED.role_id, layout = EXCLUDED.layout, query = EXCLUDED.query, options = EXCLUDED.options,
           icon = EXCLUDED.icon, color = EXCLUDED.color, updated_at = EXCLUDED.updated_at`);
}

export const presetsProjection = defineProjection({
  name: 'presets',
  mode: 'inline',
  tables: ['presets'],
  maintainers: [
    {
      table: 'presets',
      writer: 'scripts/bench/support/insightsPresets.ts (seeding)',
      why: 'the presets benchmark seeds 100,000 presets straight into its scratch database before it times effective and bookmark lookups.',
    },
  ],
  handlers: {
    'preset.created': writePreset,
    'preset.updated': writePreset,
    'preset.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM presets WHERE site_id = ${event.siteId} AND id = ${event.data.presetId}`);
    },
    'collection.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM presets WHERE site_id = ${event.siteId} AND collection = ${event.data.collection}`);
    },
    'user.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM presets WHERE site_id = ${event.siteId} AND scope_key = ${`u:${event.data.userId}`}`);
    },
    'role.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM presets WHERE site_id = ${event.siteId} AND scope_key = ${`r:${event.data.roleId}`}`);
    },
  },
});
