// Each site's agent roles as they are now (docs/agents.md "Agent roles"): what the agent gate reads on
// every skill call, and the admin list.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const agentRolesProjection = defineProjection({
  name: 'agentRoles',
  mode: 'inline',
  tables: ['agent_roles'],
  handlers: {
    'agent_role.created': async (tx, event) => {
      const { name, description, skills, collections } = event.data;
      await tx.query(sql`
        INSERT INTO agent_roles (site_id, name, description, skills, collections, created_at, updated_at)
        VALUES (${event.siteId}, ${name}, ${description}, ${skills}::text[], ${collections}::text[], ${event.recordedAt}, ${event.recordedAt})`);
    },
    'agent_role.updated': async (tx, event) => {
      const { name, description, skills, collections } = event.data;
      await tx.query(sql`
        UPDATE agent_roles SET description = ${description}, skills = ${skills}::text[], collections = ${collections}::text[], updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND name = ${name}`);
    },
    'agent_role.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM agent_roles WHERE site_id = ${event.siteId} AND name = ${event.data.name}`);
    },
  },
});
