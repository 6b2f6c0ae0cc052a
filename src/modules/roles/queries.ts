// Reads of the roles read model.
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';

export interface RoleView {
  id: string;
  name: string;
  description: string | null;
  admin: boolean;
  parentId: string | null;
  systemKey: string | null;
  createdAt: string;
  updatedAt: string;
}

interface RoleRow {
  id: string;
  name: string;
  description: string | null;
  admin: boolean;
  parent_id: string | null;
  system_key: string | null;
  created_at: Date;
  updated_at: Date | null;
}

const viewOf = (row: RoleRow): RoleView => ({
  id: row.id,
  name: row.name,
  description: row.description,
  admin: row.admin,
  parentId: row.parent_id,
  systemKey: row.system_key,
  createdAt: row.created_at.toISOString(),
  updatedAt: (row.updated_at ?? row.created_at).toISOString(),
});

const ROLE_SELECT = sql`SELECT id::text, name, description, admin, parent_id::text, system_key, created_at, updated_at FROM roles`;

export async function listRoles(tx: Queryable, siteId: string): Promise<RoleView[]> {
  const rows = await tx.query<RoleRow>(sql`${ROLE_SELECT} WHERE site_id = ${siteId} ORDER BY lower(name), id`);
  return rows.map(viewOf);
}

export async function findRole(tx: Queryable, siteId: string, roleId: string): Promise<RoleView | null> {
  const [row] = await tx.query<RoleRow>(sql`${ROLE_SELECT} WHERE site_id = ${siteId} AND id = ${roleId}::uuid`);
  return row ? viewOf(row) : null;
}

export async function roleNameTaken(tx: Queryable, siteId: string, name: string, exceptRoleId: string | null): Promise<boolean> {
  const rows = await tx.query(
    sql`SELECT 1 FROM roles WHERE site_id = ${siteId} AND lower(name) = lower(${name}) AND id IS DISTINCT FROM ${exceptRoleId}::uuid`,
  );
  return rows.length > 0;
}

/** Who still holds the role: live users, child roles, unrevoked API keys. */
export async function roleHolders(tx: Queryable, siteId: string, roleId: string): Promise<{ users: number; childRoles: number; apiKeys: number }> {
  const [row] = await tx.query<{ users: number; child_roles: number; api_keys: number }>(sql`
    SELECT (SELECT count(*)::int FROM users WHERE site_id = ${siteId} AND role_id = ${roleId}::uuid AND deleted_at IS NULL) AS users,
           (SELECT count(*)::int FROM roles WHERE site_id = ${siteId} AND parent_id = ${roleId}::uuid) AS child_roles,
           (SELECT count(*)::int FROM api_keys WHERE site_id = ${siteId} AND role_id = ${roleId}::uuid AND revoked_at IS NULL) AS api_keys`);
  return { users: row?.users ?? 0, childRoles: row?.child_roles ?? 0, apiKeys: row?.api_keys ?? 0 };
}

/** Ids of the policies attached to a role. */
export async function policiesAttachedTo(tx: Queryable, siteId: string, kind: 'role' | 'user' | 'team', id: string): Promise<string[]> {
  const rows = await tx.query<{ policy_id: string }>(sql`
    SELECT policy_id::text FROM policy_attachments WHERE site_id = ${siteId} AND target_kind = ${kind} AND target_id = ${id}::uuid ORDER BY policy_id`);
  return rows.map((row) => row.policy_id);
}
