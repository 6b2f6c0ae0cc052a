// Whatever a member sends, its create and update rules hold: arbitrary writes through the item and
// history routes (create, bulk, PATCH, PUT, drafts, delete, versions, promote, revert, dependents)
// never change a field the rules do not list, a row outside their conditions, or anything the member
// may not delete, and never answer 500. After every request the rows are compared with what the
// rules allow.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createContentModel, createItem, createMember, createRole, grant, withHelpers, type AccessSite, type ApiItem, type Member } from './support.ts';

const service = await startTestServiceForFile();
let site: AccessSite;
let writer: Member;
let author: ApiItem;
let visible: ApiItem;
let hidden: ApiItem;
let revisionIds: string[];

beforeAll(async () => {
  site = withHelpers(service, await createTestSite(service, 'writes'));
  await createContentModel(site);
  const role = await createRole(site);
  const onlyPublic = { category: { _eq: 'public' } };
  await grant(site, { roleId: role.id }, [
    { collection: 'articles', action: 'read', fields: ['id', 'title', 'category'], conditions: onlyPublic },
    { collection: 'articles', action: 'create', fields: ['title', 'category'], conditions: onlyPublic },
    { collection: 'articles', action: 'update', fields: ['title'], conditions: onlyPublic },
    { collection: 'authors', action: 'read', fields: ['id', 'name'] },
  ]);
  writer = await createMember(service, site, { roleId: role.id });
  author = await createItem(site, 'authors', { name: 'Ada', email: 'ada@example.com' });
  visible = await createItem(site, 'articles', { title: 'Visible', body: 'original body', category: 'public', rating: 1, author: author.id });
  hidden = await createItem(site, 'articles', { title: 'Hidden', body: 'hidden body', category: 'internal', rating: 2, author: author.id });
  await site.admin('PATCH', `/items/articles/${visible.id}`, { title: 'Visible v2' });
  await site.admin('PATCH', `/items/articles/${hidden.id}`, { body: 'hidden body v2' });
  revisionIds = [];
  for (const id of [visible.id, hidden.id]) {
    const revisions = await site.admin('GET', `/items/articles/${id}/revisions`);
    revisionIds.push(...revisions.body.data.map((revision: { revisionId: string }) => revision.revisionId));
  }
});

async function adminView(id: string): Promise<ApiItem> {
  return (await site.admin('GET', `/items/articles/${id}?fields=*`)).body.data;
}

async function adminArticles(): Promise<ApiItem[]> {
  return (await site.admin('GET', '/items/articles?fields=*&limit=200')).body.data;
}

const value = fc.constantFrom<unknown>('x', 'public', 'internal', 'changed', 1, 99, null, true);
const fieldName = fc.constantFrom('title', 'body', 'category', 'rating', 'author', 'status', 'sort', 'id');
// Half the bodies keep to the fields the rules list, so that writes the rules allow are tried too.
const body = fc.oneof(
  fc.record({ title: fc.constantFrom('x', 'changed'), category: fc.constantFrom('public', 'public', 'internal') }, { requiredKeys: [] }),
  fc.dictionary(fieldName, value, { maxKeys: 4 }).map((entries) => {
    if ('author' in entries) entries.author = author.id;
    return entries;
  }),
);
const target = fc.constantFrom('visible', 'hidden');

type Ids = Record<'visible' | 'hidden', string>;
type Request = { method: string; path: (ids: Ids) => string; body?: unknown; headers?: Record<string, string> };
const request: fc.Arbitrary<Request> = fc.oneof(
  body.map((item) => ({ method: 'POST', path: () => '/items/articles', body: item })),
  fc.array(body, { minLength: 2, maxLength: 3 }).map((items) => ({ method: 'POST', path: () => '/items/articles', body: items })),
  fc
    .tuple(fc.constantFrom('PATCH', 'PUT'), target, body, fc.constantFrom<Record<string, string>>({}, { 'x-svc-draft': 'true' }, { 'if-match': '"2"' }))
    .map(([method, which, item, headers]) => ({ method, path: (ids: Ids) => `/items/articles/${ids[which]}`, body: item, headers })),
  target.map((which) => ({ method: 'DELETE', path: (ids: Ids) => `/items/articles/${ids[which]}` })),
  target.map((which) => ({ method: 'POST', path: (ids: Ids) => `/items/articles/${ids[which]}/versions`, body: { key: 'mine', name: 'Mine' } })),
  fc.tuple(target, body).map(([which, data]) => ({ method: 'PATCH', path: (ids: Ids) => `/items/articles/${ids[which]}/versions/mine`, body: { data } })),
  target.map((which) => ({ method: 'POST', path: (ids: Ids) => `/items/articles/${ids[which]}/versions/mine/promote`, body: {} })),
  fc.tuple(target, fc.nat()).map(([which, index]) => ({
    method: 'POST',
    path: (ids: Ids) => `/items/articles/${ids[which]}/revert`,
    body: { revisionId: revisionIds[index % revisionIds.length] },
  })),
  fc.constantFrom('set_null', 'delete', 'reassign').map((action) => ({
    method: 'POST',
    path: () => `/items/authors/${author.id}/resolve-dependents`,
    body: { action, relation: 'articles-author', newTargetId: author.id },
  })),
);

describe("a member's create and update rules hold against any write", () => {
  it('changes only listed fields of rows within the conditions, creates only rows that meet them, deletes nothing', async () => {
    const hiddenBefore = await adminView(hidden.id);
    const relation = (await site.admin('GET', '/relations')).body.data.find((entry: { collection: string; field: string }) => entry.collection === 'articles' && entry.field === 'author');
    await fc.assert(
      fc.asyncProperty(request, async (entry) => {
        const path = entry.path({ visible: visible.id, hidden: hidden.id }).replace('articles-author', relation.id);
        const payload = entry.body && typeof entry.body === 'object' && 'relation' in entry.body ? { ...entry.body, relation: relation.id } : entry.body;
        const response = await service.request(entry.method, path, { site: site.siteId, token: writer.token, ...(payload === undefined ? {} : { body: payload }), headers: entry.headers ?? {} });
        const what = `${entry.method} ${path} ${JSON.stringify(payload)} ${JSON.stringify(entry.headers ?? {})} → ${response.status} ${JSON.stringify(response.body)}`;
        expect(response.status, what).toBeLessThan(500);

        expect(await adminView(hidden.id), what).toEqual(hiddenBefore);
        const now = await adminView(visible.id);
        expect(now, what).toMatchObject({ body: 'original body', category: 'public', rating: 1, author: author.id });
        const articles = await adminArticles();
        expect(articles.map((article) => article.id), what).toEqual(expect.arrayContaining([visible.id, hidden.id]));
        for (const created of articles.filter((article) => article.userCreated === writer.userId)) {
          expect(created, what).toMatchObject({ category: 'public', body: null, rating: null, author: null });
        }
      }),
      { numRuns: 200 },
    );
  });
});
