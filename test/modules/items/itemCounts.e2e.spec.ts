// List totals (`meta.total`) of live items with no filter or a `status` equality come from the count
// rows that triggers on `items` keep (migration 0104); every other list counts its rows. Both must
// give the number of rows the list's condition matches, through every kind of write.
import { describe, expect, it } from 'vitest';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createMember, createRole, grant, withHelpers } from '../access/support.ts';
import { createContentSite, createItem, type ContentSite } from './support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();

async function total(site: ContentSite, query: string): Promise<number> {
  const response = await site.call('GET', `/items/articles?limit=1${query}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.meta.total;
}

/** The live rows of the site's articles, counted directly, overall and per status. */
async function liveRows(siteId: string): Promise<{ all: number; byStatus: Map<string, number> }> {
  const { rows } = await owner.query<{ status: string | null; n: number }>(
    `SELECT status, count(*)::int AS n FROM items WHERE site_id = $1 AND collection = 'articles' AND deleted_at IS NULL GROUP BY status`,
    [siteId],
  );
  return { all: rows.reduce((sum, row) => sum + row.n, 0), byStatus: new Map(rows.map((row) => [row.status ?? '', row.n])) };
}

async function expectTotalsMatchRows(site: ContentSite): Promise<void> {
  const rows = await liveRows(site.siteId);
  expect(await total(site, '')).toBe(rows.all);
  for (const status of ['published', 'draft', 'archived']) {
    expect(await total(site, `&filter[status][_eq]=${status}`), status).toBe(rows.byStatus.get(status) ?? 0);
  }
  // A filter the counts cannot answer is counted row by row, and agrees.
  const { rows: viewed } = await owner.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM items WHERE site_id = $1 AND collection = 'articles' AND deleted_at IS NULL AND (data->>'views')::int > 5`,
    [site.siteId],
  );
  expect(await total(site, '&filter[views][_gt]=5')).toBe(viewed[0]!.n);
}

describe('list totals', () => {
  it('equal the matching live rows through bulk and single creates, status changes, replacements and deletes', async () => {
    const site = await createContentSite(service);
    const statuses = ['published', 'draft', 'archived', 'published'];
    const bulk = await site.call(
      'POST',
      '/items/articles',
      Array.from({ length: 12 }, (_, i) => ({ title: `Bulk ${i}`, views: i, status: statuses[i % statuses.length] })),
    );
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(201);
    const single = await createItem(site, 'articles', { title: 'Single', views: 9, status: 'draft' });
    await createItem(site, 'articles', { title: 'No status', views: 1 });
    await expectTotalsMatchRows(site);
    expect(await total(site, '')).toBe(14);
    expect(await total(site, '&filter[status][_eq]=published')).toBe(6);

    const [first, second, third] = bulk.body.data as { id: string }[];
    expect((await site.call('PATCH', `/items/articles/${first!.id}`, { status: 'archived' })).status).toBe(200);
    expect((await site.call('PATCH', `/items/articles/${second!.id}`, { title: 'Only the title changes' })).status).toBe(200);
    expect((await site.call('PUT', `/items/articles/${single.id}`, { title: 'Replaced', status: 'published' })).status).toBe(200);
    expect((await site.call('DELETE', `/items/articles/${third!.id}`)).status).toBe(204);
    await expectTotalsMatchRows(site);
    expect(await total(site, '')).toBe(13);

    // Folding the count rows changes no total.
    await owner.query('SELECT svc_compact_item_counts()');
    const { rows } = await owner.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM item_count_deltas WHERE site_id = $1 AND collection = 'articles' GROUP BY status HAVING count(*) > 1`,
      [site.siteId],
    );
    expect(rows).toEqual([]);
    await expectTotalsMatchRows(site);
  });

  it('count only what a reader with a row condition may see', async () => {
    const site = await createContentSite(service);
    for (const [i, status] of ['published', 'draft', 'published'].entries()) await createItem(site, 'articles', { title: `A${i}`, views: i * 10, status });
    const access = withHelpers(service, site);
    const role = await createRole(access);
    await grant(access, { roleId: role.id }, [{ collection: 'articles', action: 'read', conditions: { views: { _gte: 10 } } }]);
    const reader = await createMember(service, site, { roleId: role.id });
    const list = await access.as(reader.token, 'GET', '/items/articles?limit=1&filter[status][_eq]=published');
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.meta.total).toBe(1);
    expect((await access.as(reader.token, 'GET', '/items/articles?limit=1')).body.meta.total).toBe(2);
    expect(await total(site, '&filter[status][_eq]=published')).toBe(2);
  });

  it('tell the total on a full page (read with the page) and on a page past the end (read alone)', async () => {
    const site = await createContentSite(service);
    for (let i = 0; i < 3; i++) await createItem(site, 'articles', { title: `P${i}`, status: 'published' });
    await createItem(site, 'articles', { title: 'D', status: 'draft' });
    const full = await site.call('GET', '/items/articles?limit=2&filter[status][_eq]=published');
    expect(full.body.data).toHaveLength(2);
    expect(full.body.meta.total).toBe(3);
    expect(full.body.data[0]).not.toHaveProperty('counted_total');
    const pastTheEnd = await site.call('GET', '/items/articles?limit=2&offset=10');
    expect(pastTheEnd.body.data).toHaveLength(0);
    expect(pastTheEnd.body.meta.total).toBe(4);
  });

  it('never count another site’s items', async () => {
    const [siteA, siteB] = [await createContentSite(service), await createContentSite(service)];
    for (let i = 0; i < 3; i++) await createItem(siteA, 'articles', { title: `A${i}`, status: 'published' });
    await createItem(siteB, 'articles', { title: 'B', status: 'published' });
    expect(await total(siteA, '&filter[status][_eq]=published')).toBe(3);
    expect(await total(siteB, '&filter[status][_eq]=published')).toBe(1);
    expect(await total(siteB, '')).toBe(1);
  });
});
