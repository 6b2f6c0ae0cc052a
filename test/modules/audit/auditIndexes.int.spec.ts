// Every documented filter of the audit list is answered from an index of audit_log, as the
// application role runs it (under row-level security), on a log of many sites: no filter reads a
// site's whole log, and none scans the table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../../infra/postgres/database.ts';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { AUDIT_FIELDS, auditListStatements } from '../../../src/modules/audit/queries.ts';
import type { FilterTree } from '../../../src/query/index.ts';
import { createFreshDatabase, type FreshDatabase } from '../../projections/freshDatabase.ts';

let fresh: FreshDatabase;
let app: Database;
const SITE = 'site-7';

beforeAll(async () => {
  fresh = await createFreshDatabase();
  app = createDatabase({ connectionString: fresh.url, poolSize: 2 });
  // 200,000 entries of 40 sites over 200,000 seconds; 1 % system, 1 % API key; 120 actions, 500
  // actors, 2,000 targets plus one session per 10 entries. Details: 0.1 % say a recordCount (0–4),
  // 0.1 % a consent type and version, the rest an item write's collection, id and changed fields.
  await fresh.owner.query(sql`
    INSERT INTO audit_log (site_id, position, event_id, action, actor_kind, actor_id, impersonator_id, target, request_id, occurred_at, details)
    SELECT 'site-' || (g % 40), g, gen_random_uuid(),
           'area' || (g % 40) || '.' || (ARRAY['created', 'updated', 'deleted'])[1 + (g / 40) % 3],
           CASE g % 100 WHEN 0 THEN 'system' WHEN 1 THEN 'apiKey' ELSE 'user' END,
           'user-' || (g % 500), NULL,
           CASE WHEN g % 10 = 0 THEN 'session/' || g ELSE 'item/articles/' || (g % 2000) END,
           'request-' || g, timestamptz '2024-01-01T00:00:00Z' + g * interval '1 second',
           CASE WHEN g % 1000 = 7 THEN jsonb_build_object('recordCount', (g / 1000) % 5, 'collection', 'patients')
                WHEN g % 1000 = 47 THEN jsonb_build_object('consentType', 'marketing', 'version', ((g / 1000) % 7)::text)
                ELSE jsonb_build_object('collection', 'articles', 'itemId', (g % 2000)::text, 'changedFields', jsonb_build_array('title')) END
      FROM generate_series(1, 200000) AS g`);
  await fresh.owner.query(sql`ANALYZE audit_log`);
}, 120_000);
afterAll(async () => {
  await app?.close();
  await fresh?.drop();
});

/** One selective filter per documented field and operator (occurredAt's as a window of its bounds). */
const FILTERS: Record<string, FilterTree> = {
  'action _eq': { action: { _eq: 'area7.created' } },
  'action _neq': { action: { _neq: 'area7.created' } },
  'action _in': { action: { _in: ['area7.created', 'area7.updated'] } },
  'action _starts_with': { action: { _starts_with: 'area7.' } },
  'actor _eq': { actor: { _eq: 'user-47' } },
  'actor _in': { actor: { _in: ['user-47', 'user-87'] } },
  'actorKind _eq': { actorKind: { _eq: 'system' } },
  'actorKind _in': { actorKind: { _in: ['system', 'apiKey'] } },
  'target _eq': { target: { _eq: 'item/articles/1247' } },
  'target _starts_with': { target: { _starts_with: 'item/articles/1247' } },
  'requestId _eq': { requestId: { _eq: 'request-12347' } },
  'occurredAt _gt _lt': { occurredAt: { _gt: '2024-01-02T00:00:00Z', _lt: '2024-01-02T01:00:00Z' } },
  'occurredAt _gte _lte': { occurredAt: { _gte: '2024-01-02T00:00:00Z', _lte: '2024-01-02T01:00:00Z' } },
  'details _json_contains': { details: { _json_contains: { consentType: 'marketing' } } },
  'details _has_key': { details: { _has_key: 'recordCount' } },
  'details _eq': { 'details.recordCount': { _eq: 3 } },
  'details _in': { 'details.version': { _in: ['3', '4'] } },
  'details _gt _lt': { 'details.recordCount': { _gt: 1, _lt: 4 } },
  'details _gte _lte': { 'details.recordCount': { _gte: 1, _lte: 3 } },
  'details _between': { 'details.recordCount': { _between: [1, 2] } },
  'details _nnull': { 'details.consentType': { _nnull: true } },
};

/** The column each filter narrows by; `_neq` narrows nothing (it reads the site's entries newest first). */
const NARROWS_BY: Record<string, string | null> = {
  'action _neq': null,
  'actor _eq': 'actor_id',
  'actor _in': 'actor_id',
  'actorKind _eq': 'actor_kind',
  'actorKind _in': 'actor_kind',
  'requestId _eq': 'request_id',
  'occurredAt _gt _lt': 'occurred_at',
  'occurredAt _gte _lte': 'occurred_at',
};

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

function nodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
}

async function planOf(statement: SqlFragment): Promise<PlanNode[]> {
  const [row] = await app.withSite(SITE, (tx) => tx.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(sql`EXPLAIN (FORMAT JSON) ${statement}`));
  return nodesOf(row!['QUERY PLAN'][0].Plan);
}

describe('the audit list on a log of many sites', () => {
  it('has a sample filter for every documented field and operator', () => {
    const documented = [...AUDIT_FIELDS].flatMap(([name, field]) => field.column!.operators.map((operator) => `${name} ${operator}`));
    const sampled = Object.values(FILTERS).flatMap((filter) =>
      // `details.recordCount` is the field `details` reached by a key.
      Object.entries(filter).flatMap(([name, operators]) => Object.keys(operators as object).map((operator) => `${name.split('.')[0]} ${operator}`)),
    );
    expect(new Set(sampled)).toEqual(new Set(documented));
  });

  it.each(Object.keys(FILTERS))('answers %s from an index, never scanning the table', async (name) => {
    const statements = auditListStatements(SITE, { filter: FILTERS[name]!, limit: 25, page: 1, dynamic: { now: new Date() } });
    const column = name in NARROWS_BY ? NARROWS_BY[name] : name.split(' ')[0];
    for (const statement of [statements.page, statements.total]) {
      const nodes = await planOf(statement);
      expect(nodes.filter((node) => node['Node Type'] === 'Seq Scan'), name).toEqual([]);
      const indexConditions = nodes.flatMap((node) => (node['Index Cond'] ? [node['Index Cond']] : []));
      expect(indexConditions.length, name).toBeGreaterThan(0);
      if (column) expect(indexConditions.join(' '), name).toContain(column);
    }
  });

  it('answers the unfiltered list from the primary key, newest first', async () => {
    const nodes = await planOf(auditListStatements(SITE, { filter: null, limit: 25, page: 1, dynamic: { now: new Date() } }).page);
    expect(nodes.some((node) => node['Index Name'] === 'audit_log_pkey' && node['Node Type'] === 'Index Scan')).toBe(true);
    expect(nodes.some((node) => node['Node Type'] === 'Sort')).toBe(false);
  });
});
