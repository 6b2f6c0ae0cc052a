// The whitelist of panel queries (docs/insights.md): every name outside the fields the caller may read
// is 400 INVALID_FIELD with its path, a member's panel runs with the member's rows and fields, and the
// audit log is a source for administrators only, counting the site's own changes.
import { setTimeout } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createArticles, createDashboard, createInsightsSite, createPanel, expectError, memberWith, panelData, preview, previewRows, seedArticles } from './support.ts';

const service = await startTestServiceForFile({ SVC_PANEL_CACHE_SECONDS: '0' });

async function articlesSite(prefix = 'insw') {
  const site = await createInsightsSite(service, prefix);
  await createArticles(site);
  await seedArticles(site);
  const dashboard = await createDashboard(site);
  return { site, dashboard };
}

/** Waits until the site's audit log holds `count` item creations (the audit projection is async). */
async function auditProjected(siteId: string, count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [row] = await service.context.database.withSite(siteId, (tx) =>
      tx.query<{ total: number }>({ text: "SELECT count(*)::int AS total FROM audit_log WHERE site_id = $1 AND action = 'item.created'", values: [siteId] }),
    );
    if (row!.total >= count) return;
    if (Date.now() > deadline) throw new Error(`the audit log of ${siteId} holds ${row!.total} item creations, not ${count}`);
    await setTimeout(50);
  }
}

const articles = (query: Record<string, unknown>) => ({ collection: 'articles', aggregate: 'count', ...query });
const INJECTIONS = ['title"; drop table items; --', "data->>'x'", 'title.', 'ti tle', '*'];

