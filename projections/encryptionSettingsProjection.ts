// Each site's encryption settings: the active key, the retired keys and the envelope mode (the
// stream `<siteId>/encryption`). A site without a row uses the key ring's default key, direct mode.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const encryptionSettingsProjection = defineProjection({
  name: 'encryption_settings',
  mode: 'inline',
  tables: ['encryption_settings'],
  handlers: {
    encryption_key_rotated: async (tx, event) => {
      const { keyId, previousKeyId } = event.data;
      await tx.query(sql`
        INSERT INTO encryption_settings (site_id, active_key_id, retired_key_ids, envelope, updated_at)
        VALUES (${event.siteId}, ${keyId}, ARRAY[${previousKeyId}]::text[], false, ${event.recordedAt})
        ON CONFLICT (site_id) DO UPDATE
          SET active_key_id = EXCLUDED.active_key_id,
              retired_key_ids = array_append(array_remove(array_remove(encryption_settings.retired_key_ids, ${keyId}::text), ${previousKeyId}::text), ${previousKeyId}::text),
              updated_at = EXCLUDED.updated_at`);
    },
    envelope_mode_changed: async (tx, event) => {
      await tx.query(sql`
        INSERT INTO encryption_settings (site_id, active_key_id, envelope, updated_at)
        VALUES (${event.siteId}, NULL, ${event.data.enabled}, ${event.recordedAt})
        ON CONFLICT (site_id) DO UPDATE SET envelope = EXCLUDED.envelope, updated_at = EXCLUDED.updated_at`);
    },
  },
});
