// The kill switch's freezes (docs/agents.md "Kill switch"): the active ones are what the agent gate
// checks on every skill call; lifted ones stay, with who lifted them and when.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const agentFreezesProjection = defineProjection({
  name: 'agentFreezes',
  mode: 'inline',
  tables: ['agent_freezes'],
  handlers: {
    'agent_freeze.engaged': async (tx, event) => {
      const { freezeId, scope, target, reason } = event.data;
      await tx.query(sql`
        INSERT INTO agent_freezes (site_id, id, scope, target, reason, frozen_by, frozen_at)
        VALUES (${event.siteId}, ${freezeId}, ${scope}, ${target}, ${reason}, ${event.metadata.actor.id}, ${event.recordedAt})`);
    },
    'agent_freeze.lifted': async (tx, event) => {
      await tx.query(sql`
        UPDATE agent_freezes SET lifted_by = ${event.metadata.actor.id}, lifted_at = ${event.recordedAt}, lift_reason = ${event.data.reason}
         WHERE site_id = ${event.siteId} AND id = ${event.data.freezeId}`);
    },
  },
});
