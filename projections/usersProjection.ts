import type { UserEvent } from '../domain/identity/user.ts';
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const usersProjection = defineProjection({
  name: 'users',
  mode: 'inline',
  eventTypes: ['user.created', 'user.password_changed'],
  tables: ['users'],
  async apply(tx, event) {
    const typed = { type: event.type, data: event.data } as UserEvent;
    switch (typed.type) {
      case 'user.created': {
        const d = typed.data;
        await tx.query(sql`
          INSERT INTO users (site_id, id, email, password_hash, first_name, last_name, role_id, status, created_at, updated_at)
          VALUES (${event.siteId}, ${d.userId}, ${d.email}, ${d.passwordHash}, ${d.firstName}, ${d.lastName}, ${d.roleId},
                  ${d.status}, ${event.recordedAt}, ${event.recordedAt})`);
        return;
      }
      case 'user.password_changed': {
        const d = typed.data;
        await tx.query(sql`
          UPDATE users SET password_hash = ${d.passwordHash}, token_version = ${d.tokenVersion},
                 status = CASE WHEN status = 'invited' THEN 'active' ELSE status END, updated_at = ${event.recordedAt}
           WHERE site_id = ${event.siteId} AND id = ${d.userId}`);
        return;
      }
      default:
        return;
    }
  },
});
