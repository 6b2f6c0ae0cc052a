// Reads of the agent work read models (docs/agent-goals.md): intents, goals, staged actions,
// incidents. Lists are newest first, each on an index of migration 0590.
import type { GoalStep } from '../../../domain/agents/agentWorkEvents.ts';
import type { ApprovalAgent, ApprovalRequester } from '../../../domain/ai/approvalEvents.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { raw, sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { errors } from '../../../domain/shared/appError.ts';
import type { Principal, UserPrincipal } from '../../auth/principal.ts';
import type { AppContext } from '../../runtime/context.ts';
import { uuidOr404, type PageQuery } from '../../server/routeKit.ts';
import type { GoalView, IncidentView, IntentView, StagedView, StepOutcome } from './agentWorkSchemas.ts';

const offsetOf = (query: PageQuery) => (query.page - 1) * query.limit;
const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** A list's page and total statements (exported for the index-use test). */
export interface ListStatements {
  page: SqlFragment;
  total: SqlFragment;
}

function listStatements(table: SqlFragment, where: SqlFragment, order: SqlFragment, query: PageQuery): ListStatements {
  return {
    page: sql`SELECT * FROM ${table} WHERE ${where} ORDER BY ${order} LIMIT ${query.limit} OFFSET ${offsetOf(query)}`,
    total: sql`SELECT count(*)::int AS total FROM ${table} WHERE ${where}`,
  };
}

async function runList<Row extends object>(tx: Queryable, statements: ListStatements): Promise<{ rows: Row[]; total: number }> {
  const rows = await tx.query<Row>(statements.page);
  const [count] = await tx.query<{ total: number }>(statements.total);
  return { rows, total: count?.total ?? 0 };
}

interface IntentRow {
  id: string;
  title: string;
  description: string | null;
  role: string | null;
  status: 'open' | 'closed';
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  closed_by: string | null;
  closed_at: Date | null;
  close_reason: string | null;
}

const intentView = (row: IntentRow): IntentView => ({
  id: row.id,
  title: row.title,
  description: row.description,
  role: row.role,
  status: row.status,
  createdBy: row.created_by,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
  closedBy: row.closed_by,
  closedAt: iso(row.closed_at),
  closeReason: row.close_reason,
});

export function intentListStatements(siteId: string, query: PageQuery & { status?: string | undefined }): ListStatements {
  const status = query.status ?? null;
  const where = status === null ? sql`site_id = ${siteId}` : sql`site_id = ${siteId} AND status = ${status}`;
  return listStatements(raw('agent_intents'), where, raw('created_at DESC, id DESC'), query);
}

export async function listIntents(tx: Queryable, siteId: string, query: PageQuery & { status?: string | undefined }): Promise<{ intents: IntentView[]; total: number }> {
  const { rows, total } = await runList<IntentRow>(tx, intentListStatements(siteId, query));
  return { intents: rows.map(intentView), total };
}

export async function findIntent(tx: Queryable, siteId: string, intentId: string): Promise<IntentView | null> {
  const [row] = await tx.query<IntentRow>(sql`SELECT * FROM agent_intents WHERE site_id = ${siteId} AND id = ${intentId}::uuid`);
  return row ? intentView(row) : null;
}

