// Dashboards and panels over HTTP (docs/insights.md): CRUD, every refusal with its code and path,
// who may read and who may write, and another site's (or dashboard's) ids answering 404.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createArticles, createDashboard, createInsightsSite, createPanel, expectError, memberWith, panelBody } from './support.ts';

const service = await startTestServiceForFile();
const countArticles = { collection: 'articles', aggregate: 'count' };

describe('dashboards', () => {
  it('creates, lists, reads, changes and deletes a dashboard with its panels', async () => {
    const site = await createInsightsSite(service);
    await createArticles(site);
    const created = await createDashboard(site, { name: 'Editorial', icon: 'chart', color: '#336699', note: 'Daily figures' });
    expect(created).toMatchObject({ name: 'Editorial', icon: 'chart', color: '#336699', note: 'Daily figures', panelCount: 0, panels: [] });
    await createDashboard(site, { name: 'alpha' });

    const listed = await site.admin('GET', '/dashboards?limit=1&page=2');
    expect(listed.status).toBe(200);
    expect(listed.body.meta).toEqual({ total: 2, page: 2, pageSize: 1 });
    expect(listed.body.data.map((dashboard: { name: string }) => dashboard.name)).toEqual(['Editorial']);

    const lower = await createPanel(site, created.id, countArticles, { name: 'Lower', position: { x: 0, y: 4, width: 12, height: 3 } });
    const upper = await createPanel(site, created.id, { ...countArticles, groupBy: ['category'] }, { name: 'Upper', type: 'bar', options: { stacked: true } });
    expect(upper).toMatchObject({ dashboardId: created.id, name: 'Upper', type: 'bar', position: { x: 0, y: 0, width: 6, height: 4 }, options: { stacked: true } });
    const detail = await site.admin('GET', `/dashboards/${created.id}`);
    expect(detail.body.data.panelCount).toBe(2);
    expect(detail.body.data.panels.map((panel: { id: string }) => panel.id)).toEqual([upper.id, lower.id]);

    const patched = await site.admin('PATCH', `/dashboards/${created.id}`, { name: 'Desk', note: null });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data).toMatchObject({ name: 'Desk', icon: 'chart', note: null, panelCount: 2 });

    const panelPatched = await site.admin('PATCH', `/dashboards/${created.id}/panels/${lower.id}`, { name: 'Lowest', query: { ...countArticles, limit: 5 } });
    expect(panelPatched.status, JSON.stringify(panelPatched.body)).toBe(200);
    expect(panelPatched.body.data).toMatchObject({ name: 'Lowest', type: 'table', query: { ...countArticles, limit: 5 } });
    const panels = await site.admin('GET', `/dashboards/${created.id}/panels`);
    expect(panels.body.data.map((panel: { name: string }) => panel.name)).toEqual(['Upper', 'Lowest']);

    expect((await site.admin('DELETE', `/dashboards/${created.id}/panels/${upper.id}`)).status).toBe(204);
    expect((await site.admin('GET', `/dashboards/${created.id}`)).body.data.panelCount).toBe(1);

    expect((await site.admin('DELETE', `/dashboards/${created.id}`)).status).toBe(204);
    expectError(await site.admin('GET', `/dashboards/${created.id}`), 404, 'NOT_FOUND');
    expectError(await site.admin('GET', `/dashboards/${created.id}/panels`), 404, 'NOT_FOUND');
    const rows = await service.context.database.withSite(site.siteId, (tx) => tx.query({ text: 'SELECT id FROM dashboard_panels WHERE site_id = $1', values: [site.siteId] }));
    expect(rows).toEqual([]);
    const [deleted] = await service.context.database.withSite(site.siteId, (tx) =>
      tx.query<{ data: { panelIds: string[] } }>({ text: "SELECT data FROM events WHERE site_id = $1 AND type = 'dashboard.deleted'", values: [site.siteId] }),
    );
    expect(deleted!.data.panelIds).toEqual([lower.id]);
  });

  it.each<[string, Record<string, unknown>, (string | number)[]]>([
    ['no name', {}, ['body', 'name']],
    ['an empty name', { name: '  ' }, ['body', 'name']],
    ['a long name', { name: 'x'.repeat(201) }, ['body', 'name']],
    ['a bad color', { name: 'A', color: 'red' }, ['body', 'color']],
    ['a long note', { name: 'A', note: 'x'.repeat(2001) }, ['body', 'note']],
    ['an unknown key', { name: 'A', owner: 'me' }, ['body']],
  ])('refuses a dashboard with %s (400, nothing written)', async (_, body, path) => {
    const site = await createInsightsSite(service);
    expectError(await site.admin('POST', '/dashboards', body), 400, 'VALIDATION_FAILED', path);
    expect((await site.admin('GET', '/dashboards')).body.meta.total).toBe(0);
  });

  it.each<[string, Record<string, unknown>, (string | number)[]]>([
    ['no query', { name: 'P', type: 'bar', position: { x: 0, y: 0, width: 1, height: 1 } }, ['body', 'query']],
    ['an unknown type', panelBody(countArticles, { type: 'gauge' }), ['body', 'type']],
    ['a negative position', panelBody(countArticles, { position: { x: -1, y: 0, width: 1, height: 1 } }), ['body', 'position', 'x']],
    ['a zero width', panelBody(countArticles, { position: { x: 0, y: 0, width: 0, height: 1 } }), ['body', 'position', 'width']],
    ['a huge height', panelBody(countArticles, { position: { x: 0, y: 0, width: 1, height: 101 } }), ['body', 'position', 'height']],
    ['large options', panelBody(countArticles, { options: { text: 'x'.repeat(5000) } }), ['body', 'options']],
    ['no collection', panelBody({ aggregate: 'count' }), ['body', 'query', 'collection']],
    ['a sum without a field', panelBody({ collection: 'articles', aggregate: 'sum' }), ['body', 'query', 'field']],
    ['an unknown aggregate', panelBody({ collection: 'articles', aggregate: 'median', field: 'views' }), ['body', 'query', 'aggregate']],
    ['four groups', panelBody({ ...countArticles, groupBy: ['title', 'category', 'views', 'price'] }), ['body', 'query', 'groupBy']],
    ['a limit of 1001', panelBody({ ...countArticles, limit: 1001 }), ['body', 'query', 'limit']],
    ['a bucket without a range', panelBody({ ...countArticles, bucket: 'day' }), ['body', 'query', 'bucket']],
    ['a bad relative range', panelBody({ ...countArticles, dateRange: { field: 'publishedAt', last: '7x' } }), ['body', 'query', 'dateRange', 'last']],
    ['a relative range too long', panelBody({ ...countArticles, dateRange: { field: 'publishedAt', last: '1001d' } }), ['body', 'query', 'dateRange', 'last']],
    ['a bad date', panelBody({ ...countArticles, dateRange: { field: 'publishedAt', from: 'yesterday' } }), ['body', 'query', 'dateRange', 'from']],
    ['a sum over text', panelBody({ collection: 'articles', aggregate: 'sum', field: 'title' }), ['body', 'query', 'field']],
    ['a range over text', panelBody({ ...countArticles, dateRange: { field: 'title', last: '1d' } }), ['body', 'query', 'dateRange', 'field']],
    ['an unknown collection', panelBody({ collection: 'nope', aggregate: 'count' }), ['body', 'query', 'collection']],
    ['a mistyped filter value', panelBody({ ...countArticles, filter: { views: { _gt: 'many' } } }), ['body', 'query', 'filter', 'views', '_gt']],
  ])('refuses a panel with %s (400 VALIDATION_FAILED, nothing written)', async (_, body, path) => {
    const site = await createInsightsSite(service);
    await createArticles(site);
    const dashboard = await createDashboard(site);
    expectError(await site.admin('POST', `/dashboards/${dashboard.id}/panels`, body), 400, 'VALIDATION_FAILED', path);
    expect((await site.admin('GET', `/dashboards/${dashboard.id}`)).body.data.panelCount).toBe(0);
  });

  it('refuses a panel naming a field outside the whitelist with INVALID_FIELD, on create and on change', async () => {
    const site = await createInsightsSite(service);
    await createArticles(site);
    const dashboard = await createDashboard(site);
    const create = (query: Record<string, unknown>) => site.admin('POST', `/dashboards/${dashboard.id}/panels`, panelBody(query));
    expectError(await create({ collection: 'articles', aggregate: 'sum', field: 'nope' }), 400, 'INVALID_FIELD', ['body', 'query', 'field']);
    expectError(await create({ ...countArticles, groupBy: ['category', 'email'] }), 400, 'INVALID_FIELD', ['body', 'query', 'groupBy', 1]);
    const panel = await createPanel(site, dashboard.id, countArticles);
    const patched = await site.admin('PATCH', `/dashboards/${dashboard.id}/panels/${panel.id}`, { query: { ...countArticles, filter: { "data->>'x'": { _eq: 1 } } } });
    expectError(patched, 400, 'INVALID_FIELD', ['body', 'query', 'filter', "data->>'x'"]);
    expect((await site.admin('GET', `/dashboards/${dashboard.id}/panels`)).body.data[0].query).toEqual(countArticles);
  });

  it('lets members read dashboards and panels, and only administrators change them', async () => {
    const site = await createInsightsSite(service);
    await createArticles(site);
    const dashboard = await createDashboard(site);
    const panel = await createPanel(site, dashboard.id, countArticles);
    const member = await memberWith(site, []);
    expect((await site.as(member.token, 'GET', '/dashboards')).body.meta.total).toBe(1);
    expect((await site.as(member.token, 'GET', `/dashboards/${dashboard.id}`)).status).toBe(200);
    expect((await site.as(member.token, 'GET', `/dashboards/${dashboard.id}/panels`)).body.data).toHaveLength(1);
    const writes: [string, string, unknown?][] = [
      ['POST', '/dashboards', { name: 'Mine' }],
      ['PATCH', `/dashboards/${dashboard.id}`, { name: 'Mine' }],
      ['DELETE', `/dashboards/${dashboard.id}`],
      ['POST', `/dashboards/${dashboard.id}/panels`, panelBody(countArticles)],
      ['PATCH', `/dashboards/${dashboard.id}/panels/${panel.id}`, { name: 'Mine' }],
      ['DELETE', `/dashboards/${dashboard.id}/panels/${panel.id}`],
    ];
    for (const [method, path, body] of writes) {
      expectError(await site.as(member.token, method, path, body), 403, 'PERMISSION_DENIED');
      expectError(await site.as(null, method, path, body), 401, 'UNAUTHENTICATED');
    }
    for (const path of ['/dashboards', `/dashboards/${dashboard.id}`, `/dashboards/${dashboard.id}/panels`]) {
      expectError(await site.as(null, 'GET', path), 401, 'UNAUTHENTICATED');
    }
    expectError(await site.as(null, 'POST', `/dashboards/${dashboard.id}/panels/${panel.id}/data`), 401, 'UNAUTHENTICATED');
    expectError(await site.as(null, 'POST', `/dashboards/${dashboard.id}/panels/preview`, { query: countArticles }), 401, 'UNAUTHENTICATED');
    expect((await site.admin('GET', `/dashboards/${dashboard.id}`)).body.data).toMatchObject({ name: 'Editorial', panelCount: 1 });
  });

  it("never shows, changes or counts another site's dashboards and panels, nor a panel under another dashboard", async () => {
    const site = await createInsightsSite(service);
    const other = await createInsightsSite(service, 'insb');
    await createArticles(site);
    await createArticles(other);
    const theirs = await createDashboard(other, { name: 'Theirs' });
    const theirPanel = await createPanel(other, theirs.id, countArticles);
    const mine = await createDashboard(site);
    const myPanel = await createPanel(site, mine.id, countArticles);
    const second = await createDashboard(site, { name: 'Second' });

    expect((await site.admin('GET', '/dashboards')).body.meta.total).toBe(2);
    const refusals: [string, string, unknown?][] = [
      ['GET', `/dashboards/${theirs.id}`],
      ['PATCH', `/dashboards/${theirs.id}`, { name: 'Taken' }],
      ['DELETE', `/dashboards/${theirs.id}`],
      ['GET', `/dashboards/${theirs.id}/panels`],
      ['POST', `/dashboards/${theirs.id}/panels`, panelBody(countArticles)],
      ['POST', `/dashboards/${theirs.id}/panels/preview`, { query: countArticles }],
      ['PATCH', `/dashboards/${theirs.id}/panels/${theirPanel.id}`, { name: 'Taken' }],
      ['DELETE', `/dashboards/${theirs.id}/panels/${theirPanel.id}`],
      ['POST', `/dashboards/${theirs.id}/panels/${theirPanel.id}/data`],
      // Their panel under my dashboard, and my panel under another of my dashboards.
      ['PATCH', `/dashboards/${mine.id}/panels/${theirPanel.id}`, { name: 'Taken' }],
      ['POST', `/dashboards/${mine.id}/panels/${theirPanel.id}/data`],
      ['PATCH', `/dashboards/${second.id}/panels/${myPanel.id}`, { name: 'Moved' }],
      ['DELETE', `/dashboards/${second.id}/panels/${myPanel.id}`],
      ['POST', `/dashboards/${second.id}/panels/${myPanel.id}/data`],
      ['GET', `/dashboards/${randomUUID()}`],
      ['GET', '/dashboards/not-a-uuid'],
      ['POST', `/dashboards/${mine.id}/panels/not-a-uuid/data`],
    ];
    for (const [method, path, body] of refusals) expectError(await site.admin(method, path, body), 404, 'NOT_FOUND');
    const theirsNow = await other.admin('GET', `/dashboards/${theirs.id}`);
    expect(theirsNow.body.data).toMatchObject({ name: 'Theirs', panelCount: 1 });
    expect(theirsNow.body.data.panels[0]).toMatchObject({ name: 'A panel' });
    expect((await site.admin('GET', `/dashboards/${mine.id}`)).body.data.panels[0]).toMatchObject({ id: myPanel.id, name: 'A panel' });
  });
});
