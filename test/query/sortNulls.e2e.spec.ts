// Where sorts put items without a value, over real HTTP: last in both directions, `nulls=first` for
// the other end, in REST lists, `deep` relation lists and GraphQL lists (one compiler: src/query).
import { describe, expect, it } from 'vitest';
import { createCollection, createRelation } from '../support/contentModel.ts';
import { createTestSite, startTestServiceForFile, type TestService } from '../support/testService.ts';
import { createMember, createRole, grant, withHelpers, type AccessSite } from '../modules/access/support.ts';

const service: TestService = await startTestServiceForFile();

/** A site with articles, some without views, a published date or a manual sort; and their comments. */
async function siteWithArticles(prefix = 'nulls'): Promise<AccessSite & { ids: Record<string, string> }> {
  const site = withHelpers(service, await createTestSite(service, prefix));
  await createCollection(service, site, 'articles', [
    { field: 'title', type: 'string' },
    { field: 'views', type: 'integer', indexed: true },
    { field: 'published_at', type: 'dateTime' },
  ]);
  await createCollection(service, site, 'comments', [
    { field: 'article', type: 'uuid' },
    { field: 'text', type: 'string' },
    { field: 'likes', type: 'integer' },
  ]);
  await createRelation(service, site, { kind: 'o2m', collection: 'articles', field: 'comments', relatedCollection: 'comments', relatedField: 'article', onDelete: 'set null' });
  const created = await site.admin('POST', '/items/articles', [
    { title: 'A', views: 5, published_at: '2024-01-02T00:00:00.000Z', sort: 2 },
    { title: 'B' },
    { title: 'C', views: 9, sort: 1 },
    { title: 'D', views: null, published_at: '2024-01-01T00:00:00.000Z' },
    { title: 'E', views: 1 },
  ]);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const ids = Object.fromEntries((created.body.data as { id: string; title: string }[]).map((item) => [item.title, item.id]));
  const comments = await site.admin('POST', '/items/comments', [
    { article: ids.A, text: 'a1', likes: 3 },
    { article: ids.A, text: 'a2' },
    { article: ids.A, text: 'a3', likes: 7 },
  ]);
  expect(comments.status, JSON.stringify(comments.body)).toBe(201);
  return { ...site, ids };
}

async function titles(site: AccessSite, query: string, token: string | null = site.adminToken): Promise<string[]> {
  const list = await site.as(token, 'GET', `/items/articles?fields=title&${query}`);
  expect(list.status, JSON.stringify(list.body)).toBe(200);
  return (list.body.data as { title: string }[]).map((item) => item.title);
}

describe('sort and nulls', () => {
  it('puts items without a value last in both directions, ties and empties in id order', async () => {
    const site = await siteWithArticles();
    expect(await titles(site, 'sort=-views')).toEqual(['C', 'A', 'E', 'B', 'D']);
    expect(await titles(site, 'sort=views')).toEqual(['E', 'A', 'C', 'B', 'D']);
    expect(await titles(site, 'sort=-published_at')).toEqual(['A', 'D', 'B', 'C', 'E']);
    // The manual-order column too.
    expect(await titles(site, 'sort=-sort')).toEqual(['A', 'C', 'B', 'D', 'E']);
    expect(await titles(site, 'sort=sort')).toEqual(['C', 'A', 'B', 'D', 'E']);
    // A later term orders the ties of an earlier one, its empties last as well.
    expect(await titles(site, 'sort=-sort,-views')).toEqual(['A', 'C', 'E', 'B', 'D']);
  });

  it('puts them first in both directions with nulls=first, and takes nulls=last as the default', async () => {
    const site = await siteWithArticles();
    expect(await titles(site, 'sort=-views&nulls=first')).toEqual(['B', 'D', 'C', 'A', 'E']);
    expect(await titles(site, 'sort=views&nulls=first')).toEqual(['B', 'D', 'E', 'A', 'C']);
    expect(await titles(site, 'sort=-views&nulls=last')).toEqual(['C', 'A', 'E', 'B', 'D']);
    // Paging walks the same order.
    expect(await titles(site, 'sort=-views&limit=2&page=2')).toEqual(['E', 'B']);
  });

  it('places the nulls of a deep relation list with deep[rel][nulls]', async () => {
    const site = await siteWithArticles();
    const texts = async (query: string) => {
      const answer = await site.admin('GET', `/items/articles/${site.ids.A}?fields=title,comments.text&${query}`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return (answer.body.data.comments as { text: string }[]).map((comment) => comment.text);
    };
    expect(await texts('deep[comments][_sort]=-likes')).toEqual(['a3', 'a1', 'a2']);
    expect(await texts('deep[comments][_sort]=-likes&deep[comments][_nulls]=first')).toEqual(['a2', 'a3', 'a1']);
  });

  it('sorts GraphQL lists with nulls last too', async () => {
    const site = await siteWithArticles();
    const answer = await service.request('POST', '/graphql', { site: site.siteId, token: site.adminToken, body: { query: '{ articles(sort: ["-views"]) { title } }' } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect((answer.body.data.articles as { title: string }[]).map((article) => article.title)).toEqual(['C', 'A', 'E', 'B', 'D']);
  });

  it.each([
    ['nulls=middle&sort=-views', ['nulls']],
    ['nulls=FIRST&sort=-views', ['nulls']],
    ['nulls=first&nulls=sideways&sort=-views', ['nulls']],
    ['deep[comments][_nulls]=up', ['deep', 'comments', '_nulls']],
  ])('refuses %s with 400 VALIDATION_FAILED at its parameter', async (query, path) => {
    const site = await siteWithArticles();
    const answer = await site.admin('GET', `/items/articles?${query}`);
    expect(answer.status).toBe(400);
    expect(answer.body.errors).toEqual([expect.objectContaining({ code: 'VALIDATION_FAILED', path })]);
  });

  it('still refuses a sort on a field the reader may not read, whatever nulls says, and no credentials', async () => {
    const site = await siteWithArticles();
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [{ collection: 'articles', action: 'read', fields: ['id', 'title'] }]);
    const reader = await createMember(service, site, { roleId: role.id });
    for (const query of ['sort=-views&nulls=first', 'sort=views&nulls=last']) {
      const refused = await site.as(reader.token, 'GET', `/items/articles?${query}`);
      expect(refused.status).toBe(403);
      expect(refused.body.errors[0]).toMatchObject({ code: 'PERMISSION_DENIED', path: ['sort'] });
    }
    expect(await titles(site, 'sort=-title&nulls=first', reader.token)).toEqual(['E', 'D', 'C', 'B', 'A']);
    const anonymous = await site.as(null, 'GET', '/items/articles?sort=-views&nulls=first');
    expect([401, 403]).toContain(anonymous.status);
    expect(anonymous.body.data).toBeUndefined();
  });

  it('orders only the caller site items: another site with the same collection shows none of its rows', async () => {
    const site = await siteWithArticles('nulls-a');
    const other = await siteWithArticles('nulls-b');
    const mine = await site.admin('GET', '/items/articles?fields=id&sort=-views&nulls=first');
    expect(mine.status).toBe(200);
    expect(mine.body.meta.total).toBe(5);
    const shown = new Set((mine.body.data as { id: string }[]).map((item) => item.id));
    expect(shown).toEqual(new Set(Object.values(site.ids)));
    for (const id of Object.values(other.ids)) expect(shown.has(id)).toBe(false);
  });
});
