// A member's policies shape its GraphQL schema and answers as they shape REST: collections it
// cannot read are not in its schema, mutations it may not make are missing, row conditions filter,
// fields it may not read are not in its schema either, writes outside its rules are PERMISSION_DENIED or NOT_FOUND.
import { describe, expect, it } from 'vitest';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createMember, createRole, grant, withHelpers, type AccessSite } from '../access/support.ts';
import { createContentSite, createItem } from '../items/support.ts';
import { dataOf, errorOf, graphqlAs } from './support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();

/** The content site (authors, articles, comments) with Ada, a published article by her, a draft and an archived one. */
async function siteWithArticles() {
  const content = await createContentSite(service, 'gqlperm');
  const site: AccessSite = withHelpers(service, content);
  const ada = await createItem(content, 'authors', { name: 'Ada', email: 'ada@example.test' });
  const published = await createItem(content, 'articles', { title: 'Out', body: 'public text', views: 5, status: 'published', author: ada.id });
  const draft = await createItem(content, 'articles', { title: 'Soon', body: 'secret plans', views: 1, status: 'draft' });
  const archived = await createItem(content, 'articles', { title: 'Old', views: 2, status: 'archived' });
  await createItem(content, 'comments', { article: published.id, text: 'nice' });
  return { site, ada, published, draft, archived };
}

async function memberWith(site: AccessSite, rules: Parameters<typeof grant>[2]) {
  const role = await createRole(site);
  if (rules.length > 0) await grant(site, { roleId: role.id }, rules);
  const member = await createMember(service, site, { roleId: role.id });
  return { role, member, gql: graphqlAs(service, site, member.token) };
}

describe('reading', () => {
  it('shows a reader only the collections, rows and fields its policies allow, as REST does', async () => {
    const { site, ada, published, draft } = await siteWithArticles();
    const { member, gql } = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['id', 'title', 'status', 'author'], conditions: { status: { _eq: 'published' } } }]);

    expect(dataOf(await gql('{ _collections }'))).toEqual({ _collections: ['articles'] });
    for (const query of ['{ authors { id } }', '{ comments_by_id(id: "x") { id } }', '{ articles { comments { id } } }']) {
      expect(errorOf(await gql(query)), query).toMatchObject({ code: 'VALIDATION', status: 400 });
    }
    const list = dataOf(await gql('{ articles { id title status author _data } }')).articles;
    // An m2o to a collection it cannot read is the id, as REST's `fields=author`.
    expect(list).toEqual([{ id: published.id, title: 'Out', status: 'published', author: ada.id, _data: { id: published.id, title: 'Out', status: 'published', author: ada.id } }]);
    // Fields it may not read are not in its schema.
    expect(errorOf(await gql('{ articles { id views } }'))).toMatchObject({ code: 'VALIDATION', status: 400, message: expect.stringContaining('Cannot query field "views"') });
    const rest = await site.as(member.token, 'GET', '/items/articles?fields=*');
    expect(rest.body.data).toEqual(list.map((article: { _data: unknown }) => article._data));
    expect(dataOf(await gql(`{ articles_by_id(id: "${draft.id}") { id } }`))).toEqual({ articles_by_id: null });
    expect(dataOf(await gql('{ articles(status: "draft") { id } }'))).toEqual({ articles: [] });

    // Testing a hidden field's value is refused, as on REST.
    expect(errorOf(await gql('{ articles(filter: { body: { _contains: "secret" } }) { id } }'))).toMatchObject({ code: 'PERMISSION_DENIED', status: 403, path: ['filter', 'body'] });
    expect(errorOf(await gql('{ articles(sort: ["-views"]) { id } }'))).toMatchObject({ code: 'PERMISSION_DENIED', status: 403, path: ['sort'] });
    // Without any write rule there is no mutation at all.
    expect(errorOf(await gql('mutation { create_articles(data: { title: "Spam" }) { id } }'))).toMatchObject({ code: 'VALIDATION', status: 400 });
  });

  it('masks the fields of a related collection its policies list only in part', async () => {
    const { site, published } = await siteWithArticles();
    const { gql } = await memberWith(site, [
      { collection: 'articles', action: 'read' },
      { collection: 'authors', action: 'read', fields: ['id', 'name'] },
    ]);
    const read = dataOf(await gql(`{ articles_by_id(id: "${published.id}") { title author { name _data } } authors { name } }`));
    expect(read.articles_by_id).toEqual({ title: 'Out', author: { name: 'Ada', _data: { id: expect.any(String), name: 'Ada' } } });
    expect(read.authors).toEqual([{ name: 'Ada' }]);
    expect(errorOf(await gql(`{ articles_by_id(id: "${published.id}") { author { email } } }`))).toMatchObject({ code: 'VALIDATION', status: 400 });
    expect(errorOf(await gql('{ articles(filter: { author: { email: { _eq: "ada@example.test" } } }) { id } }'))).toMatchObject({ code: 'PERMISSION_DENIED', status: 403 });
  });

  it('gives a member without rules an empty schema', async () => {
    const { site } = await siteWithArticles();
    const { gql } = await memberWith(site, []);
    expect(dataOf(await gql('{ _collections _schemaWarnings }'))).toEqual({ _collections: [], _schemaWarnings: [] });
    expect(errorOf(await gql('{ articles { id } }'))).toMatchObject({ code: 'VALIDATION', status: 400 });
  });

  it('follows a policy change on the next request', async () => {
    const { site } = await siteWithArticles();
    const { role, gql } = await memberWith(site, [{ collection: 'articles', action: 'read' }]);
    expect(dataOf(await gql('{ _collections }'))).toEqual({ _collections: ['articles'] });
    const policy = await grant(site, { roleId: role.id }, [{ collection: 'authors', action: 'read', fields: ['id', 'name'] }]);
    expect(dataOf(await gql('{ _collections authors { name } }'))).toEqual({ _collections: ['articles', 'authors'], authors: [{ name: 'Ada' }] });
    expect((await site.admin('DELETE', `/policies/${policy}`)).status).toBe(204);
    expect(dataOf(await gql('{ _collections }'))).toEqual({ _collections: ['articles'] });
    expect(errorOf(await gql('{ authors { name } }'))).toMatchObject({ code: 'VALIDATION', status: 400 });
  });

  it('gives a role-bound svk_ API key its role\'s schema and masks', async () => {
    const { site, published } = await siteWithArticles();
    const { role } = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['id', 'title'], conditions: { status: { _eq: 'published' } } }]);
    const key = await site.admin('POST', '/api-keys', { name: 'reader', roleId: role.id });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    const gql = graphqlAs(service, site, key.body.data.key);
    expect(dataOf(await gql('{ _collections articles { id title } }'))).toEqual({ _collections: ['articles'], articles: [{ id: published.id, title: 'Out' }] });
    expect(errorOf(await gql('{ articles { views } }'))).toMatchObject({ code: 'VALIDATION', status: 400 });
    expect(errorOf(await gql('mutation { delete_articles(id: "x") }'))).toMatchObject({ code: 'VALIDATION', status: 400 });
  });
});

