// Policies of each site, their permission rules and their attachments to roles, users and teams.
// It also keeps `access_versions` (the log position of the site's last event that can change what
// someone may do) and announces such changes on `svc_access` after commit: caches of effective
// permissions (src/access) drop the site then, and check the version as a safety net.
import type { EventType } from '../domain/shared/events.ts';
import type { Queryable } from '../infra/postgres/database.ts';
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection, type EventHandler } from './projection.ts';

export const ACCESS_CHANNEL = 'svc_access';

async function detachTarget(tx: Queryable, siteId: string, kind: 'role' | 'user' | 'team', id: string): Promise<void> {
  await tx.query(sql`DELETE FROM policy_attachments WHERE site_id = ${siteId} AND target_kind = ${kind} AND target_id = ${id}::uuid`);
}

async function touchPolicy(tx: Queryable, siteId: string, policyId: string, at: Date): Promise<void> {
  await tx.query(sql`UPDATE policies SET updated_at = ${at} WHERE site_id = ${siteId} AND id = ${policyId}`);
}

/** Every event handled here can change what someone may do: after its rows, the site's access version moves. */
function changesAccess<Type extends EventType>(apply?: EventHandler<Type>): EventHandler<Type> {
  return async (tx, event) => {
    if (apply) await apply(tx, event);
    await tx.query(sql`
      INSERT INTO access_versions (site_id, version) VALUES (${event.siteId}, ${event.position})
      ON CONFLICT (site_id) DO UPDATE SET version = GREATEST(access_versions.version, excluded.version)`);
    tx.notifyAfterCommit(ACCESS_CHANNEL, event.siteId);
  };
}

export const policiesProjection = defineProjection({
  name: 'policies',
  mode: 'inline',
  tables: ['policy_attachments', 'policy_permissions', 'policies', 'access_versions'],
  handlers: {
    'policy.created': changesAccess(async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO policies (site_id, id, name, description, created_at, updated_at)
        VALUES (${event.siteId}, ${d.policyId}, ${d.name}, ${d.description}, ${event.recordedAt}, ${event.recordedAt})`);
    }),
    'policy.updated': changesAccess(async (tx, event) => {
      const { policyId, changes } = event.data;
      await tx.query(sql`
        UPDATE policies
           SET name = coalesce(${changes.name ?? null}::text, name),
               description = CASE WHEN ${changes.description !== undefined}::boolean THEN ${changes.description ?? null}::text ELSE description END,
               updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${policyId}`);
    }),
    'policy.deleted': changesAccess(async (tx, event) => {
      const { siteId } = event;
      const { policyId } = event.data;
      await tx.query(sql`DELETE FROM policy_attachments WHERE site_id = ${siteId} AND policy_id = ${policyId}`);
      await tx.query(sql`DELETE FROM policy_permissions WHERE site_id = ${siteId} AND policy_id = ${policyId}`);
      await tx.query(sql`DELETE FROM policies WHERE site_id = ${siteId} AND id = ${policyId}`);
    }),
    'policy.permission_added': changesAccess(async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        INSERT INTO policy_permissions (site_id, id, policy_id, collection, action, fields, conditions, position, created_at)
        VALUES (${event.siteId}, ${d.permissionId}, ${d.policyId}, ${d.collection}, ${d.action}, ${d.fields}::text[],
                ${d.conditions === null ? null : JSON.stringify(d.conditions)}::jsonb, ${event.position}, ${event.recordedAt})`);
      await touchPolicy(tx, event.siteId, d.policyId, event.recordedAt);
    }),
    'policy.permission_removed': changesAccess(async (tx, event) => {
      await tx.query(sql`DELETE FROM policy_permissions WHERE site_id = ${event.siteId} AND id = ${event.data.permissionId}`);
      await touchPolicy(tx, event.siteId, event.data.policyId, event.recordedAt);
    }),
    'policy.attached': changesAccess(async (tx, event) => {
      const { policyId, target } = event.data;
      await tx.query(sql`
        INSERT INTO policy_attachments (site_id, policy_id, target_kind, target_id, attached_at)
        VALUES (${event.siteId}, ${policyId}, ${target.kind}, ${target.id}, ${event.recordedAt})
        ON CONFLICT DO NOTHING`);
    }),
    'policy.detached': changesAccess(async (tx, event) => {
      const { policyId, target } = event.data;
      await tx.query(sql`
        DELETE FROM policy_attachments
         WHERE site_id = ${event.siteId} AND policy_id = ${policyId}
           AND target_kind = ${target.kind} AND target_id = ${target.id}::uuid`);
    }),
    // Events of other areas that change effective permissions (role chains, team members, subscriber
    // grants); a deleted role, team or user takes its attachments with it.
    'role.created': changesAccess(),
    'role.updated': changesAccess(),
    'role.deleted': changesAccess((tx, event) => detachTarget(tx, event.siteId, 'role', event.data.roleId)),
    'team.updated': changesAccess(),
    'team.deleted': changesAccess((tx, event) => detachTarget(tx, event.siteId, 'team', event.data.teamId)),
    'user.deleted': changesAccess((tx, event) => detachTarget(tx, event.siteId, 'user', event.data.userId)),
    'subscriber_access.granted': changesAccess(),
    'subscriber_access.revoked': changesAccess(),
  },
});
