// Each site's git integrations as they are now, the webhook deliveries each accepted (so a replayed
// delivery id is found) and the intents its gitops syncs keep in step with the repository
// (docs/integrations.md "Git integration"). A disconnect takes the integration's rows with it.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const gitIntegrationsProjection = defineProjection({
  name: 'git-integrations',
  mode: 'inline',
  tables: ['git_integrations', 'git_webhook_deliveries', 'git_gitops_intents'],
  handlers: {
    'git_integration.connected': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO git_integrations (site_id, id, provider, repo_full_name, display_name, auth_method, token, installation_id,
                                      webhook_secret, status, sync_config, created_at, updated_at)
        VALUES (${event.siteId}, ${d.integrationId}, ${d.provider}, ${d.repoFullName}, ${d.displayName}, ${d.authMethod}, ${d.token},
                ${d.installationId}, ${d.webhookSecret}, 'active', ${JSON.stringify(d.syncConfig)}::jsonb, ${event.recordedAt}, ${event.recordedAt})`);
    },
    'git_integration.updated': async (tx, event) => {
      const { integrationId, changes: c } = event.data;
      await tx.query(sql`
        UPDATE git_integrations
           SET display_name = coalesce(${c.displayName ?? null}::text, display_name),
               status = coalesce(${c.status ?? null}::text, status),
               sync_config = coalesce(${c.syncConfig === undefined ? null : JSON.stringify(c.syncConfig)}::jsonb, sync_config),
               auth_method = coalesce(${c.authMethod ?? null}::text, auth_method),
               token = coalesce(${c.token ?? null}::text, token),
               installation_id = CASE WHEN ${c.installationId !== undefined} THEN ${c.installationId ?? null}::text ELSE installation_id END,
               updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${integrationId}`);
    },
    'git_integration.secret_rotated': async (tx, event) => {
      await tx.query(sql`
        UPDATE git_integrations SET webhook_secret = ${event.data.webhookSecret}, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${event.data.integrationId}`);
    },
    'git_integration.disconnected': async (tx, event) => {
      const { integrationId } = event.data;
      await tx.query(sql`DELETE FROM git_integrations WHERE site_id = ${event.siteId} AND id = ${integrationId}`);
      await tx.query(sql`DELETE FROM git_webhook_deliveries WHERE site_id = ${event.siteId} AND integration_id = ${integrationId}`);
      await tx.query(sql`DELETE FROM git_gitops_intents WHERE site_id = ${event.siteId} AND integration_id = ${integrationId}`);
    },
    'git_webhook.received': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO git_webhook_deliveries (site_id, integration_id, delivery_id, event, action, pull_request, outcome, received_at)
        VALUES (${event.siteId}, ${d.integrationId}, ${d.deliveryId}, ${d.event}, ${d.action}, ${d.pullRequest}, ${d.outcome}, ${event.recordedAt})`);
    },
    'git_integration.gitops_synced': async (tx, event) => {
      const d = event.data;
      for (const { key, intentId } of d.created) {
        await tx.query(sql`
          INSERT INTO git_gitops_intents (site_id, integration_id, key, intent_id) VALUES (${event.siteId}, ${d.integrationId}, ${key}, ${intentId})
          ON CONFLICT (site_id, integration_id, key) DO UPDATE SET intent_id = EXCLUDED.intent_id`);
      }
      if (d.closed.length > 0) {
        await tx.query(sql`DELETE FROM git_gitops_intents WHERE site_id = ${event.siteId} AND integration_id = ${d.integrationId} AND key = ANY(${d.closed}::text[])`);
      }
    },
  },
});
