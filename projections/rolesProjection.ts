// Roles of each site: created, renamed, re-parented, flagged admin, deleted.
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';
import { IDENTITY_CHANNEL } from './usersProjection.ts';

export const rolesProjection = defineProjection({
  name: 'roles',
  mode: 'inline',
  tables: ['roles'],
  handlers: {
    'role.created': async (tx, event) => {
      tx.notifyAfterCommit(IDENTITY_CHANNEL, event.siteId);
      const data = event.data;
      await tx.query(sql`
        INSERT INTO roles (site_id, id, name, description, admin, parent_id, system_key, created_at, updated_at)
        VALUES (${event.siteId}, ${data.roleId}, ${data.name}, ${data.description ?? null}, ${data.admin}, ${data.parentId},
                ${data.systemKey}, ${event.recordedAt}, ${event.recordedAt})`);
    },
    'role.updated': async (tx, event) => {
      tx.notifyAfterCommit(IDENTITY_CHANNEL, event.siteId);
      const { roleId, changes } = event.data;
      await tx.query(sql`
        UPDATE roles
           SET name = coalesce(${changes.name ?? null}::text, name),
               description = CASE WHEN ${changes.description !== undefined}::boolean THEN ${changes.description ?? null}::text ELSE description END,
               admin = coalesce(${changes.admin ?? null}::boolean, admin),
               parent_id = CASE WHEN ${changes.parentId !== undefined}::boolean THEN ${changes.parentId ?? null}::uuid ELSE parent_id END,
               updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${roleId}`);
    },
    'role.deleted': async (tx, event) => {
      tx.notifyAfterCommit(IDENTITY_CHANNEL, event.siteId);
      await tx.query(sql`DELETE FROM roles WHERE site_id = ${event.siteId} AND id = ${event.data.roleId}`);
    },
  },
});
