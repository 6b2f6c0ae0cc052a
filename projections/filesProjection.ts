// Files (one row per stored object) and transform presets of each site.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const filesProjection = defineProjection({
  name: 'files',
  mode: 'inline',
  tables: ['files'],
  handlers: {
    'file.registered': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO files (site_id, id, key, filename, title, type, size, tags, folder, width, height, source, uploaded_by, created_at, updated_at)
        VALUES (${event.siteId}, ${d.fileId}, ${d.key}, ${d.filename}, ${d.title}, ${d.type}, ${d.size}, ${JSON.stringify(d.tags)}::jsonb, ${d.folder},
                ${d.width}::int, ${d.height}::int, ${d.source}, ${event.metadata.actor?.id ?? null}, ${event.recordedAt}, ${event.recordedAt})`);
    },
    'file.updated': async (tx, event) => {
      const { fileId, changes } = event.data;
      await tx.query(sql`
        UPDATE files SET title = CASE WHEN ${changes.title !== undefined}::boolean THEN ${changes.title ?? null}::text ELSE title END,
               tags = coalesce(${changes.tags === undefined ? null : JSON.stringify(changes.tags)}::jsonb, tags),
               folder = CASE WHEN ${changes.folder !== undefined}::boolean THEN ${changes.folder ?? null}::text ELSE folder END,
               updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${fileId}`);
    },
    'file.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM files WHERE site_id = ${event.siteId} AND id = ${event.data.fileId}`);
    },
  },
});

export const transformPresetsProjection = defineProjection({
  name: 'transform-presets',
  mode: 'inline',
  tables: ['transform_presets'],
  handlers: {
    'transform_preset.created': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO transform_presets (site_id, id, key, name, dsl, created_at, updated_at)
        VALUES (${event.siteId}, ${d.presetId}, ${d.key}, ${d.name}, ${JSON.stringify(d.dsl)}::jsonb, ${event.recordedAt}, ${event.recordedAt})`);
    },
    'transform_preset.updated': async (tx, event) => {
      const { presetId, changes } = event.data;
      await tx.query(sql`
        UPDATE transform_presets SET key = coalesce(${changes.key ?? null}::text, key), name = coalesce(${changes.name ?? null}::text, name),
               dsl = coalesce(${changes.dsl === undefined ? null : JSON.stringify(changes.dsl)}::jsonb, dsl), updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${presetId}`);
    },
    'transform_preset.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM transform_presets WHERE site_id = ${event.siteId} AND id = ${event.data.presetId}`);
    },
  },
});
