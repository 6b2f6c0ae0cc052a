// Every documented filter of the field access log is answered from an index of field_access_log,
// as the application role runs it (under row-level security), on a log of many sites.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../../infra/postgres/database.ts';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { FIELD_ACCESS_LOG_FIELDS, fieldAccessLogStatements } from '../../../src/modules/privacy/fieldAccessLog.ts';
import type { FilterTree } from '../../../src/query/index.ts';
import { createFreshDatabase, type FreshDatabase } from '../../projections/freshDatabase.ts';

let fresh: FreshDatabase;
let app: Database;
const SITE = 'site-7';

beforeAll(async () => {
  fresh = await createFreshDatabase();
  app = createDatabase({ connectionString: fresh.url, poolSize: 2 });
  // 200,000 field reads of 40 sites over 200,000 seconds: 500 readers, 20 collections, 5,000 items.
  await fresh.owner.query(sql`
    INSERT INTO field_access_log (site_id, position, ordinal, user_id, actor_kind, collection, item_id, field, sensitivity, request_id, accessed_at)
    SELECT 'site-' || (g % 40), g, 1, 'user-' || (g % 500), 'user', 'collection' || (g % 20), 'item-' || (g % 5000),
           'email', 'pii', 'request-' || g, timestamptz '2024-01-01T00:00:00Z' + g * interval '1 second'
      FROM generate_series(1, 200000) AS g`);
  await fresh.owner.query(sql`ANALYZE field_access_log`);
}, 120_000);
afterAll(async () => {
  await app?.close();
  await fresh?.drop();
});

/** One selective filter per documented field and operator (at's as a window of its bounds). */
const FILTERS: Record<string, FilterTree> = {
  'actor _eq': { actor: { _eq: 'user-47' } },
  'actor _in': { actor: { _in: ['user-47', 'user-87'] } },
  'collection _eq': { collection: { _eq: 'collection7' } },
  'itemId _eq': { itemId: { _eq: 'item-1247' } },
  'at _gt _lt': { at: { _gt: '2024-01-02T00:00:00Z', _lt: '2024-01-02T01:00:00Z' } },
  'at _gte _lte': { at: { _gte: '2024-01-02T00:00:00Z', _lte: '2024-01-02T01:00:00Z' } },
};
/** The index that serves each field (0100_content.sql, 0390_field_access_log_indexes.sql) and the column it narrows by. */
const SERVED_BY: Record<string, [index: string, column: string]> = {
  actor: ['field_access_log_actor', 'user_id'],
  collection: ['field_access_log_item', 'collection'],
  itemId: ['field_access_log_item_id', 'item_id'],
  at: ['field_access_log_time', 'accessed_at'],
};

interface PlanNode {
  'Node Type': string;
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

describe('the field access log on reads of many sites', () => {
  it('has a sample filter for every documented field and operator', () => {
    const documented = [...FIELD_ACCESS_LOG_FIELDS].flatMap(([name, field]) => field.column!.operators.map((operator) => `${name} ${operator}`));
    const sampled = Object.values(FILTERS).flatMap((filter) =>
      Object.entries(filter).flatMap(([name, operators]) => Object.keys(operators as object).map((operator) => `${name} ${operator}`)),
    );
    expect(new Set(sampled)).toEqual(new Set(documented));
  });

  it.each(Object.keys(FILTERS))('answers %s from an index, never scanning the table', async (name) => {
    const statements = fieldAccessLogStatements(SITE, { filter: FILTERS[name]!, limit: 25, page: 1, dynamic: { now: new Date() } });
    const [index, column] = SERVED_BY[name.split(' ')[0]!]!;
    for (const statement of [statements.page, statements.total]) {
      const nodes = await planOf(statement);
      expect(nodes.filter((node) => node['Node Type'] === 'Seq Scan'), name).toEqual([]);
      const scans = nodes.filter((node) => node['Index Name'] === index);
      expect(scans.length, name).toBeGreaterThan(0);
      expect(scans.map((node) => node['Index Cond']).join(' '), name).toContain(column);
    }
  });
});
