// Reads of users (live ones: a deleted user is gone from every read) and subscriber grants.
import type { Queryable } from '../../../infra/postgres/database.ts';
import { join, sql, type SqlFragment } from '../../../infra/postgres/sql.ts';

export interface UserView {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  avatar: string | null;
  roleId: string | null;
  status: string;
  emailVerified: boolean;
  createdAt: string;
  updatedAt: string;
}

interface UserViewRow {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  avatar: string | null;
  role_id: string | null;
  status: string;
  email_verified_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const USER_COLUMNS = sql`id, email, first_name, last_name, avatar, role_id, status, email_verified_at, created_at, updated_at`;

function viewOf(row: UserViewRow): UserView {
  return {
    id: row.id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    avatar: row.avatar,
    roleId: row.role_id,
    status: row.status,
    emailVerified: row.email_verified_at !== null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export interface UserListQuery {
  limit: number;
  page: number;
  status?: string;
  roleId?: string;
  /** Case-insensitive substring of email, first or last name. */
  search?: string;
}

export async function listUsers(tx: Queryable, siteId: string, query: UserListQuery): Promise<{ users: UserView[]; total: number }> {
  const conditions: SqlFragment[] = [sql`site_id = ${siteId}`, sql`deleted_at IS NULL`];
  if (query.status) conditions.push(sql`status = ${query.status}`);
  if (query.roleId) conditions.push(sql`role_id = ${query.roleId}::uuid`);
  if (query.search) {
    const pattern = `%${query.search.replace(/[\\%_]/g, '\\$&')}%`;
    conditions.push(sql`(email ILIKE ${pattern} OR first_name ILIKE ${pattern} OR last_name ILIKE ${pattern})`);
  }
  const where = join(conditions, ' AND ');
  const rows = await tx.query<UserViewRow>(
    sql`SELECT ${USER_COLUMNS} FROM users WHERE ${where} ORDER BY created_at, id LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`,
  );
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM users WHERE ${where}`);
  return { users: rows.map(viewOf), total: count?.total ?? 0 };
}

export async function findUser(tx: Queryable, siteId: string, userId: string): Promise<UserView | null> {
  const [row] = await tx.query<UserViewRow>(sql`SELECT ${USER_COLUMNS} FROM users WHERE site_id = ${siteId} AND id = ${userId} AND deleted_at IS NULL`);
  return row ? viewOf(row) : null;
}

export async function findUserByEmail(tx: Queryable, siteId: string, email: string): Promise<UserView | null> {
  const [row] = await tx.query<UserViewRow>(sql`SELECT ${USER_COLUMNS} FROM users WHERE site_id = ${siteId} AND email = ${email} AND deleted_at IS NULL`);
  return row ? viewOf(row) : null;
}

export async function roleExists(tx: Queryable, siteId: string, roleId: string): Promise<boolean> {
  const rows = await tx.query(sql`SELECT 1 FROM roles WHERE site_id = ${siteId} AND id = ${roleId}::uuid`);
  return rows.length > 0;
}

export interface SubscriberGrant {
  collection: string;
  grantedBy: string | null;
  grantedAt: string;
}

export async function listSubscriberGrants(tx: Queryable, siteId: string): Promise<SubscriberGrant[]> {
  const rows = await tx.query<{ collection: string; granted_by: string | null; granted_at: Date }>(
    sql`SELECT collection, granted_by, granted_at FROM subscriber_access WHERE site_id = ${siteId} ORDER BY collection`,
  );
  return rows.map((row) => ({ collection: row.collection, grantedBy: row.granted_by, grantedAt: row.granted_at.toISOString() }));
}

export async function findSubscriberGrant(tx: Queryable, siteId: string, collection: string): Promise<SubscriberGrant | null> {
  const grants = await tx.query<{ collection: string; granted_by: string | null; granted_at: Date }>(
    sql`SELECT collection, granted_by, granted_at FROM subscriber_access WHERE site_id = ${siteId} AND collection = ${collection}`,
  );
  const row = grants[0];
  return row ? { collection: row.collection, grantedBy: row.granted_by, grantedAt: row.granted_at.toISOString() } : null;
}
