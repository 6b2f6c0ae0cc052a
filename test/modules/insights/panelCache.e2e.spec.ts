// The panel answer cache (docs/insights.md, "Cache"): a second call is answered from memory, a write
// to the collection (or to one its filter reaches) drops it at once, and an answer is only reused
// for a caller with the same rights.
import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createItem } from '../access/support.ts';
import { createArticles, createDashboard, createInsightsSite, createPanel, memberWith, panelData, preview, seedArticles } from './support.ts';

const service = await startTestServiceForFile({ SVC_PANEL_CACHE_SECONDS: '300' });

async function articlesSite() {
  const site = await createInsightsSite(service, 'insc');
  await createArticles(site);
  const seeded = await seedArticles(site);
  const dashboard = await createDashboard(site);
  return { site, dashboard, ...seeded };
}

const meta = (response: { body: { meta: { cached: boolean } } }) => response.body.meta.cached;

describe('the panel cache', () => {
  it('answers a second call from the cache until a write to the collection', async () => {
    const { site, dashboard } = await articlesSite();
    const panel = await createPanel(site, dashboard.id, { collection: 'articles', aggregate: 'count', groupBy: ['category'] });
    const first = await panelData(site, dashboard.id, panel.id);
    const second = await panelData(site, dashboard.id, panel.id);
    expect([meta(first), meta(second)]).toEqual([false, true]);
    expect(second.body.data).toEqual(first.body.data);
    expect(second.body.meta.executedAt).toBe(first.body.meta.executedAt);

    const created = await createItem(site, 'articles', { title: 'n4', category: 'news' });
    const afterCreate = await panelData(site, dashboard.id, panel.id);
    expect(meta(afterCreate)).toBe(false);
    expect(afterCreate.body.data).toEqual([{ category: 'news', value: 4 }, { category: 'sport', value: 2 }]);
    expect(meta(await panelData(site, dashboard.id, panel.id))).toBe(true);

    expect((await site.admin('PATCH', `/items/articles/${created.id}`, { category: 'sport' })).status).toBe(200);
    expect((await panelData(site, dashboard.id, panel.id)).body).toMatchObject({ data: [{ category: 'news', value: 3 }, { category: 'sport', value: 3 }], meta: { cached: false } });
    expect((await site.admin('DELETE', `/items/articles/${created.id}`)).status).toBe(204);
    expect((await panelData(site, dashboard.id, panel.id)).body).toMatchObject({ data: [{ category: 'news', value: 3 }, { category: 'sport', value: 2 }], meta: { cached: false } });
  });

  it('drops an answer whose filter reaches a written collection, and keeps others', async () => {
    const { site, dashboard, ada } = await articlesSite();
    const byAda = { collection: 'articles', aggregate: 'count', filter: { author: { name: { _eq: 'Ada' } } } };
    const authors = { collection: 'authors', aggregate: 'count' };
    expect((await preview(site, dashboard.id, byAda)).body.data).toEqual([{ value: 2 }]);
    expect(meta(await preview(site, dashboard.id, byAda))).toBe(true);
    await createItem(site, 'articles', { title: 'x', author: ada });
    expect(meta(await preview(site, dashboard.id, authors))).toBe(false);
    expect(meta(await preview(site, dashboard.id, authors))).toBe(true);
    expect((await site.admin('PATCH', `/items/authors/${ada}`, { name: 'Adele' })).status).toBe(200);
    expect((await preview(site, dashboard.id, byAda)).body).toMatchObject({ data: [{ value: 0 }], meta: { cached: false } });
    // A write to articles leaves the authors' answer alone.
    await createItem(site, 'articles', { title: 'y' });
    expect(meta(await preview(site, dashboard.id, authors))).toBe(false);
  });

  it("never answers a caller with another's rights: an administrator's answer is not a member's", async () => {
    const { site, dashboard } = await articlesSite();
    const rules = [{ collection: 'articles', action: 'read', fields: ['*'], conditions: { category: { _eq: 'sport' } } }];
    const member = await memberWith(site, rules);
    const query = { collection: 'articles', aggregate: 'count' };
    expect((await preview(site, dashboard.id, query)).body.data).toEqual([{ value: 5 }]);
    expect(meta(await preview(site, dashboard.id, query))).toBe(true);
    const asMember = await preview(site, dashboard.id, query, member.token);
    expect(asMember.body).toMatchObject({ data: [{ value: 2 }], meta: { cached: false } });
    expect((await preview(site, dashboard.id, query, member.token)).body).toMatchObject({ data: [{ value: 2 }], meta: { cached: true } });
    // A member with other rules gets an answer of their own.
    const newsReader = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['*'], conditions: { category: { _eq: 'news' } } }]);
    expect((await preview(site, dashboard.id, query, newsReader.token)).body).toMatchObject({ data: [{ value: 3 }], meta: { cached: false } });
    // Rules that name the reader are answered per reader.
    const own = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['*'], conditions: { userCreated: { _eq: '$CURRENT_USER' } } }]);
    expect((await preview(site, dashboard.id, query, own.token)).body).toMatchObject({ data: [{ value: 0 }], meta: { cached: false } });
  });
});