describe('the panel whitelist', () => {
  it('refuses unknown, sensitive, to-many and injection-shaped names in every place, with their path', async () => {
    const { site, dashboard } = await articlesSite();
    const refusals: [Record<string, unknown>, (string | number)[]][] = [
      [articles({ aggregate: 'sum', field: 'nope' }), ['body', 'query', 'field']],
      [articles({ field: 'email' }), ['body', 'query', 'field']],
      [articles({ groupBy: ['category', 'nope'] }), ['body', 'query', 'groupBy', 1]],
      [articles({ groupBy: ['email'] }), ['body', 'query', 'groupBy', 0]],
      [articles({ dateRange: { field: 'nope', last: '1d' } }), ['body', 'query', 'dateRange', 'field']],
      [articles({ filter: { nope: { _eq: 1 } } }), ['body', 'query', 'filter', 'nope']],
      [articles({ filter: { email: { _nnull: true } } }), ['body', 'query', 'filter', 'email']],
      [articles({ filter: { _and: [{ views: { _gt: 1 } }, { _or: [{ nope: { _eq: 1 } }] }] } }), ['body', 'query', 'filter', '_and', 1, '_or', 0, 'nope']],
      [articles({ filter: { author: { nope: { _eq: 'x' } } } }), ['body', 'query', 'filter', 'author', 'nope']],
      // The to-many side of the relation, on authors.
      [{ collection: 'authors', aggregate: 'count', groupBy: ['articles'] }, ['body', 'query', 'groupBy', 0]],
      [{ collection: 'authors', aggregate: 'count', field: 'articles' }, ['body', 'query', 'field']],
      [{ collection: 'authors', aggregate: 'count', filter: { articles: { title: { _eq: 'n1' } } } }, ['body', 'query', 'filter', 'articles']],
    ];
    for (const injection of INJECTIONS) {
      refusals.push([articles({ aggregate: 'max', field: injection }), ['body', 'query', 'field']]);
      refusals.push([articles({ groupBy: [injection] }), ['body', 'query', 'groupBy', 0]]);
      refusals.push([articles({ dateRange: { field: injection, last: '1d' } }), ['body', 'query', 'dateRange', 'field']]);
      refusals.push([articles({ filter: { _or: [{ [injection]: { _eq: 1 } }] } }), ['body', 'query', 'filter', '_or', 0, injection]]);
    }
    for (const [query, path] of refusals) {
      const refused = await preview(site, dashboard.id, query);
      expectError(refused, 400, 'INVALID_FIELD', path);
      expect(refused.body.errors[0].message).not.toMatch(/syntax|relation|column/i);
    }
  });

  it('keeps type misfits VALIDATION_FAILED', async () => {
    const { site, dashboard } = await articlesSite();
    expectError(await preview(site, dashboard.id, articles({ aggregate: 'avg', field: 'title' })), 400, 'VALIDATION_FAILED', ['body', 'query', 'field']);
    expectError(await preview(site, dashboard.id, articles({ aggregate: 'min', field: 'meta' })), 400, 'VALIDATION_FAILED', ['body', 'query', 'field']);
    expectError(await preview(site, dashboard.id, articles({ groupBy: ['meta'] })), 400, 'VALIDATION_FAILED', ['body', 'query', 'groupBy', 0]);
    expectError(await preview(site, dashboard.id, articles({ groupBy: ['category', 'category'] })), 400, 'VALIDATION_FAILED', ['body', 'query', 'groupBy', 1]);
    expectError(await preview(site, dashboard.id, articles({ filter: { title: { _gt: 1, _between: 3 } } })), 400, 'VALIDATION_FAILED');
  });

  it("restricts a member to the fields and rows the member may read, and checks a stored panel against the member's rights", async () => {
    const { site, dashboard } = await articlesSite();
    const member = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['title', 'category'], conditions: { category: { _eq: 'news' } } }]);
    expect(await previewRows(site, dashboard.id, articles({ groupBy: ['category'] }), member.token)).toEqual([{ category: 'news', value: 3 }]);
    expect(await previewRows(site, dashboard.id, articles({ field: 'title', filter: { title: { _neq: 'n1' } } }), member.token)).toEqual([{ value: 2 }]);
    const hidden: [Record<string, unknown>, (string | number)[]][] = [
      [articles({ aggregate: 'sum', field: 'views' }), ['body', 'query', 'field']],
      [articles({ groupBy: ['author'] }), ['body', 'query', 'groupBy', 0]],
      [articles({ dateRange: { field: 'publishedAt', last: '7d' } }), ['body', 'query', 'dateRange', 'field']],
      [articles({ dateRange: { field: 'createdAt', last: '7d' } }), ['body', 'query', 'dateRange', 'field']],
      [articles({ filter: { _and: [{ views: { _gt: 1 } }] } }), ['body', 'query', 'filter', '_and', 0, 'views']],
    ];
    for (const [query, path] of hidden) expectError(await preview(site, dashboard.id, query, member.token), 400, 'INVALID_FIELD', path);

    const stored = await createPanel(site, dashboard.id, articles({ aggregate: 'sum', field: 'views', groupBy: ['category'] }));
    expectError(await panelData(site, dashboard.id, stored.id, member.token), 400, 'INVALID_FIELD', ['panel', 'query', 'field']);
    const allowed = await createPanel(site, dashboard.id, articles({ groupBy: ['category'] }));
    expect((await panelData(site, dashboard.id, allowed.id, member.token)).body.data).toEqual([{ category: 'news', value: 3 }]);
    expect((await panelData(site, dashboard.id, allowed.id)).body.data).toEqual([{ category: 'news', value: 3 }, { category: 'sport', value: 2 }]);

    // A related collection the member may not read is outside the whitelist; one with no read at all is 403.
    expectError(await preview(site, dashboard.id, articles({ filter: { author: { name: { _eq: 'Ada' } } } }), member.token), 400, 'INVALID_FIELD');
    expectError(await preview(site, dashboard.id, { collection: 'authors', aggregate: 'count' }, member.token), 403, 'PERMISSION_DENIED', ['body', 'query', 'collection']);
  });

  it('counts the audit log per day per collection for administrators, and refuses members', async () => {
    const { site, dashboard } = await articlesSite('insaud');
    const other = await createInsightsSite(service, 'insaux');
    await createArticles(other);
    await seedArticles(other);
    // The audit log is projected by the daemon; daemon.drain() would wait for every transaction of the
    // cluster (other files' long ones too), so this waits for the site's own entries instead.
    await auditProjected(site.siteId, 7);
    await auditProjected(other.siteId, 7);
    const query = {
      source: 'audit',
      aggregate: 'count',
      groupBy: ['collection'],
      filter: { action: { _eq: 'item.created' } },
      dateRange: { field: 'occurredAt', last: '1d' },
      bucket: 'day',
    };
    const rows = await previewRows(site, dashboard.id, query);
    const perCollection: Record<string, number> = {};
    for (const row of rows) {
      expect(row.occurredAt).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
      perCollection[row.collection] = (perCollection[row.collection] ?? 0) + row.value;
    }
    expect(perCollection).toEqual({ articles: 5, authors: 2 });
    const one = await previewRows(site, dashboard.id, { source: 'audit', aggregate: 'count', filter: { collection: { _eq: 'articles' }, action: { _in: ['item.created'] } } });
    expect(one).toEqual([{ value: 5 }]);
    const stored = await createPanel(site, dashboard.id, query);
    expect((await panelData(site, dashboard.id, stored.id)).body.data).toEqual(rows);

    const member = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['*'] }]);
    expectError(await preview(site, dashboard.id, query, member.token), 403, 'PERMISSION_DENIED', ['body', 'query', 'source']);
    expectError(await panelData(site, dashboard.id, stored.id, member.token), 403, 'PERMISSION_DENIED', ['panel', 'query', 'source']);
    expectError(await preview(site, dashboard.id, { ...query, groupBy: ['details'] }), 400, 'INVALID_FIELD', ['body', 'query', 'groupBy', 0]);
    expectError(await preview(site, dashboard.id, { ...query, filter: { title: { _eq: 'x' } } }), 400, 'INVALID_FIELD', ['body', 'query', 'filter', 'title']);
    expectError(await preview(site, dashboard.id, { ...query, collection: 'articles' }), 400, 'VALIDATION_FAILED', ['body', 'query', 'collection']);
  });
});
