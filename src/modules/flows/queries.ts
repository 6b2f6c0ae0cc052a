// Reads of flows, their runs and steps (docs/flows.md).
import type { FlowContent, FlowGraph, TriggerOptions } from '../../../domain/flows/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { PageQuery } from '../../server/routeKit.ts';
import type { FlowView, RunDetail, RunView } from './schemas.ts';

const offsetOf = (query: PageQuery) => (query.page - 1) * query.limit;
const iso = (date: Date | null) => (date ? date.toISOString() : null);

interface FlowRow {
  site_id: string;
  id: string;
  name: string;
  description: string | null;
  status: FlowContent['status'];
  trigger: FlowContent['trigger'];
  trigger_options: TriggerOptions;
  graph: FlowGraph;
  act_as: { roleId: string } | null;
  owner_id: string | null;
  token_hash: string | null;
  next_run_at: Date | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

const flowView = (row: FlowRow): FlowView => ({
  id: row.id,
  name: row.name,
  description: row.description,
  status: row.status,
  trigger: row.trigger,
  triggerOptions: row.trigger_options,
  graph: row.graph,
  actAs: row.act_as,
  ownerId: row.owner_id,
  hasToken: row.token_hash !== null,
  nextRunAt: iso(row.next_run_at),
  version: row.version,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export async function listFlows(
  tx: Queryable,
  siteId: string,
  query: PageQuery & { status?: string | undefined; trigger?: string | undefined },
): Promise<{ flows: FlowView[]; total: number }> {
  const status = query.status ?? null;
  const trigger = query.trigger ?? null;
  const where = sql`site_id = ${siteId} AND (${status}::text IS NULL OR status = ${status}::text) AND (${trigger}::text IS NULL OR trigger = ${trigger}::text)`;
  const rows = await tx.query<FlowRow>(sql`SELECT * FROM flows WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${query.limit} OFFSET ${offsetOf(query)}`);
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM flows WHERE ${where}`);
  return { flows: rows.map(flowView), total: count?.total ?? 0 };
}

export async function findFlow(tx: Queryable, siteId: string, flowId: string): Promise<FlowView | null> {
  const [row] = await tx.query<FlowRow>(sql`SELECT * FROM flows WHERE site_id = ${siteId} AND id = ${flowId}`);
  return row ? flowView(row) : null;
}

/** A webhook call names only the flow: its site, trigger, status and token hash, found by id across sites (svc_flow_webhook). */
export async function findWebhookFlow(
  database: Pick<Queryable, 'query'>,
  flowId: string,
): Promise<{ siteId: string; trigger: string; status: string; tokenHash: string | null } | null> {
  const [row] = await database.query<{ site_id: string; trigger: string; status: string; token_hash: string | null }>(
    sql`SELECT * FROM svc_flow_webhook(${flowId}::uuid)`,
  );
  return row ? { siteId: row.site_id, trigger: row.trigger, status: row.status, tokenHash: row.token_hash } : null;
}

interface RunRow {
  id: string;
  flow_id: string;
  status: RunView['status'];
  trigger: RunView['trigger'];
  input: unknown;
  depth: number;
  dry_run: boolean;
  replay_of: string | null;
  started_at: Date;
  executing_at: Date | null;
  finished_at: Date | null;
  error: string | null;
}

const runView = (row: RunRow): RunView => ({
  id: row.id,
  flowId: row.flow_id,
  status: row.status,
  trigger: row.trigger,
  input: row.input,
  depth: row.depth,
  dryRun: row.dry_run,
  replayOf: row.replay_of,
  startedAt: row.started_at.toISOString(),
  executingAt: iso(row.executing_at),
  finishedAt: iso(row.finished_at),
  error: row.error,
});

export async function listRuns(
  tx: Queryable,
  siteId: string,
  flowId: string,
  query: PageQuery & { status?: string | undefined },
): Promise<{ runs: RunView[]; total: number }> {
  const status = query.status ?? null;
  const where = sql`site_id = ${siteId} AND flow_id = ${flowId} AND (${status}::text IS NULL OR status = ${status}::text)`;
  const rows = await tx.query<RunRow>(sql`SELECT * FROM flow_runs WHERE ${where} ORDER BY started_at DESC, id DESC LIMIT ${query.limit} OFFSET ${offsetOf(query)}`);
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM flow_runs WHERE ${where}`);
  return { runs: rows.map(runView), total: count?.total ?? 0 };
}

export async function findRun(tx: Queryable, siteId: string, runId: string): Promise<RunView | null> {
  const [row] = await tx.query<RunRow>(sql`SELECT * FROM flow_runs WHERE site_id = ${siteId} AND id = ${runId}`);
  return row ? runView(row) : null;
}

export async function findRunDetail(tx: Queryable, siteId: string, flowId: string, runId: string): Promise<RunDetail | null> {
  const run = await findRun(tx, siteId, runId);
  if (!run || run.flowId !== flowId) return null;
  const steps = await tx.query<{
    node_id: string;
    operation: string;
    status: RunDetail['steps'][number]['status'];
    output: unknown;
    error: string | null;
    duration_ms: number;
    attempts: number;
    started_at: Date;
  }>(sql`SELECT node_id, operation, status, output, error, duration_ms, attempts, started_at FROM flow_run_steps WHERE site_id = ${siteId} AND run_id = ${runId} ORDER BY seq`);
  return {
    ...run,
    steps: steps.map((step) => ({
      nodeId: step.node_id,
      operation: step.operation,
      status: step.status,
      output: step.output,
      error: step.error,
      durationMs: step.duration_ms,
      attempts: step.attempts,
      startedAt: step.started_at.toISOString(),
    })),
  };
}

/** The depth of the runs that caused writes (the loop guard), by run id across sites (svc_flow_run_depths). */
export async function runDepths(database: Pick<Queryable, 'query'>, runIds: readonly string[]): Promise<Map<string, number>> {
  if (runIds.length === 0) return new Map();
  const rows = await database.query<{ id: string; depth: number }>(sql`SELECT * FROM svc_flow_run_depths(${runIds as string[]}::uuid[])`);
  return new Map(rows.map((row) => [row.id, row.depth]));
}

/** The user a flow acts as by default (its owner), with the role and admin flag they hold now. */
export async function ownerIdentity(tx: Queryable, siteId: string, userId: string): Promise<{ roleId: string | null; admin: boolean } | null> {
  const [row] = await tx.query<{ role_id: string | null; admin: boolean | null }>(sql`
    SELECT u.role_id, r.admin FROM users u LEFT JOIN roles r ON r.site_id = u.site_id AND r.id = u.role_id
     WHERE u.site_id = ${siteId} AND u.id = ${userId} AND u.deleted_at IS NULL AND u.status = 'active'`);
  return row ? { roleId: row.role_id, admin: row.admin === true } : null;
}

export async function roleIdentity(tx: Queryable, siteId: string, roleId: string): Promise<{ admin: boolean } | null> {
  const [row] = await tx.query<{ admin: boolean }>(sql`SELECT admin FROM roles WHERE site_id = ${siteId} AND id = ${roleId}`);
  return row ? { admin: row.admin } : null;
}
