// The change feed is a read model like any other: a rebuild from the log gives the same rows,
// sequences included (on a database of its own: a rebuild empties the feed of every site).
import { describe, expect, it } from 'vitest';
import { orderedMeta } from '../../../domain/content/schemaModel.ts';
import { streamId } from '../../../domain/shared/events.ts';
import { createDatabase } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { changeFeedProjection } from '../../../projections/changeFeedProjection.ts';
import { rebuildProjection } from '../../../src/runtime/projectionRunner.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { appendEvents, appendItemEvent } from './support.ts';

const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: database.url });

async function feedRows(siteIds: string[]) {
  const rows: unknown[] = [];
  for (const siteId of siteIds) {
    rows.push(
      ...(await service.context.database.withSite(siteId, (tx) =>
        tx.query(sql`SELECT site_id, seq, position, event_id, type, collection, item_id, occurred_at, envelope, snapshot_key
                       FROM cdc_feed ORDER BY seq`),
      )),
      ...(await service.context.database.withSite(siteId, (tx) => tx.query(sql`SELECT * FROM cdc_feed_sites`))),
    );
  }
  return rows;
}

describe('change-feed projection rebuild', () => {
  it('gives the same entries and sequences as the incremental run', async () => {
    const first = await createTestSite(service);
    const second = await createTestSite(service);
    await Promise.all(
      [first, second].flatMap((site) =>
        Array.from({ length: 4 }, async (_, writer) => {
          for (let index = 0; index < 10; index += 1) {
            const itemId = await appendItemEvent(service, site.siteId, { type: 'item.created', collection: `c${writer}`, fields: { index } });
            if (index % 3 === 0) await appendItemEvent(service, site.siteId, { type: 'item.updated', collection: `c${writer}`, itemId, fields: { index: -index } });
          }
        }),
      ),
    );
    await appendEvents(service, first.siteId, streamId(first.siteId, 'collection', 'c0'), [{ type: 'collection.updated', data: { collection: 'c0', meta: orderedMeta({ note: 'n' }) } }]);
    await service.context.daemon.drain();
    const incremental = await feedRows([first.siteId, second.siteId]);
    expect(incremental.length).toBeGreaterThan(100);

    // As `svc projections rebuild` does: on an owner connection.
    const owner = createDatabase({ connectionString: database.url, poolSize: 2, asApplicationRole: false });
    try {
      await rebuildProjection(owner, changeFeedProjection);
    } finally {
      await owner.close();
    }
    await service.context.daemon.drain();
    expect(await feedRows([first.siteId, second.siteId])).toEqual(incremental);
  });
});
