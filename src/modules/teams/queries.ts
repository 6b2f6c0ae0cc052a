// Reads of teams with their members.
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';

export interface TeamView {
  id: string;
  name: string;
  description: string | null;
  members: string[];
  createdAt: string;
  updatedAt: string;
}

interface TeamRow {
  id: string;
  name: string;
  description: string | null;
  members: string[];
  created_at: Date;
  updated_at: Date;
}

const viewOf = (row: TeamRow): TeamView => ({
  id: row.id,
  name: row.name,
  description: row.description,
  members: row.members,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const TEAM_SELECT = sql`
  SELECT t.id, t.name, t.description, t.created_at, t.updated_at,
         coalesce((SELECT array_agg(m.user_id::text ORDER BY m.user_id) FROM team_members m
                    WHERE m.site_id = t.site_id AND m.team_id = t.id), '{}') AS members
    FROM teams t`;

export async function listTeams(tx: Queryable, siteId: string, query: { limit: number; page: number }): Promise<{ teams: TeamView[]; total: number }> {
  const rows = await tx.query<TeamRow>(
    sql`${TEAM_SELECT} WHERE t.site_id = ${siteId} ORDER BY lower(t.name), t.id LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`,
  );
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM teams WHERE site_id = ${siteId}`);
  return { teams: rows.map(viewOf), total: count?.total ?? 0 };
}

export async function findTeam(tx: Queryable, siteId: string, teamId: string): Promise<TeamView | null> {
  const [row] = await tx.query<TeamRow>(sql`${TEAM_SELECT} WHERE t.site_id = ${siteId} AND t.id = ${teamId}`);
  return row ? viewOf(row) : null;
}

export async function teamNameTaken(tx: Queryable, siteId: string, name: string, exceptTeamId: string | null): Promise<boolean> {
  const rows = await tx.query(
    sql`SELECT 1 FROM teams WHERE site_id = ${siteId} AND lower(name) = lower(${name}) AND id IS DISTINCT FROM ${exceptTeamId}::uuid`,
  );
  return rows.length > 0;
}

/** Indexes (into `userIds`) of the ids that are not live users of the site. */
export async function unknownUsers(tx: Queryable, siteId: string, userIds: string[]): Promise<number[]> {
  if (userIds.length === 0) return [];
  const rows = await tx.query<{ id: string }>(
    sql`SELECT id::text FROM users WHERE site_id = ${siteId} AND id = ANY(${userIds}::uuid[]) AND deleted_at IS NULL`,
  );
  const known = new Set(rows.map((row) => row.id));
  return userIds.flatMap((id, index) => (known.has(id) ? [] : [index]));
}
