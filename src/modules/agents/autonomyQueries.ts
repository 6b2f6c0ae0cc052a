// Reads of autonomy levels (every agent role's, 'read' when never set) and promotion requests.
import type { AutonomyLevelName } from '../../../domain/agents/governanceEvents.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { PageQuery } from '../../server/routeKit.ts';
import type { AutonomyView, PromotionView } from './autonomySchemas.ts';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

interface AutonomyRow {
  role: string;
  level: AutonomyLevelName | null;
  promotion_id: string | null;
  updated_at: Date | null;
}

const autonomyView = (row: AutonomyRow): AutonomyView => ({ role: row.role, level: row.level ?? 'read', promotionId: row.promotion_id, updatedAt: iso(row.updated_at) });

/** Every agent role's level, in name order. */
export async function listAutonomy(tx: Queryable, siteId: string, query: PageQuery): Promise<{ levels: AutonomyView[]; total: number }> {
  const rows = await tx.query<AutonomyRow>(sql`
    SELECT r.name AS role, a.level, a.promotion_id, a.updated_at
      FROM agent_roles r LEFT JOIN agent_autonomy a ON a.site_id = r.site_id AND a.role = r.name
     WHERE r.site_id = ${siteId} ORDER BY r.name LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`);
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM agent_roles WHERE site_id = ${siteId}`);
  return { levels: rows.map(autonomyView), total: count?.total ?? 0 };
}

/** A role's level, null when there is no such role. */
export async function findAutonomy(tx: Queryable, siteId: string, role: string): Promise<AutonomyView | null> {
  const [row] = await tx.query<AutonomyRow>(sql`
    SELECT r.name AS role, a.level, a.promotion_id, a.updated_at
      FROM agent_roles r LEFT JOIN agent_autonomy a ON a.site_id = r.site_id AND a.role = r.name
     WHERE r.site_id = ${siteId} AND r.name = ${role}`);
  return row ? autonomyView(row) : null;
}

interface PromotionRow {
  id: string;
  role: string;
  level: AutonomyLevelName;
  reason: string;
  status: PromotionView['status'];
  requested_by: string | null;
  requested_at: Date;
  decided_by: string | null;
  decided_at: Date | null;
  decision_reason: string | null;
}

const promotionView = (row: PromotionRow): PromotionView => ({
  id: row.id,
  role: row.role,
  level: row.level,
  reason: row.reason,
  status: row.status,
  requestedBy: row.requested_by,
  requestedAt: row.requested_at.toISOString(),
  decidedBy: row.decided_by,
  decidedAt: iso(row.decided_at),
  decisionReason: row.decision_reason,
});

export async function listPromotions(
  tx: Queryable,
  siteId: string,
  query: PageQuery & { status?: string | undefined },
): Promise<{ promotions: PromotionView[]; total: number }> {
  const status = query.status ?? null;
  const where = sql`site_id = ${siteId} AND (${status}::text IS NULL OR status = ${status}::text)`;
  const rows = await tx.query<PromotionRow>(
    sql`SELECT * FROM agent_promotions WHERE ${where} ORDER BY requested_at DESC, id DESC LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`,
  );
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM agent_promotions WHERE ${where}`);
  return { promotions: rows.map(promotionView), total: count?.total ?? 0 };
}

export async function findPromotion(tx: Queryable, siteId: string, promotionId: string): Promise<PromotionView | null> {
  const [row] = await tx.query<PromotionRow>(sql`SELECT * FROM agent_promotions WHERE site_id = ${siteId} AND id = ${promotionId}`);
  return row ? promotionView(row) : null;
}
