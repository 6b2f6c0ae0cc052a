// Reads of the AI approvals read model (ai_approvals, migration 0560), shaped for the answer, and the
// principal an approval runs as, rebuilt from the identity read models as they are now.
import type { ApprovalRequester } from '../../../domain/ai/approvalEvents.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { apiKeyPrincipal, findApiKeyBinding } from '../../auth/apiKeyAuthenticator.ts';
import type { UserPrincipal } from '../../auth/principal.ts';
import { isUuid } from '../../../domain/shared/uuid.ts';
import type { ApprovalView } from './approvalSchemas.ts';

/** The capability that lets someone review (and decide) another's calls of a skill's area: `review:items`. */
export function reviewCapabilityOf(skill: string): string {
  return `review:${skill.split('.')[0]}`;
}

interface ApprovalRow {
  id: string;
  status: ApprovalView['status'];
  skill: string;
  input: Record<string, unknown>;
  requester: ApprovalView['requester'];
  agent: ApprovalView['agent'];
  pins: ApprovalView['pins'];
  diff: Record<string, unknown>;
  constitution_version: number | null;
  reviews: ApprovalView['reviews'];
  decided_by: string | null;
  decision_reason: string | null;
  error: ApprovalView['error'];
  version: number;
  created_at: Date;
  updated_at: Date;
  decided_at: Date | null;
}

function viewOf(row: ApprovalRow): ApprovalView {
  return {
    id: row.id,
    status: row.status,
    call: { skill: row.skill, input: row.input },
    requester: row.requester,
    agent: row.agent,
    pins: row.pins,
    diff: row.diff,
    constitutionVersion: row.constitution_version,
    reviews: row.reviews,
    decidedBy: row.decided_by,
    decisionReason: row.decision_reason,
    error: row.error,
    version: row.version,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    decidedAt: row.decided_at?.toISOString() ?? null,
  };
}

/** One approval of the site, or null (an id that is not a UUID names none). */
export async function findApproval(tx: Queryable, siteId: string, approvalId: string): Promise<ApprovalView | null> {
  if (!isUuid(approvalId)) return null;
  const [row] = await tx.query<ApprovalRow>(sql`SELECT * FROM ai_approvals WHERE site_id = ${siteId} AND id = ${approvalId}::uuid`);
  return row ? viewOf(row) : null;
}

export interface ApprovalListQuery {
  status: ApprovalView['status'];
  /** Only the approvals this principal asked for; null: every one (site administrators). */
  requesterId: string | null;
  limit: number;
  page: number;
}

/**
 * The statements of a page of the site's approvals in one status, newest first, and of their total:
 * every one (ai_approvals_by_status) or those one principal asked for (ai_approvals_by_requester).
 */
export function approvalListStatements(siteId: string, query: ApprovalListQuery): { page: SqlFragment; total: SqlFragment } {
  const mine = query.requesterId === null ? sql`` : sql` AND requester_id = ${query.requesterId}`;
  const where = sql`site_id = ${siteId} AND status = ${query.status}${mine}`;
  return {
    page: sql`SELECT * FROM ai_approvals WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`,
    total: sql`SELECT count(*)::int AS total FROM ai_approvals WHERE ${where}`,
  };
}

export async function listApprovals(tx: Queryable, siteId: string, query: ApprovalListQuery): Promise<{ approvals: ApprovalView[]; total: number }> {
  const statements = approvalListStatements(siteId, query);
  const rows = await tx.query<ApprovalRow>(statements.page);
  const [count] = await tx.query<{ total: number }>(statements.total);
  return { approvals: rows.map(viewOf), total: count?.total ?? 0 };
}

/**
 * The requester as it stands now: its API key's binding (revoked, expired, or its user or role gone:
 * none), or the user with the role and admin flag they hold now (removed or inactive: none). An
 * approval never runs with more than the requester holds at run time.
 */
export async function currentRequester(tx: Queryable, siteId: string, requester: ApprovalRequester): Promise<UserPrincipal | null> {
  if (requester.via === 'apiKey') {
    if (requester.apiKeyId === null || !isUuid(requester.apiKeyId)) return null;
    const key = await findApiKeyBinding(tx, siteId, sql`k.id = ${requester.apiKeyId}::uuid`);
    return key ? apiKeyPrincipal(key) : null;
  }
  if (!isUuid(requester.userId)) return null;
  const [user] = await tx.query<{ role_id: string | null; admin: boolean | null }>(sql`
    SELECT u.role_id, r.admin FROM users u LEFT JOIN roles r ON r.site_id = u.site_id AND r.id = u.role_id
     WHERE u.site_id = ${siteId} AND u.id = ${requester.userId}::uuid AND u.deleted_at IS NULL AND u.status = 'active'`);
  if (!user) return null;
  return { kind: 'user', userId: requester.userId, roleId: user.role_id, admin: user.admin === true, sessionId: null, impersonatorId: null, via: requester.via, realm: 'studio' };
}
