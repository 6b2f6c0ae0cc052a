// Each site's agent intents as they are now (docs/agent-goals.md).
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const agentIntentsProjection = defineProjection({
  name: 'agent-intents',
  mode: 'inline',
  tables: ['agent_intents'],
  handlers: {
    'agent_intent.created': async (tx, event) => {
      const { intentId, title, description, role, createdBy } = event.data;
      await tx.query(sql`
        INSERT INTO agent_intents (site_id, id, title, description, role, status, created_by, created_at, updated_at)
        VALUES (${event.siteId}, ${intentId}, ${title}, ${description}, ${role}, 'open', ${createdBy}, ${event.recordedAt}, ${event.recordedAt})`);
    },
    'agent_intent.updated': async (tx, event) => {
      const { intentId, title, description, role } = event.data;
      await tx.query(sql`
        UPDATE agent_intents SET title = ${title}, description = ${description}, role = ${role}, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${intentId}`);
    },
    'agent_intent.closed': async (tx, event) => {
      const { intentId, closedBy, reason } = event.data;
      await tx.query(sql`
        UPDATE agent_intents SET status = 'closed', closed_by = ${closedBy}, closed_at = ${event.recordedAt}, close_reason = ${reason}, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${intentId}`);
    },
  },
});
