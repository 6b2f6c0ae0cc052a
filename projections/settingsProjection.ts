// A site's settings: one row per key it has set (the defaults of known keys are not stored).
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const settingsProjection = defineProjection({
  name: 'settings',
  mode: 'inline',
  tables: ['settings'],
  handlers: {
    'setting.set': async (tx, event) => {
      tx.defer(sql`
        INSERT INTO settings (site_id, key, value) VALUES (${event.siteId}, ${event.data.key}, ${JSON.stringify(event.data.value)}::jsonb)
        ON CONFLICT (site_id, key) DO UPDATE SET value = excluded.value`);
    },
    'setting.removed': async (tx, event) => {
      tx.defer(sql`DELETE FROM settings WHERE site_id = ${event.siteId} AND key = ${event.data.key}`);
    },
  },
});
