// The users of each site: profile, role, status, verification, soft delete and preferences.
import type { UserChanges } from '../domain/identity/events.ts';
import type { Queryable } from '../infra/postgres/database.ts';
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

/** Every change to a user is announced (see IDENTITY_CHANNEL). */
function announced(tx: Queryable, siteId: string): void {
  tx.notifyAfterCommit(IDENTITY_CHANNEL, siteId);
}

export const usersProjection = defineProjection({
  name: 'users',
  mode: 'inline',
  tables: ['users'],
  handlers: {
    'user.created': async (tx, event) => {
      announced(tx, event.siteId);
      const d = event.data;
      const at = event.recordedAt;
      await tx.query(sql`
        INSERT INTO users (site_id, id, email, password_hash, first_name, last_name, role_id, status, created_at, updated_at)
        VALUES (${event.siteId}, ${d.userId}, ${d.email}, ${d.passwordHash}, ${d.firstName}, ${d.lastName}, ${d.roleId},
                ${d.status}, ${at}, ${at})`);
    },
    'user.password_changed': async (tx, event) => {
      announced(tx, event.siteId);
      const d = event.data;
      await tx.query(sql`
        UPDATE users SET password_hash = ${d.passwordHash}, token_version = ${d.tokenVersion},
               status = CASE WHEN status = 'invited' THEN 'active' ELSE status END, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${d.userId}`);
    },
    'user.email_verified': async (tx, event) => {
      announced(tx, event.siteId);
      const at = event.recordedAt;
      await tx.query(sql`
        UPDATE users SET email_verified_at = ${at},
               status = CASE WHEN status IN ('unverified', 'invited') THEN 'active' ELSE status END, updated_at = ${at}
         WHERE site_id = ${event.siteId} AND id = ${event.data.userId}`);
    },
    'user.updated': async (tx, event) => {
      announced(tx, event.siteId);
      const { changes } = event.data;
      const assignments = Object.entries(changes)
        .filter(([key]) => key in CHANGE_COLUMNS)
        .map(([key, value]) => sql`${identifier(CHANGE_COLUMNS[key as keyof UserChanges])} = ${value}`);
      if (changes.email !== undefined) assignments.push(sql`email_verified_at = CASE WHEN email = ${changes.email} THEN email_verified_at END`);
      assignments.push(sql`updated_at = ${event.recordedAt}`);
      await tx.query(sql`UPDATE users SET ${join(assignments)} WHERE site_id = ${event.siteId} AND id = ${event.data.userId}`);
    },
    'user.deleted': async (tx, event) => {
      announced(tx, event.siteId);
      const at = event.recordedAt;
      await tx.query(sql`
        UPDATE users SET status = 'deleted', deleted_at = ${at}, updated_at = ${at}
         WHERE site_id = ${event.siteId} AND id = ${event.data.userId}`);
    },
    'user.preferences_updated': async (tx, event) => {
      announced(tx, event.siteId);
      await tx.query(sql`
        UPDATE users SET preferences = preferences || ${JSON.stringify(event.data.changes)}::jsonb, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${event.data.userId}`);
    },
  },
});
