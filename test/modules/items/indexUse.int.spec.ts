// The partial expression indexes of `indexed` fields serve the list queries the service builds, as
// the application role under row-level security: the sort by an indexed field walks its index, an
// equality filter on one is an index condition. (Sequential scans and full sorts are priced out so
// the planner shows which index fits; on a table this small it would rather scan and sort.)
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, type Database } from '../../../infra/postgres/database.ts';
import type { SqlQuery } from '../../../infra/postgres/sql.ts';
import { listItems } from '../../../src/modules/items/queries.ts';
import { parseListQuery } from '../../../src/query/index.ts';
import { settledIndexes } from '../../support/fieldIndexes.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { withCall, type ContentSite } from './support.ts';

const service = await startTestServiceForFile();
const database = createDatabase({ connectionString: inject('databaseUrl'), poolSize: 2 });
afterAll(() => database.close());
let site: ContentSite;

beforeAll(async () => {
  site = withCall(service, await createTestSite(service, 'index'));
  await site.call('POST', '/collections', {
    name: 'articles',
    fields: [
      { field: 'title', type: 'string' },
      { field: 'category', type: 'string', indexed: true },
      { field: 'published_at', type: 'dateTime', indexed: true },
      { field: 'views', type: 'integer', indexed: true },
    ],
  });
  const items = Array.from({ length: 300 }, (_, i) => ({
    title: `T${i}`,
    status: i % 2 ? 'published' : 'draft',
    category: `c${i % 10}`,
    views: i,
    published_at: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
  }));
  expect((await site.call('POST', '/items/articles', items)).status).toBe(201);
  const owner = createDatabase({ connectionString: inject('databaseUrl'), poolSize: 1, asApplicationRole: false });
  // The indexes are built after the schema command returns; the planner uses them once they are valid.
  await settledIndexes(service, owner.pool, site.siteId);
  await owner.query({ text: 'ANALYZE items', values: [] });
  await owner.close();
});

/** The main statement listItems sends for `query`, recorded on the application role's own connection. */
async function statementsOf(query: string): Promise<SqlQuery[]> {
  const recorded: SqlQuery[] = [];
  const recording: Database = {
    ...database,
    withSiteReads: (siteId, work) =>
      database.withSiteReads(siteId, (tx) => work({ ...tx, query: (statement) => (recorded.push(statement), tx.query(statement)) })),
  };
  const context = { database: recording, projections: [], schemas: service.context.schemas, keyRing: service.context.keyRing };
  await listItems(context, {
    siteId: site.siteId,
    collection: 'articles',
    query: parseListQuery(Object.fromEntries(new URLSearchParams(query))),
    principal: { kind: 'user', userId: randomUUID(), roleId: null, admin: true, sessionId: null, via: 'session', realm: 'studio' },
    metadata: { actor: { kind: 'system', id: 'index-check' } },
  });
  return recorded.filter((statement) => / FROM items i /.test(statement.text.replace(/\s+/g, ' ')));
}

/** The plan with sequential scans (and, with `noSort`, full sorts) priced out, so the fitting index shows. */
async function plan(statement: SqlQuery, noSort = false): Promise<string> {
  return database.withSite(site.siteId, async (tx) => {
    await tx.query({ text: 'SET LOCAL enable_seqscan = off', values: [] });
    if (noSort) await tx.query({ text: 'SET LOCAL enable_sort = off', values: [] });
    const rows = await tx.query<{ 'QUERY PLAN': string }>({ text: `EXPLAIN (COSTS OFF) ${statement.text}`, values: statement.values });
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

describe('field indexes', () => {
  it('a filter on a column plus a sort on an indexed field walks the field index', async () => {
    const [main] = await statementsOf('filter[status][_eq]=published&sort=-published_at&limit=25&meta=none');
    const explained = await plan(main!, true);
    // Empty values last: a forward scan of the field's DESC NULLS LAST twin (migration 0491).
    expect(explained).toMatch(/Index Scan using items_f_\w+ on items/);
    expect(explained).not.toMatch(/Seq Scan/);
  });

  it('an equality filter on an indexed content field is an index condition under row-level security', async () => {
    const [main] = await statementsOf('filter[category][_eq]=c3&aggregate[count]=*');
    const explained = await plan(main!);
    expect(explained).toMatch(/Index Cond: .*\(data ->> 'category'::text\) = 'c3'::text/);
    expect(explained).not.toMatch(/Seq Scan/);
  });

  it('a sort on an indexed numeric field walks its index', async () => {
    const [main] = await statementsOf('sort=views&limit=10&meta=none');
    expect(await plan(main!)).toMatch(/Index Scan using items_f_\w+ on items/);
  });
});
