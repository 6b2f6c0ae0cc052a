// Reading the audit log and checking a site's hash chains and its signed checkpoints.
import type { SigningKey } from '../../../infra/crypto/signing.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { AuditDetails } from '../../../domain/shared/auditEvents.ts';
import { join, sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { compileFilterNode, readModelFields, resolveFilter, type ComparisonOperator, type DynamicValueContext, type FilterNode, type FilterTree } from '../../query/index.ts';
import { verifyCheckpoints, type CheckpointVerification } from './checkpointQueries.ts';

/**
 * An entry as the site's administrators read it. It carries no log position: positions are global,
 * so their gaps would count other sites' writes (issue 27, finding 11); the list is newest first.
 */
export interface AuditEntry {
  eventId: string;
  action: string;
  actor: { kind: string; id: string | null; impersonatorId: string | null };
  target: string;
  requestId: string | null;
  siteId: string;
  occurredAt: string;
  /** What its event type declares (domain/shared/auditEvents.ts): ids, counts, kinds, states; never a personal value. */
  details: AuditDetails;
  /** An agent's write (actor kind `agent`, docs/ai-skills.md): for whom it acted, who approved it, its role and constitution; else null. */
  agent: { onBehalfOf: string; approvedBy: string | null; approvalId: string | null; role: string | null; constitutionVersion: number | null } | null;
}

/**
 * The audit fields a filter may name: columns of `audit_log`, each with the operators its index
 * serves (infra/postgres/migrations/0002 and 0009; `_neq` reads the site's entries newest first),
 * and `details`, reached by its keys (`details.recordCount`), served by audit_log_details (0481).
 */
export const AUDIT_FIELDS = readModelFields({
  action: { column: 'action', kind: 'text', operators: ['_eq', '_neq', '_in', '_starts_with'] },
  actor: { column: 'actor_id', kind: 'text', operators: ['_eq', '_in'] },
  actorKind: { column: 'actor_kind', kind: 'text', operators: ['_eq', '_in'] },
  target: { column: 'target', kind: 'text', operators: ['_eq', '_starts_with'] },
  requestId: { column: 'request_id', kind: 'text', operators: ['_eq'] },
  occurredAt: { column: 'occurred_at', kind: 'timestamptz', operators: ['_gt', '_gte', '_lt', '_lte'] },
});

/**
 * The operators of `details`: on the whole object `_json_contains` and `_has_key`; on a key
 * (`details.recordCount`) each of these, every one false where the entry has no such key, so the
 * index narrows by the key (detailsGuards). `_neq`, `_nin` and `_null` are left out: they match
 * entries without the key, which no index finds.
 */
export const DETAILS_OPERATORS: readonly ComparisonOperator[] = ['_eq', '_in', '_lt', '_lte', '_gt', '_gte', '_between', '_nnull', '_json_contains', '_has_key'];
// Set beside readModelFields, which checks operators against the column's kind (jsonb takes no
// ordering): the ordering operators apply to a key's value, and the query language still refuses
// them on `details` itself.
AUDIT_FIELDS.set('details', { field: 'details', type: 'json', column: { name: 'details', kind: 'json', operators: DETAILS_OPERATORS } });

function isDetails(node: FilterNode): boolean {
  return 'target' in node && node.target.field.column?.name === 'details';
}

/**
 * What each condition on a details key implies and the details index can find: the key's presence
 * (`details ? 'recordCount'`), or for an equality the containment (`details @> '{"recordCount": 2}'`).
 * Only conditions that every entry of the list must meet (not under `_or`) give one.
 */
function detailsGuards(node: FilterNode): SqlFragment[] {
  if (node.kind === 'and') return node.children.flatMap(detailsGuards);
  if (!isDetails(node) || !('target' in node) || !node.target.jsonPath) return [];
  const [key] = node.target.jsonPath as [string];
  switch (node.kind) {
    case 'compare':
      if (node.operator === '_neq') return [];
      if (node.operator === '_eq') {
        const contained = node.target.jsonPath.reduceRight<unknown>((inner, segment) => ({ [segment]: inner }), node.value);
        return [sql`a.details @> ${JSON.stringify(contained)}::jsonb`];
      }
      return [sql`a.details ? ${key}::text`];
    case 'in':
      return node.negated || node.includesNull ? [] : [sql`a.details ? ${key}::text`];
    case 'isNull':
      return node.isNull ? [] : [sql`a.details ? ${key}::text`];
    default:
      return [sql`a.details ? ${key}::text`];
  }
}

export interface AuditListQuery {
  /** The `filter` parameter as parsed by src/query (bracket or JSON form); null for none. */
  filter: FilterTree | null;
  limit: number;
  page: number;
  /** For $NOW and $CURRENT_USER in filter values. */
  dynamic: DynamicValueContext;
}

/** The page's statement and the total's, newest entry first; throws VALIDATION_FAILED on a bad filter. */
export function auditListStatements(siteId: string, query: AuditListQuery): { page: SqlFragment; total: SqlFragment } {
  const node = resolveFilter(query.filter, { ...query.dynamic, fields: AUDIT_FIELDS });
  const where = join([sql`a.site_id = ${siteId}`, ...detailsGuards(node), compileFilterNode(node, 'a')], ' AND ');
  const offset = (query.page - 1) * query.limit;
  return {
    page: sql`SELECT * FROM audit_log a WHERE ${where} ORDER BY a.position DESC LIMIT ${query.limit} OFFSET ${offset}`,
    total: sql`SELECT count(*)::int AS total FROM audit_log a WHERE ${where}`,
  };
}

interface AuditRow {
  event_id: string;
  action: string;
  actor_kind: string;
  actor_id: string | null;
  impersonator_id: string | null;
  target: string;
  request_id: string | null;
  site_id: string;
  occurred_at: Date;
  details: AuditDetails;
  on_behalf_of: string | null;
  approved_by: string | null;
  approval_id: string | null;
  agent_role: string | null;
  constitution_version: number | null;
}

function entryOf(row: AuditRow): AuditEntry {
  return {
    eventId: row.event_id,
    action: row.action,
    actor: { kind: row.actor_kind, id: row.actor_id, impersonatorId: row.impersonator_id },
    target: row.target,
    requestId: row.request_id,
    siteId: row.site_id,
    occurredAt: row.occurred_at.toISOString(),
    details: row.details,
    agent:
      row.on_behalf_of === null
        ? null
        : { onBehalfOf: row.on_behalf_of, approvedBy: row.approved_by, approvalId: row.approval_id, role: row.agent_role, constitutionVersion: row.constitution_version },
  };
}

export async function listAudit(tx: Queryable, siteId: string, query: AuditListQuery): Promise<{ entries: AuditEntry[]; total: number }> {
  const statements = auditListStatements(siteId, query);
  const rows = await tx.query<AuditRow>(statements.page);
  const [count] = await tx.query<{ total: number }>(statements.total);
  return { total: count?.total ?? 0, entries: rows.map(entryOf) };
}

/** GET /audit/:eventId: one entry of the site, or null (another site's entry is none of its own). */
export async function findAuditEntry(tx: Queryable, siteId: string, eventId: string): Promise<AuditEntry | null> {
  const [row] = await tx.query<AuditRow>(sql`SELECT * FROM audit_log WHERE site_id = ${siteId} AND event_id = ${eventId}::uuid`);
  return row ? entryOf(row) : null;
}

export interface ChainVerification {
  valid: boolean;
  eventsChecked: number;
  streamsChecked: number;
  firstBrokenLink: null | { position: number; streamId: string; streamPosition: number; reason: 'hash_mismatch' | 'broken_link' | 'gap' };
}

/** Recomputes every event hash of the site and checks each links to its predecessor in its stream. */
export async function verifyChains(tx: Queryable, siteId: string): Promise<ChainVerification> {
  const [summary] = await tx.query<{ events: number; streams: number }>(
    sql`SELECT count(*)::int AS events, count(DISTINCT stream_id)::int AS streams FROM events WHERE site_id = ${siteId}`,
  );
  const [broken] = await tx.query<{ position: number; stream_id: string; stream_position: number; reason: 'hash_mismatch' | 'broken_link' | 'gap' }>(sql`
    WITH chained AS (
      SELECT position, stream_id, stream_position, hash, prev_hash,
             lag(hash) OVER w AS previous_hash,
             coalesce(lag(stream_position) OVER w, 0) AS previous_position,
             svc_event_hash(prev_hash, site_id, stream_id, stream_position, event_id, type, schema_version, data, metadata, recorded_at) AS recomputed
        FROM events WHERE site_id = ${siteId}
      WINDOW w AS (PARTITION BY stream_id ORDER BY stream_position))
    SELECT position, stream_id, stream_position,
           CASE WHEN recomputed <> hash THEN 'hash_mismatch'
                WHEN stream_position <> previous_position + 1 THEN 'gap'
                ELSE 'broken_link' END AS reason
      FROM chained
     WHERE recomputed <> hash OR prev_hash IS DISTINCT FROM previous_hash OR stream_position <> previous_position + 1
     ORDER BY position LIMIT 1`);
  return {
    valid: !broken,
    eventsChecked: summary?.events ?? 0,
    streamsChecked: summary?.streams ?? 0,
    firstBrokenLink: broken
      ? { position: broken.position, streamId: broken.stream_id, streamPosition: broken.stream_position, reason: broken.reason }
      : null,
  };
}

export interface LogVerification extends ChainVerification {
  checkpoints: CheckpointVerification;
  erasures: ErasureReport;
}

/**
 * Executed erasures (docs/privacy.md): they destroyed sealed values outside the log and hard-deleted
 * records through it, so the chains and checkpoints still hold; verify names them so that a reader
 * of the report can tell a record erased on purpose from one removed by tampering.
 */
export interface ErasureReport {
  executed: number;
  /** The newest 100. */
  latest: { erasureId: string; collection: string; executedAt: string; recordCount: number; shreddedValues: number }[];
}

async function erasureReport(tx: Queryable, siteId: string): Promise<ErasureReport> {
  const rows = await tx.query<{ id: string; collection: string; executed_at: Date; record_count: number; shredded_values: number; executed: number }>(sql`
    SELECT id, collection, executed_at, record_count, shredded_values, count(*) OVER ()::int AS executed
      FROM erasure_requests WHERE site_id = ${siteId} AND status = 'executed'
     ORDER BY executed_at DESC, id DESC LIMIT 100`);
  return {
    executed: rows[0]?.executed ?? 0,
    latest: rows.map((row) => ({ erasureId: row.id, collection: row.collection, executedAt: row.executed_at.toISOString(), recordCount: row.record_count, shreddedValues: row.shredded_values })),
  };
}

/**
 * GET /audit/verify: each stream's hash chain, and the whole log against the site's signed
 * checkpoints (a deleted stream, a cut tail). The log is valid when neither finds a problem.
 */
export async function verifyLog(tx: Queryable, siteId: string, key: SigningKey): Promise<LogVerification> {
  const chains = await verifyChains(tx, siteId);
  const checkpoints = await verifyCheckpoints(tx, siteId, key);
  return { ...chains, valid: chains.valid && checkpoints.problems.length === 0, checkpoints, erasures: await erasureReport(tx, siteId) };
}
