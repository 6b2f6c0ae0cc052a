// Reads of policies, their permission rules and attachments.
import type { AttachmentKind } from '../../../domain/access/policy.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';

export interface PermissionView {
  id: string;
  policyId: string;
  collection: string | null;
  action: string;
  fields: string[];
  conditions: Record<string, unknown> | null;
  createdAt: string;
}

export interface PolicyView {
  id: string;
  name: string;
  description: string | null;
  /** Ids of the roles, users and teams the policy is attached to. */
  attachments: { roles: string[]; users: string[]; teams: string[] };
  permissionCount: number;
  createdAt: string;
  updatedAt: string;
}

interface PolicyRow {
  id: string;
  name: string;
  description: string | null;
  attachments: { kind: AttachmentKind; id: string }[];
  permission_count: number;
  created_at: Date;
  updated_at: Date;
}

interface PermissionRow {
  id: string;
  policy_id: string;
  collection: string | null;
  action: string;
  fields: string[];
  conditions: Record<string, unknown> | null;
  created_at: Date;
}

const policyOf = (row: PolicyRow): PolicyView => ({
  id: row.id,
  name: row.name,
  description: row.description,
  attachments: {
    roles: row.attachments.filter((a) => a.kind === 'role').map((a) => a.id),
    users: row.attachments.filter((a) => a.kind === 'user').map((a) => a.id),
    teams: row.attachments.filter((a) => a.kind === 'team').map((a) => a.id),
  },
  permissionCount: row.permission_count,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export const permissionOf = (row: PermissionRow): PermissionView => ({
  id: row.id,
  policyId: row.policy_id,
  collection: row.collection,
  action: row.action,
  fields: row.fields,
  conditions: row.conditions,
  createdAt: row.created_at.toISOString(),
});

const POLICY_SELECT = sql`
  SELECT p.id::text, p.name, p.description, p.created_at, p.updated_at,
         coalesce((SELECT jsonb_agg(jsonb_build_object('kind', a.target_kind, 'id', a.target_id::text) ORDER BY a.target_kind, a.target_id)
                     FROM policy_attachments a WHERE a.site_id = p.site_id AND a.policy_id = p.id), '[]'::jsonb) AS attachments,
         (SELECT count(*)::int FROM policy_permissions r WHERE r.site_id = p.site_id AND r.policy_id = p.id) AS permission_count
    FROM policies p`;

export async function listPolicies(tx: Queryable, siteId: string, query: { limit: number; page: number }): Promise<{ policies: PolicyView[]; total: number }> {
  const rows = await tx.query<PolicyRow>(
    sql`${POLICY_SELECT} WHERE p.site_id = ${siteId} ORDER BY lower(p.name), p.id LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`,
  );
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM policies WHERE site_id = ${siteId}`);
  return { policies: rows.map(policyOf), total: count?.total ?? 0 };
}

export async function findPolicy(tx: Queryable, siteId: string, policyId: string): Promise<PolicyView | null> {
  const [row] = await tx.query<PolicyRow>(sql`${POLICY_SELECT} WHERE p.site_id = ${siteId} AND p.id = ${policyId}::uuid`);
  return row ? policyOf(row) : null;
}

export async function listPermissions(tx: Queryable, siteId: string, policyId: string): Promise<PermissionView[]> {
  const rows = await tx.query<PermissionRow>(sql`
    SELECT id::text, policy_id::text, collection, action, fields, conditions, created_at
      FROM policy_permissions WHERE site_id = ${siteId} AND policy_id = ${policyId}::uuid ORDER BY position`);
  return rows.map(permissionOf);
}

export async function findPermission(tx: Queryable, siteId: string, policyId: string, permissionId: string): Promise<PermissionView | null> {
  const [row] = await tx.query<PermissionRow>(sql`
    SELECT id::text, policy_id::text, collection, action, fields, conditions, created_at
      FROM policy_permissions WHERE site_id = ${siteId} AND policy_id = ${policyId}::uuid AND id = ${permissionId}::uuid`);
  return row ? permissionOf(row) : null;
}

export async function policyNameTaken(tx: Queryable, siteId: string, name: string, exceptPolicyId: string | null): Promise<boolean> {
  const rows = await tx.query(
    sql`SELECT 1 FROM policies WHERE site_id = ${siteId} AND lower(name) = lower(${name}) AND id IS DISTINCT FROM ${exceptPolicyId}::uuid`,
  );
  return rows.length > 0;
}

/** Whether the target of an attachment exists: a role, a live user, a team of the site. */
export async function attachmentTargetExists(tx: Queryable, siteId: string, kind: AttachmentKind, id: string): Promise<boolean> {
  const query =
    kind === 'role'
      ? sql`SELECT 1 FROM roles WHERE site_id = ${siteId} AND id = ${id}::uuid`
      : kind === 'user'
        ? sql`SELECT 1 FROM users WHERE site_id = ${siteId} AND id = ${id}::uuid AND deleted_at IS NULL`
        : sql`SELECT 1 FROM teams WHERE site_id = ${siteId} AND id = ${id}::uuid`;
  return (await tx.query(query)).length > 0;
}
