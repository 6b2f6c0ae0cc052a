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

describe('releases and editorial review read models', () => {
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
    // Published twice (a failure, then a success after the blocker left), then reverted.
    const third = (await site.call('POST', '/releases', { name: 'Third', atomicityMode: 'best_effort', addItems: [entry(ids[2]!), entry(ids[1]!)] })).body.data;
    const blocker = (await site.call('POST', '/items/articles', { title: 'Blocker' })).body.data.id;
    await site.call('PATCH', `/releases/${third.id}`, { addItems: [entry(blocker)] });
    await site.call('DELETE', `/items/articles/${blocker}`);
    expect((await site.call('POST', `/releases/${third.id}/publish`)).body.data.status).toBe('partially_failed');
    await site.call('PATCH', `/releases/${third.id}`, { removeItems: [{ collection: 'articles', itemId: blocker }] });
    expect((await site.call('POST', `/releases/${third.id}/publish`)).body.data.status).toBe('published');
    expect((await site.call('POST', `/releases/${third.id}/revert`)).status).toBe(200);

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

  it('rebuilds editorial reviews to the same rows', async () => {
    const site = withCall(service, await createTestSite(service));
    await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
    expect((await site.call('PATCH', '/collections/articles', { editorialWorkflow: true })).status).toBe(200);
    const ids: string[] = [];
    for (const title of ['One', 'Two', 'Three']) ids.push((await site.call('POST', '/items/articles', { title, status: 'draft' })).body.data.id);
    const [approved, rejected, voided] = ids as [string, string, string];
    for (const id of ids) expect((await site.call('POST', `/editorial/articles/${id}/submit-review`)).status).toBe(200);
    expect((await site.call('POST', `/editorial/articles/${approved}/approve`)).status).toBe(200);
    expect((await site.call('POST', `/editorial/articles/${rejected}/reject`, { reason: 'Too long' })).status).toBe(200);
    expect((await site.call('PATCH', `/items/articles/${voided}`, { title: 'Edited in review' })).status).toBe(200);

    const rows = async () =>
      (await owner.query(sql`SELECT * FROM editorial_reviews WHERE site_id = ${site.siteId}`)).map((row) => JSON.stringify(row)).sort();
    await expectRebuildToGiveSameRows({
      service,
      owner,
      projections: [findProjection('editorial')!],
      snapshot: async () => ({ editorial_reviews: await rows() }),
      tablesWithRows: ['editorial_reviews'],
    });
  });
});
