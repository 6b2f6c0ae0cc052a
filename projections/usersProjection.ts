// The users of each site: profile, role, status, verification, soft delete and preferences.
import type { UserChanges, UserEvent } from '../domain/identity/user.ts';
import { identifier, join, sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

const CHANGE_COLUMNS: Record<keyof UserChanges, string> = {
  email: 'email',
  firstName: 'first_name',
  lastName: 'last_name',
  avatar: 'avatar',
  roleId: 'role_id',
  status: 'status',
};

/**
 * Announced with the site id after the commit of any change to users, their roles or their sessions:
 * what a token check reads (src/auth/userAccessCache.ts drops the site's cached checks then).
 */
export const IDENTITY_CHANNEL = 'svc_identity';

export const usersProjection = defineProjection({
  name: 'users',
  mode: 'inline',
  eventTypes: ['user.created', 'user.password_changed', 'user.email_verified', 'user.updated', 'user.deleted', 'user.preferences_updated'],
  tables: ['users'],
  async apply(tx, event) {
    tx.notifyAfterCommit(IDENTITY_CHANNEL, event.siteId);
    const typed = { type: event.type, data: event.data } as UserEvent;
    const at = event.recordedAt;
    switch (typed.type) {
      case 'user.created': {
        const d = typed.data;
        await tx.query(sql`
          INSERT INTO users (site_id, id, email, password_hash, first_name, last_name, role_id, status, created_at, updated_at)
          VALUES (${event.siteId}, ${d.userId}, ${d.email}, ${d.passwordHash}, ${d.firstName}, ${d.lastName}, ${d.roleId},
                  ${d.status}, ${at}, ${at})`);
        return;
      }
      case 'user.password_changed': {
        const d = typed.data;
        await tx.query(sql`
          UPDATE users SET password_hash = ${d.passwordHash}, token_version = ${d.tokenVersion},
                 status = CASE WHEN status = 'invited' THEN 'active' ELSE status END, updated_at = ${at}
           WHERE site_id = ${event.siteId} AND id = ${d.userId}`);
        return;
      }
      case 'user.email_verified': {
        await tx.query(sql`
          UPDATE users SET email_verified_at = ${at},
                 status = CASE WHEN status IN ('unverified', 'invited') THEN 'active' ELSE status END, updated_at = ${at}
           WHERE site_id = ${event.siteId} AND id = ${typed.data.userId}`);
        return;
      }
      case 'user.updated': {
        const { changes } = typed.data;
        const assignments = Object.entries(changes)
          .filter(([key]) => key in CHANGE_COLUMNS)
          .map(([key, value]) => sql`${identifier(CHANGE_COLUMNS[key as keyof UserChanges])} = ${value}`);
        if (changes.email !== undefined) assignments.push(sql`email_verified_at = CASE WHEN email = ${changes.email} THEN email_verified_at END`);
        assignments.push(sql`updated_at = ${at}`);
        await tx.query(sql`UPDATE users SET ${join(assignments)} WHERE site_id = ${event.siteId} AND id = ${typed.data.userId}`);
        return;
      }
      case 'user.deleted': {
        await tx.query(sql`
          UPDATE users SET status = 'deleted', deleted_at = ${at}, updated_at = ${at}
           WHERE site_id = ${event.siteId} AND id = ${typed.data.userId}`);
        return;
      }
      case 'user.preferences_updated': {
        await tx.query(sql`
          UPDATE users SET preferences = preferences || ${JSON.stringify(typed.data.changes)}::jsonb, updated_at = ${at}
           WHERE site_id = ${event.siteId} AND id = ${typed.data.userId}`);
        return;
      }
      default:
        return;
    }
  },
});
