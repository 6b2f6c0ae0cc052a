// API keys of each site: their hash (for lookup), binding and state. Last use is kept apart, in
// api_key_usage (see the migration): it is telemetry, not a fact of the log. A key created or revoked
// is announced on the identity channel, so every instance's cached key checks drop the site.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';
import { IDENTITY_CHANNEL } from './usersProjection.ts';

export const apiKeysProjection = defineProjection({
  name: 'api_keys',
  mode: 'inline',
  tables: ['api_keys'],
  handlers: {
    'api_key.created': async (tx, event) => {
      tx.notifyAfterCommit(IDENTITY_CHANNEL, event.siteId);
      const d = event.data;
      await tx.query(sql`
        INSERT INTO api_keys (site_id, id, name, key_hash, prefix, user_id, role_id, created_by, created_at, expires_at)
        VALUES (${event.siteId}, ${d.apiKeyId}, ${d.name}, ${d.keyHash}, ${d.prefix}, ${d.userId}, ${d.roleId},
                ${event.metadata.actor?.id ?? null}, ${event.recordedAt}, ${d.expiresAt ?? null})`);
    },
    'api_key.revoked': async (tx, event) => {
      tx.notifyAfterCommit(IDENTITY_CHANNEL, event.siteId);
      await tx.query(sql`UPDATE api_keys SET revoked_at = ${event.recordedAt} WHERE site_id = ${event.siteId} AND id = ${event.data.apiKeyId}`);
    },
  },
});
