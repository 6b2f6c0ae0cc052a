// Reads of agent roles (docs/agents.md "Agent roles"), in name order (the table's key).
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { PageQuery } from '../../server/routeKit.ts';

export interface AgentRoleView {
  name: string;
  description: string | null;
  skills: string[];
  collections: string[];
  createdAt: string;
  updatedAt: string;
}

interface AgentRoleRow {
  name: string;
  description: string | null;
  skills: string[];
  collections: string[];
  created_at: Date;
  updated_at: Date;
}

const roleView = (row: AgentRoleRow): AgentRoleView => ({
  name: row.name,
  description: row.description,
  skills: row.skills,
  collections: row.collections,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export async function listAgentRoles(tx: Queryable, siteId: string, query: PageQuery): Promise<{ roles: AgentRoleView[]; total: number }> {
  const rows = await tx.query<AgentRoleRow>(
    sql`SELECT * FROM agent_roles WHERE site_id = ${siteId} ORDER BY name LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`,
  );
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM agent_roles WHERE site_id = ${siteId}`);
  return { roles: rows.map(roleView), total: count?.total ?? 0 };
}

export async function findAgentRole(tx: Queryable, siteId: string, name: string): Promise<AgentRoleView | null> {
  const [row] = await tx.query<AgentRoleRow>(sql`SELECT * FROM agent_roles WHERE site_id = ${siteId} AND name = ${name}`);
  return row ? roleView(row) : null;
}
