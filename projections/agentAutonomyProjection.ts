// Each agent role's autonomy level (a role without a row is at 'read'; a deleted role's level goes
// with it) and the requests to raise one (docs/agents.md "Autonomy").
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const agentAutonomyProjection = defineProjection({
  name: 'agentAutonomy',
  mode: 'inline',
  tables: ['agent_autonomy', 'agent_promotions'],
  handlers: {
    'agent_autonomy.set': async (tx, event) => {
      const { role, level, promotionId } = event.data;
      await tx.query(sql`
        INSERT INTO agent_autonomy (site_id, role, level, promotion_id, updated_at)
        VALUES (${event.siteId}, ${role}, ${level}, ${promotionId}::uuid, ${event.recordedAt})
        ON CONFLICT (site_id, role) DO UPDATE SET level = EXCLUDED.level, promotion_id = EXCLUDED.promotion_id, updated_at = EXCLUDED.updated_at`);
    },
    'agent_role.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM agent_autonomy WHERE site_id = ${event.siteId} AND role = ${event.data.name}`);
    },
    'agent_promotion.requested': async (tx, event) => {
      const { promotionId, role, level, reason, requestedBy } = event.data;
      await tx.query(sql`
        INSERT INTO agent_promotions (site_id, id, role, level, reason, status, requested_by, requested_at)
        VALUES (${event.siteId}, ${promotionId}, ${role}, ${level}, ${reason}, 'pending', ${requestedBy}, ${event.recordedAt})`);
    },
    'agent_promotion.decided': async (tx, event) => {
      const { promotionId, decision, reason, decidedBy } = event.data;
      await tx.query(sql`
        UPDATE agent_promotions SET status = ${decision}, decided_by = ${decidedBy}, decided_at = ${event.recordedAt}, decision_reason = ${reason}
         WHERE site_id = ${event.siteId} AND id = ${promotionId}`);
    },
  },
});
