// Policies of each site, their permission rules and their attachments to roles, users and teams.
// It also keeps `access_versions` (the log position of the site's last event that can change what
// someone may do) and announces such changes on `svc_access` after commit: caches of effective
// permissions (src/access) drop the site then, and check the version as a safety net.
import type { PolicyEvent } from '../domain/access/policy.ts';
import { POLICY_EVENT_TYPES } from '../domain/access/policy.ts';
import type { Queryable } from '../infra/postgres/database.ts';
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const ACCESS_CHANNEL = 'svc_access';

/** Events of other areas that change effective permissions (role chains, team members, subscriber grants). */
const OTHER_ACCESS_EVENTS = [
  'role.created',
  'role.updated',
  'role.deleted',
  'team.updated',
  'team.deleted',
  'user.deleted',
  'subscriber_access.granted',
  'subscriber_access.revoked',
] as const;

async function detachTarget(tx: Queryable, siteId: string, kind: 'role' | 'user' | 'team', id: string): Promise<void> {
  await tx.query(sql`DELETE FROM policy_attachments WHERE site_id = ${siteId} AND target_kind = ${kind} AND target_id = ${id}::uuid`);
}

export const policiesProjection = defineProjection({
  name: 'policies',
  mode: 'inline',
  eventTypes: [...POLICY_EVENT_TYPES, ...OTHER_ACCESS_EVENTS],
  tables: ['policy_attachments', 'policy_permissions', 'policies', 'access_versions'],
  async apply(tx, event) {
    const siteId = event.siteId;
    const typed = { type: event.type, data: event.data } as PolicyEvent;
    switch (typed.type) {
      case 'policy.created':
        await tx.query(sql`
          INSERT INTO policies (site_id, id, name, description, created_at, updated_at)
          VALUES (${siteId}, ${typed.data.policyId}, ${typed.data.name}, ${typed.data.description}, ${event.recordedAt}, ${event.recordedAt})`);
        break;
      case 'policy.updated': {
        const { policyId, changes } = typed.data;
        await tx.query(sql`
          UPDATE policies
             SET name = coalesce(${changes.name ?? null}::text, name),
                 description = CASE WHEN ${changes.description !== undefined}::boolean THEN ${changes.description ?? null}::text ELSE description END,
                 updated_at = ${event.recordedAt}
           WHERE site_id = ${siteId} AND id = ${policyId}`);
        break;
      }
      case 'policy.deleted':
        await tx.query(sql`DELETE FROM policy_attachments WHERE site_id = ${siteId} AND policy_id = ${typed.data.policyId}`);
        await tx.query(sql`DELETE FROM policy_permissions WHERE site_id = ${siteId} AND policy_id = ${typed.data.policyId}`);
        await tx.query(sql`DELETE FROM policies WHERE site_id = ${siteId} AND id = ${typed.data.policyId}`);
        break;
      case 'policy.permission_added': {
        const d = typed.data;
        await tx.query(sql`
          INSERT INTO policy_permissions (site_id, id, policy_id, collection, action, fields, conditions, position, created_at)
          VALUES (${siteId}, ${d.permissionId}, ${d.policyId}, ${d.collection}, ${d.action}, ${d.fields}::text[],
                  ${d.conditions === null ? null : JSON.stringify(d.conditions)}::jsonb, ${event.position}, ${event.recordedAt})`);
        await touchPolicy(tx, siteId, d.policyId, event.recordedAt);
        break;
      }
      case 'policy.permission_removed':
        await tx.query(sql`DELETE FROM policy_permissions WHERE site_id = ${siteId} AND id = ${typed.data.permissionId}`);
        await touchPolicy(tx, siteId, typed.data.policyId, event.recordedAt);
        break;
      case 'policy.attached':
        await tx.query(sql`
          INSERT INTO policy_attachments (site_id, policy_id, target_kind, target_id, attached_at)
          VALUES (${siteId}, ${typed.data.policyId}, ${typed.data.target.kind}, ${typed.data.target.id}, ${event.recordedAt})
          ON CONFLICT DO NOTHING`);
        break;
      case 'policy.detached':
        await tx.query(sql`
          DELETE FROM policy_attachments
           WHERE site_id = ${siteId} AND policy_id = ${typed.data.policyId}
             AND target_kind = ${typed.data.target.kind} AND target_id = ${typed.data.target.id}::uuid`);
        break;
      default: {
        // A deleted role, team or user takes its attachments with it.
        const data = event.data as { roleId?: string; teamId?: string; userId?: string };
        if (event.type === 'role.deleted') await detachTarget(tx, siteId, 'role', data.roleId!);
        if (event.type === 'team.deleted') await detachTarget(tx, siteId, 'team', data.teamId!);
        if (event.type === 'user.deleted') await detachTarget(tx, siteId, 'user', data.userId!);
      }
    }
    await tx.query(sql`
      INSERT INTO access_versions (site_id, version) VALUES (${siteId}, ${event.position})
      ON CONFLICT (site_id) DO UPDATE SET version = GREATEST(access_versions.version, excluded.version)`);
    tx.notifyAfterCommit(ACCESS_CHANNEL, siteId);
  },
});

async function touchPolicy(tx: Queryable, siteId: string, policyId: string, at: Date): Promise<void> {
  await tx.query(sql`UPDATE policies SET updated_at = ${at} WHERE site_id = ${siteId} AND id = ${policyId}`);
}
