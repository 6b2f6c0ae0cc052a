// The releases read model gives the same rows when rebuilt from the log as it did incrementally.
import { describe, expect, it } from 'vitest';
import { identifier, sql } from '../../../infra/postgres/sql.ts';
import { findProjection } from '../../../projections/index.ts';
import { createCollection } from '../../support/contentModel.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { withCall } from '../items/support.ts';

const service = await startTestServiceForFile();
const owner = openOwnerDatabaseForFile();

describe('releases read model', () => {
  it('rebuilds to the same rows', async () => {
    const site = withCall(service, await createTestSite(service));
    await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
    const ids: string[] = [];
    for (const title of ['One', 'Two', 'Three']) ids.push((await site.call('POST', '/items/articles', { title })).body.data.id);
    const entry = (itemId: string, targetStatus = 'published') => ({ collection: 'articles', itemId, targetStatus });
    const first = (await site.call('POST', '/releases', { name: 'First', addItems: [entry(ids[0]!), entry(ids[1]!)] })).body.data;
    await site.call('PATCH', `/releases/${first.id}`, {
      publishAt: new Date(Date.now() + 86_400_000).toISOString(),
      maintenanceWindow: { windows: [{ dow: 3, start: '01:00', end: '03:00' }] },
      removeItems: [{ collection: 'articles', itemId: ids[0]! }],
      addItems: [entry(ids[1]!, 'archived'), entry(ids[2]!)],
    });
    const second = (await site.call('POST', '/releases', { name: 'Second', atomicityMode: 'best_effort', addItems: [entry(ids[0]!)] })).body.data;
    await site.call('PATCH', `/releases/${second.id}`, { name: 'Second, renamed' });
    const gone = (await site.call('POST', '/releases', { name: 'Gone', addItems: [entry(ids[2]!)] })).body.data;
    expect((await site.call('DELETE', `/releases/${gone.id}`)).status).toBe(204);

    const rows = async (table: string) =>
      (await owner.query(sql`SELECT * FROM ${identifier(table)} WHERE site_id = ${site.siteId}`)).map((row) => JSON.stringify(row)).sort();
    await expectRebuildToGiveSameRows({
      service,
      owner,
      projections: [findProjection('releases')!],
      snapshot: async () => ({ releases: await rows('releases'), release_items: await rows('release_items') }),
      tablesWithRows: ['releases', 'release_items'],
    });
  });
});
