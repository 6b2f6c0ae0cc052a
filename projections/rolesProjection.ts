import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const rolesProjection = defineProjection({
  name: 'roles',
  mode: 'inline',
  eventTypes: ['role.created'],
  tables: ['roles'],
  async apply(tx, event) {
    const data = event.data as { roleId: string; name: string; admin: boolean; parentId: string | null; systemKey: string | null };
    await tx.query(sql`
      INSERT INTO roles (site_id, id, name, admin, parent_id, system_key, created_at)
      VALUES (${event.siteId}, ${data.roleId}, ${data.name}, ${data.admin}, ${data.parentId}, ${data.systemKey}, ${event.recordedAt})`);
  },
});