interface GoalRow {
  id: string;
  title: string;
  instructions: string | null;
  steps: GoalStep[];
  role: string | null;
  intent_id: string | null;
  execution: GoalView['execution'];
  status: GoalView['status'];
  requester: ApprovalRequester;
  created_by: string;
  run_id: string | null;
  outcomes: StepOutcome[];
  code: string | null;
  message: string | null;
  outcome: 'succeeded' | 'failed' | 'abandoned' | null;
  summary: string | null;
  settled_by: string | null;
  settled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const goalView = (row: GoalRow): GoalView => ({
  id: row.id,
  title: row.title,
  instructions: row.instructions,
  steps: row.steps,
  role: row.role,
  intentId: row.intent_id,
  execution: row.execution,
  status: row.status,
  runId: row.run_id,
  outcomes: row.outcomes,
  code: row.code,
  message: row.message,
  createdBy: row.created_by,
  requester: row.requester,
  settlement: row.outcome && row.settled_at ? { outcome: row.outcome, summary: row.summary, settledBy: row.settled_by, settledAt: row.settled_at.toISOString() } : null,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** A site's goals: every one for an administrator, else the caller's own (`createdBy`). */
export function goalListStatements(
  siteId: string,
  createdBy: string | null,
  query: PageQuery & { status?: string | undefined; intentId?: string | undefined },
): ListStatements {
  let where = sql`site_id = ${siteId}`;
  if (createdBy !== null) where = sql`${where} AND created_by = ${createdBy}`;
  if (query.status !== undefined) where = sql`${where} AND status = ${query.status}`;
  if (query.intentId !== undefined) where = sql`${where} AND intent_id = ${query.intentId}::uuid`;
  return listStatements(raw('agent_goals'), where, raw('created_at DESC, id DESC'), query);
}

export async function listGoals(
  tx: Queryable,
  siteId: string,
  createdBy: string | null,
  query: PageQuery & { status?: string | undefined; intentId?: string | undefined },
): Promise<{ goals: GoalView[]; total: number }> {
  const { rows, total } = await runList<GoalRow>(tx, goalListStatements(siteId, createdBy, query));
  return { goals: rows.map(goalView), total };
}

export async function findGoal(tx: Queryable, siteId: string, goalId: string): Promise<GoalView | null> {
  const [row] = await tx.query<GoalRow>(sql`SELECT * FROM agent_goals WHERE site_id = ${siteId} AND id = ${goalId}::uuid`);
  return row ? goalView(row) : null;
}

/** The goal, when the caller may see it (its creator, a site administrator); else 404, as another site's. */
export async function visibleGoal(context: AppContext, siteId: string, principal: UserPrincipal, id: string): Promise<GoalView> {
  const goal = await context.database.withSiteReads(siteId, (tx) => findGoal(tx, siteId, uuidOr404(id, 'Goal')));
  if (!goal || !(principal.admin || goal.createdBy === principal.userId)) throw errors.notFound('Goal not found');
  return goal;
}

interface StagedRow {
  id: string;
  skill: string;
  input: Record<string, unknown>;
  requester: ApprovalRequester;
  agent: ApprovalAgent;
  on_behalf_of: string;
  constitution_version: number | null;
  run_after: Date;
  status: StagedView['status'];
  vetoed_by: string | null;
  veto_reason: string | null;
  code: string | null;
  message: string | null;
  created_at: Date;
  updated_at: Date;
}

const stagedView = (row: StagedRow): StagedView => ({
  id: row.id,
  skill: row.skill,
  input: row.input,
  requester: row.requester,
  agent: row.agent,
  constitutionVersion: row.constitution_version,
  runAfter: row.run_after.toISOString(),
  status: row.status,
  vetoedBy: row.vetoed_by,
  vetoReason: row.veto_reason,
  code: row.code,
  message: row.message,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** A site's staged actions: every one for an administrator, else those acting for the caller. */
export function stagedListStatements(siteId: string, onBehalfOf: string | null, query: PageQuery & { status?: string | undefined }): ListStatements {
  let where = sql`site_id = ${siteId}`;
  if (onBehalfOf !== null) where = sql`${where} AND on_behalf_of = ${onBehalfOf}`;
  if (query.status !== undefined) where = sql`${where} AND status = ${query.status}`;
  return listStatements(raw('agent_staged_actions'), where, raw('created_at DESC, id DESC'), query);
}

export async function listStaged(
  tx: Queryable,
  siteId: string,
  onBehalfOf: string | null,
  query: PageQuery & { status?: string | undefined },
): Promise<{ staged: StagedView[]; total: number }> {
  const { rows, total } = await runList<StagedRow>(tx, stagedListStatements(siteId, onBehalfOf, query));
  return { staged: rows.map(stagedView), total };
}

export async function findStaged(tx: Queryable, siteId: string, stagedId: string): Promise<StagedView | null> {
  const [row] = await tx.query<StagedRow>(sql`SELECT * FROM agent_staged_actions WHERE site_id = ${siteId} AND id = ${stagedId}::uuid`);
  return row ? stagedView(row) : null;
}

interface IncidentRow {
  id: string;
  role: string;
  severity: IncidentView['severity'];
  title: string;
  detail: string | null;
  intent_id: string | null;
  status: 'open' | 'resolved';
  raised_by: string | null;
  raised_at: Date;
  resolved_by: string | null;
  resolved_at: Date | null;
  resolution: string | null;
}

const incidentView = (row: IncidentRow): IncidentView => ({
  id: row.id,
  role: row.role,
  severity: row.severity,
  title: row.title,
  detail: row.detail,
  intentId: row.intent_id,
  status: row.status,
  raisedBy: row.raised_by,
  raisedAt: row.raised_at.toISOString(),
  resolvedBy: row.resolved_by,
  resolvedAt: iso(row.resolved_at),
  resolution: row.resolution,
});

export function incidentListStatements(siteId: string, query: PageQuery & { status?: string | undefined; role?: string | undefined }): ListStatements {
  let where = sql`site_id = ${siteId}`;
  if (query.status !== undefined) where = sql`${where} AND status = ${query.status}`;
  if (query.role !== undefined) where = sql`${where} AND role = ${query.role}`;
  return listStatements(raw('agent_incidents'), where, raw('raised_at DESC, id DESC'), query);
}

export async function listIncidents(
  tx: Queryable,
  siteId: string,
  query: PageQuery & { status?: string | undefined; role?: string | undefined },
): Promise<{ incidents: IncidentView[]; total: number }> {
  const { rows, total } = await runList<IncidentRow>(tx, incidentListStatements(siteId, query));
  return { incidents: rows.map(incidentView), total };
}

export async function findIncident(tx: Queryable, siteId: string, incidentId: string): Promise<IncidentView | null> {
  const [row] = await tx.query<IncidentRow>(sql`SELECT * FROM agent_incidents WHERE site_id = ${siteId} AND id = ${incidentId}::uuid`);
  return row ? incidentView(row) : null;
}

/** Whether the site has an agent role of this name (/agent/roles). */
export async function agentRoleExists(tx: Queryable, siteId: string, role: string): Promise<boolean> {
  const [row] = await tx.query<{ found: boolean }>(sql`SELECT EXISTS (SELECT 1 FROM agent_roles WHERE site_id = ${siteId} AND name = ${role}) AS found`);
  return row?.found === true;
}

/** Who sees a staged action: a site administrator, or the principal it acts for. */
export function mayRead(principal: Principal, staged: StagedView): boolean {
  return principal.kind === 'user' && (principal.admin || principal.userId === staged.requester.userId);
}
