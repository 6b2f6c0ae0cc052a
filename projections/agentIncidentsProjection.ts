// Each site's agent incidents, open or resolved (docs/agent-goals.md).
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const agentIncidentsProjection = defineProjection({
  name: 'agent-incidents',
  mode: 'inline',
  tables: ['agent_incidents'],
  handlers: {
    'agent_incident.raised': async (tx, event) => {
      const { incidentId, role, severity, title, detail, intentId, raisedBy } = event.data;
      await tx.query(sql`
        INSERT INTO agent_incidents (site_id, id, role, severity, title, detail, intent_id, status, raised_by, raised_at)
        VALUES (${event.siteId}, ${incidentId}, ${role}, ${severity}, ${title}, ${detail}, ${intentId}::uuid, 'open', ${raisedBy}, ${event.recordedAt})`);
    },
    'agent_incident.resolved': async (tx, event) => {
      const { incidentId, resolvedBy, note } = event.data;
      await tx.query(sql`
        UPDATE agent_incidents SET status = 'resolved', resolved_by = ${resolvedBy}, resolved_at = ${event.recordedAt}, resolution = ${note}
         WHERE site_id = ${event.siteId} AND id = ${incidentId}`);
    },
  },
});