describe('writing', () => {
  it('applies create and update rules as REST does, and offers only the mutations they allow', async () => {
    const { site, published, draft, archived } = await siteWithArticles();
    const { member, gql } = await memberWith(site, [
      { collection: 'articles', action: 'read', conditions: { status: { _in: ['published', 'draft'] } } },
      { collection: 'articles', action: 'create', fields: ['title', 'views', 'status'] },
      { collection: 'articles', action: 'update', fields: ['title'], conditions: { status: { _eq: 'draft' } } },
    ]);

    const created = dataOf(await gql('mutation { create_articles(data: { title: "Mine", views: 1 }, status: "draft") { id title views status userCreated } }')).create_articles;
    expect(created).toMatchObject({ title: 'Mine', views: 1, status: 'draft', userCreated: member.userId });
    const { rows } = await owner.query("SELECT type, metadata->'actor' AS actor FROM events WHERE stream_id = $1", [`${site.siteId}/item/articles/${created.id}`]);
    expect(rows).toEqual([{ type: 'item.created', actor: { kind: 'user', id: member.userId } }]);
    // A field outside the create list is not in its input type.
    expect(errorOf(await gql('mutation { create_articles(data: { title: "x", body: "y" }) { id } }'))).toMatchObject({ code: 'VALIDATION', status: 400, message: expect.stringContaining('Field "body" is not defined by type "create_articles_input"') });
    // Created where its read rules do not reach: the answer is the id alone.
    const unseen = dataOf(await gql('mutation { create_articles(data: { title: "Hidden" }, status: "archived") { id title } }')).create_articles;
    expect(unseen).toEqual({ id: expect.any(String), title: null });

    expect(dataOf(await gql(`mutation { update_articles(id: "${draft.id}", data: { title: "Soon v2" }) { title } }`))).toEqual({ update_articles: { title: 'Soon v2' } });
    // A field outside the update list, a row it reads but may not update, a row it can neither read nor update.
    expect(errorOf(await gql(`mutation { update_articles(id: "${draft.id}", data: { views: 9 }) { id } }`))).toMatchObject({ code: 'VALIDATION', status: 400, message: expect.stringContaining('Field "views" is not defined by type "update_articles_input"') });
    expect(errorOf(await gql(`mutation { update_articles(id: "${published.id}", data: { title: "x" }) { id } }`))).toMatchObject({ code: 'PERMISSION_DENIED', status: 403 });
    expect(errorOf(await gql(`mutation { update_articles(id: "${archived.id}", data: { title: "x" }) { id } }`))).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    // No delete rule: no delete mutation.
    expect(errorOf(await gql(`mutation { delete_articles(id: "${draft.id}") }`))).toMatchObject({ code: 'VALIDATION', status: 400 });

    const titles = (await site.admin('GET', '/items/articles?fields=title&sort=title&limit=10')).body.data.map((article: { title: string }) => article.title);
    expect(titles).toEqual(['Hidden', 'Mine', 'Old', 'Out', 'Soon v2']);
  });

  it('offers update without create to a member who may only update', async () => {
    const { site, draft } = await siteWithArticles();
    const { gql } = await memberWith(site, [
      { collection: 'articles', action: 'read' },
      { collection: 'articles', action: 'update', fields: ['title'] },
    ]);
    const refused = errorOf(await gql('mutation { create_articles(data: { title: "x" }) { id } }'));
    expect(refused).toMatchObject({ code: 'VALIDATION', status: 400 });
    expect(refused.message).toContain('create_articles');
    expect(dataOf(await gql(`mutation { update_articles(id: "${draft.id}", data: { title: "Edited" }) { title } }`))).toEqual({ update_articles: { title: 'Edited' } });
  });
});
