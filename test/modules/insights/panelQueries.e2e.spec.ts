// Panel queries over HTTP (docs/insights.md): each aggregate with and without groups, filters, date
// ranges (absolute and relative), buckets, a stored panel's data, and another site never read.
import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createItem } from '../access/support.ts';
import { createArticles, createDashboard, createInsightsSite, createPanel, daysAgo, panelData, preview, previewRows, seedArticles } from './support.ts';

// Cached answers would hide what a later write changed: this file asks for fresh ones.
const service = await startTestServiceForFile({ SVC_PANEL_CACHE_SECONDS: '0' });

async function articlesSite(prefix = 'insq') {
  const site = await createInsightsSite(service, prefix);
  await createArticles(site);
  const seeded = await seedArticles(site);
  const dashboard = await createDashboard(site);
  return { site, dashboard, ...seeded };
}

const articles = (query: Record<string, unknown>) => ({ collection: 'articles', ...query });

describe('panel queries', () => {
  it('answers each aggregate over the whole collection', async () => {
    const { site, dashboard } = await articlesSite();
    const run = (aggregate: string, field?: string) => previewRows(site, dashboard.id, articles({ aggregate, ...(field ? { field } : {}) }));
    expect(await run('count')).toEqual([{ value: 5 }]);
    expect(await run('count', 'author')).toEqual([{ value: 5 }]);
    expect(await run('sum', 'views')).toEqual([{ value: 80 }]);
    expect(await run('avg', 'views')).toEqual([{ value: 16 }]);
    expect(await run('min', 'views')).toEqual([{ value: 5 }]);
    expect(await run('max', 'views')).toEqual([{ value: 30 }]);
    // Decimals stay exact (text), as the items read path answers them.
    expect(await run('sum', 'price')).toEqual([{ value: '11.00' }]);
    expect(await run('max', 'title')).toEqual([{ value: 's2' }]);
  });

  it('answers each aggregate per group, ordered by the groups', async () => {
    const { site, dashboard, ada, bob } = await articlesSite();
    const grouped = (aggregate: string, field?: string) =>
      previewRows(site, dashboard.id, articles({ aggregate, groupBy: ['category'], ...(field ? { field } : {}) }));
    expect(await grouped('count')).toEqual([{ category: 'news', value: 3 }, { category: 'sport', value: 2 }]);
    expect(await grouped('sum', 'views')).toEqual([{ category: 'news', value: 60 }, { category: 'sport', value: 20 }]);
    expect(await grouped('avg', 'views')).toEqual([{ category: 'news', value: 20 }, { category: 'sport', value: 10 }]);
    expect(await grouped('min', 'views')).toEqual([{ category: 'news', value: 10 }, { category: 'sport', value: 5 }]);
    expect(await grouped('max', 'views')).toEqual([{ category: 'news', value: 30 }, { category: 'sport', value: 15 }]);
    const twoGroups = await previewRows(site, dashboard.id, articles({ aggregate: 'count', groupBy: ['category', 'author'] }));
    expect(twoGroups).toEqual(
      [
        { category: 'news', author: ada, value: 2 },
        { category: 'news', author: bob, value: 1 },
        { category: 'sport', author: bob, value: 2 },
      ].sort((a, b) => (a.category === b.category ? (a.author < b.author ? -1 : 1) : a.category < b.category ? -1 : 1)),
    );
    expect(await previewRows(site, dashboard.id, articles({ aggregate: 'count', groupBy: ['category'], limit: 1 }))).toEqual([{ category: 'news', value: 3 }]);
  });

  it('filters with the query language, through an m2o relation too', async () => {
    const { site, dashboard } = await articlesSite();
    expect(await previewRows(site, dashboard.id, articles({ aggregate: 'sum', field: 'views', filter: { views: { _gte: 15 } } }))).toEqual([{ value: 65 }]);
    const byAuthor = articles({ aggregate: 'count', groupBy: ['category'], filter: { _or: [{ author: { name: { _eq: 'Ada' } } }, { title: { _eq: 's2' } }] } });
    expect(await previewRows(site, dashboard.id, byAuthor)).toEqual([{ category: 'news', value: 2 }, { category: 'sport', value: 1 }]);
    expect(await previewRows(site, dashboard.id, articles({ aggregate: 'count', filter: { meta: { _null: true }, 'author.name': { _eq: 'Bob' } } }))).toEqual([{ value: 3 }]);
  });

  it('limits to an absolute date range, and to a relative one', async () => {
    const { site, dashboard, now } = await articlesSite();
    const absolute = articles({ aggregate: 'count', dateRange: { field: 'publishedAt', from: daysAgo(11, now), to: daysAgo(1.5, now) } });
    expect(await previewRows(site, dashboard.id, absolute)).toEqual([{ value: 2 }]);
    expect(await previewRows(site, dashboard.id, articles({ aggregate: 'count', dateRange: { field: 'publishedAt', to: daysAgo(30, now) } }))).toEqual([{ value: 1 }]);
    const days = articles({ aggregate: 'count', dateRange: { field: 'publishedAt', last: '7d' } });
    expect(await previewRows(site, dashboard.id, days)).toEqual([{ value: 3 }]);
    expect(await previewRows(site, dashboard.id, articles({ aggregate: 'count', dateRange: { field: 'publishedAt', last: '2w' } }))).toEqual([{ value: 4 }]);
    expect(await previewRows(site, dashboard.id, articles({ aggregate: 'count', dateRange: { field: 'publishedAt', last: '36h' } }))).toEqual([{ value: 2 }]);
    expect(await previewRows(site, dashboard.id, articles({ aggregate: 'count', dateRange: { field: 'publishedAt', last: '2m' } }))).toEqual([{ value: 5 }]);
    // A date field takes the range by day; structural times too.
    expect(await previewRows(site, dashboard.id, articles({ aggregate: 'count', dateRange: { field: 'day', from: '2024-03-02', to: '2024-03-31' } }))).toEqual([{ value: 2 }]);
    expect(await previewRows(site, dashboard.id, articles({ aggregate: 'count', dateRange: { field: 'createdAt', last: '1h' } }))).toEqual([{ value: 5 }]);
  });

  it('groups by a date bucket in UTC, answered as ISO times, before the other groups', async () => {
    const { site, dashboard } = await articlesSite();
    const byMonth = await previewRows(site, dashboard.id, articles({ aggregate: 'sum', field: 'views', dateRange: { field: 'day', from: '2024-01-01' }, bucket: 'month' }));
    expect(byMonth).toEqual([
      { day: '2024-03-01T00:00:00.000Z', value: 65 },
      { day: '2024-04-01T00:00:00.000Z', value: 15 },
    ]);
    const byWeek = await previewRows(site, dashboard.id, articles({ aggregate: 'count', groupBy: ['category'], dateRange: { field: 'day', from: '2024-01-01' }, bucket: 'week' }));
    expect(byWeek).toEqual([
      { day: '2024-02-26T00:00:00.000Z', category: 'news', value: 3 },
      { day: '2024-03-11T00:00:00.000Z', category: 'sport', value: 1 },
      { day: '2024-04-15T00:00:00.000Z', category: 'sport', value: 1 },
    ]);
    const byDay = await previewRows(site, dashboard.id, articles({ aggregate: 'count', dateRange: { field: 'publishedAt', last: '1y' }, bucket: 'day' }));
    expect(byDay.reduce((total, row) => total + row.value, 0)).toBe(5);
    for (const row of byDay) expect(row.publishedAt).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
    const created = await previewRows(site, dashboard.id, articles({ aggregate: 'count', dateRange: { field: 'createdAt', last: '1d' }, bucket: 'hour' }));
    expect(created.reduce((total, row) => total + row.value, 0)).toBe(5);
  });

  it('answers a stored panel with its meta, and the preview as a dry run that stores nothing', async () => {
    const { site, dashboard } = await articlesSite();
    const panel = await createPanel(site, dashboard.id, articles({ aggregate: 'count', groupBy: ['category'] }));
    const answered = await panelData(site, dashboard.id, panel.id);
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expect(answered.body.data).toEqual([{ category: 'news', value: 3 }, { category: 'sport', value: 2 }]);
    expect(answered.body.meta).toMatchObject({ rowCount: 2, cached: false });
    expect(Date.parse(answered.body.meta.executedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(answered.body.meta.durationMs).toBeGreaterThanOrEqual(0);
    const dry = await preview(site, dashboard.id, articles({ aggregate: 'max', field: 'views' }));
    expect(dry.body).toMatchObject({ data: [{ value: 30 }], meta: { rowCount: 1, cached: false } });
    expect((await site.admin('GET', `/dashboards/${dashboard.id}`)).body.data.panelCount).toBe(1);
    await createItem(site, 'articles', { title: 'n4', category: 'news', views: 1 });
    expect((await panelData(site, dashboard.id, panel.id)).body.data).toEqual([{ category: 'news', value: 4 }, { category: 'sport', value: 2 }]);
  });

  it("never reads another site: a panel naming a collection of another site's name answers only its own rows", async () => {
    const mine = await articlesSite('insa');
    const theirs = await articlesSite('insb');
    await createItem(theirs.site, 'articles', { title: 'extra', category: 'news', views: 1000 });
    const panel = await createPanel(mine.site, mine.dashboard.id, articles({ aggregate: 'sum', field: 'views', groupBy: ['category'] }));
    expect((await panelData(mine.site, mine.dashboard.id, panel.id)).body.data).toEqual([{ category: 'news', value: 60 }, { category: 'sport', value: 20 }]);
    expect(await previewRows(theirs.site, theirs.dashboard.id, articles({ aggregate: 'sum', field: 'views' }))).toEqual([{ value: 1080 }]);
    // A collection only the other site has is unknown here.
    const other = await createInsightsSite(service, 'insc');
    const otherDashboard = await createDashboard(other);
    const refused = await preview(other, otherDashboard.id, articles({ aggregate: 'count' }));
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.errors[0].path).toEqual(['body', 'query', 'collection']);
  });
});
