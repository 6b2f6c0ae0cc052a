// The bench's EXPLAIN of the list query exactly as the service builds it (scripts/bench/items.ts).
import { randomUUID } from 'node:crypto';
import { createDatabase } from '../../../infra/postgres/database.ts';
import { listItems } from '../../../src/modules/items/queries.ts';
import { parseListQuery } from '../../../src/query/index.ts';
import { createInProcessContext } from './inProcessContext.ts';
import { recordingDatabase } from './recordingDatabase.ts';

/**
 * EXPLAIN ANALYZE of the list query exactly as the service builds it: listItems runs here on a
 * recording connection (application role, row-level security), then its main SELECT is explained.
 */
export async function explainList(databaseUrl: string, siteId: string, listPath: string): Promise<string[]> {
  const database = createDatabase({ connectionString: databaseUrl, poolSize: 2 });
  const { database: recording, recorded } = recordingDatabase(database);
  const { context, close } = await createInProcessContext(recording, []);
  try {
    const query = Object.fromEntries(new URLSearchParams(listPath.split('?')[1]));
    recorded.length = 0;
    await listItems(context, {
      siteId,
      collection: 'articles',
      query: parseListQuery(query),
      principal: { kind: 'user', userId: randomUUID(), roleId: null, admin: true, sessionId: null, via: 'session', realm: 'studio' },
      metadata: { actor: { kind: 'system', id: 'bench-explain' } },
    });
    const main = recorded.find((statement) => /ORDER BY/.test(statement.text) && /FROM items i/.test(statement.text));
    if (!main) throw new Error('the list query was not recorded');
    const lines = await database.withSite(siteId, async (tx) =>
      (await tx.query<{ 'QUERY PLAN': string }>({ text: `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${main.text}`, values: main.values })).map(
        (row) => row['QUERY PLAN'],
      ),
    );
    console.log(`EXPLAIN ${listPath} (as svc_app under row-level security):`);
    console.log(`  ${main.text.replace(/\s+/g, ' ')}`);
    for (const line of lines) console.log(`  ${line}`);
    if (lines.some((line) => /Seq Scan/.test(line))) console.log('  WARNING: the plan has a sequential scan');
    return [main.text.replace(/\s+/g, ' '), ...lines];
  } finally {
    await close();
    await database.close();
  }
}
