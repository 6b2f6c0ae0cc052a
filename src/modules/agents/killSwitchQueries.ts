// Reads of the kill switch's freezes (docs/agents.md "Kill switch").
import type { FreezeScope } from '../../../domain/agents/governanceEvents.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { PageQuery } from '../../server/routeKit.ts';
import type { FreezeView } from './killSwitchSchemas.ts';

interface FreezeRow {
  id: string;
  scope: FreezeScope;
  target: string | null;
  reason: string;
  frozen_by: string | null;
  frozen_at: Date;
  lifted_by: string | null;
  lifted_at: Date | null;
  lift_reason: string | null;
}

const freezeView = (row: FreezeRow): FreezeView => ({
  id: row.id,
  scope: row.scope,
  target: row.target,
  reason: row.reason,
  frozenBy: row.frozen_by,
  frozenAt: row.frozen_at.toISOString(),
  liftedBy: row.lifted_by,
  liftedAt: row.lifted_at ? row.lifted_at.toISOString() : null,
  liftReason: row.lift_reason,
});

/** The site's active freezes, oldest first. */
export async function listActiveFreezes(tx: Queryable, siteId: string, query: PageQuery): Promise<{ freezes: FreezeView[]; total: number }> {
  const rows = await tx.query<FreezeRow>(
    sql`SELECT * FROM agent_freezes WHERE site_id = ${siteId} AND lifted_at IS NULL ORDER BY frozen_at, id LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`,
  );
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM agent_freezes WHERE site_id = ${siteId} AND lifted_at IS NULL`);
  return { freezes: rows.map(freezeView), total: count?.total ?? 0 };
}

export async function findFreeze(tx: Queryable, siteId: string, freezeId: string): Promise<FreezeView | null> {
  const [row] = await tx.query<FreezeRow>(sql`SELECT * FROM agent_freezes WHERE site_id = ${siteId} AND id = ${freezeId}`);
  return row ? freezeView(row) : null;
}
