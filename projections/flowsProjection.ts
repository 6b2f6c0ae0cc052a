// Each site's flows as they are now: content, token hash, next scheduled run.
import type { Queryable } from '../infra/postgres/database.ts';
import { sql } from '../infra/postgres/sql.ts';
import type { StoredEvent } from '../domain/shared/events.ts';
import { defineProjection } from './projection.ts';

async function upsertFlow(tx: Queryable, event: StoredEvent<'flow.created' | 'flow.updated'>, ownerId: string | null): Promise<void> {
  const { flowId, version, flow, nextRunAt } = event.data;
  await tx.query(sql`
    INSERT INTO flows (site_id, id, name, description, status, trigger, trigger_options, graph, act_as, owner_id, next_run_at, version, created_at, updated_at)
    VALUES (${event.siteId}, ${flowId}, ${flow.name}, ${flow.description}, ${flow.status}, ${flow.trigger}, ${JSON.stringify(flow.triggerOptions)}::jsonb,
            ${JSON.stringify(flow.graph)}::jsonb, ${flow.actAs === null ? null : JSON.stringify(flow.actAs)}::jsonb, ${ownerId}::uuid, ${nextRunAt}::timestamptz,
            ${version}, ${event.recordedAt}, ${event.recordedAt})
    ON CONFLICT (site_id, id) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description, status = EXCLUDED.status,
           trigger = EXCLUDED.trigger, trigger_options = EXCLUDED.trigger_options, graph = EXCLUDED.graph, act_as = EXCLUDED.act_as,
           next_run_at = EXCLUDED.next_run_at, version = EXCLUDED.version, updated_at = EXCLUDED.updated_at`);
}

export const flowsProjection = defineProjection({
  name: 'flows',
  mode: 'inline',
  tables: ['flows'],
  handlers: {
    'flow.created': (tx, event) => upsertFlow(tx, event, event.data.ownerId),
    'flow.updated': (tx, event) => upsertFlow(tx, event, null),
    'flow.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM flows WHERE site_id = ${event.siteId} AND id = ${event.data.flowId}`);
    },
    'flow.token_set': async (tx, event) => {
      await tx.query(sql`UPDATE flows SET token_hash = ${event.data.tokenHash}, updated_at = ${event.recordedAt} WHERE site_id = ${event.siteId} AND id = ${event.data.flowId}`);
    },
    'flow.token_cleared': async (tx, event) => {
      await tx.query(sql`UPDATE flows SET token_hash = NULL, updated_at = ${event.recordedAt} WHERE site_id = ${event.siteId} AND id = ${event.data.flowId}`);
    },
    'flow.schedule_fired': async (tx, event) => {
      await tx.query(sql`UPDATE flows SET next_run_at = ${event.data.nextRunAt}::timestamptz WHERE site_id = ${event.siteId} AND id = ${event.data.flowId}`);
    },
  },
});
