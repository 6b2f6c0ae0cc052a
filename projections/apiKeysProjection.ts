// API keys of each site: their hash (for lookup), binding and state. Last use is kept apart, in
// api_key_usage (see the migration): it is telemetry, not a fact of the log.
import type { ApiKeyEvent } from '../domain/identity/apiKey.ts';
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const apiKeysProjection = defineProjection({
  name: 'api_keys',
  mode: 'inline',
  eventTypes: ['api_key.created', 'api_key.revoked'],
  tables: ['api_keys'],
  async apply(tx, event) {
    const typed = { type: event.type, data: event.data } as ApiKeyEvent;
    switch (typed.type) {
      case 'api_key.created': {
        const d = typed.data;
        await tx.query(sql`
          INSERT INTO api_keys (site_id, id, name, key_hash, prefix, user_id, role_id, created_by, created_at)
          VALUES (${event.siteId}, ${d.apiKeyId}, ${d.name}, ${d.keyHash}, ${d.prefix}, ${d.userId}, ${d.roleId},
                  ${event.metadata.actor?.id ?? null}, ${event.recordedAt})`);
        return;
      }
      case 'api_key.revoked':
        await tx.query(sql`UPDATE api_keys SET revoked_at = ${event.recordedAt} WHERE site_id = ${event.siteId} AND id = ${typed.data.apiKeyId}`);
        return;
    }
  },
});
