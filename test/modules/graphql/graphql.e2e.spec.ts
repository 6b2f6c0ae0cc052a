// GraphQL at /api/v1/graphql over real HTTP and PostgreSQL: credentials as on REST, errors at HTTP
// 200 with the spec's codes, the list arguments, relations, mutations through the REST commands
// (events, revisions, audit, change feed), batched loading, the depth and cost budgets, other sites.
// Types and names: graphqlTypes.e2e.spec.ts; permissions: graphqlPermissions.e2e.spec.ts.
import { describe, expect, it } from 'vitest';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { feedCaughtUp } from '../cdc/support.ts';
import { auditActions } from '../identity/support/identity.ts';
import { createContentSite, createItem, type ContentSite } from '../items/support.ts';
import { dataOf, errorOf, graphqlAs, postGraphql } from './support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();

async function eventsOf(site: ContentSite, collection: string, id: string): Promise<{ type: string; actor: unknown }[]> {
  const { rows } = await owner.query<{ type: string; actor: unknown }>(
    "SELECT type, metadata->'actor' AS actor FROM events WHERE stream_id = $1 ORDER BY stream_position",
    [`${site.siteId}/item/${collection}/${id}`],
  );
  return rows;
}

/** Articles One (3 views, published, by Ada, 3 comments), Two (7, draft, by Bob), Three (5, published, no author). */
async function siteWithArticles() {
  const site = await createContentSite(service, 'gql');
  const ada = await createItem(site, 'authors', { name: 'Ada' });
  const bob = await createItem(site, 'authors', { name: 'Bob' });
  const one = await createItem(site, 'articles', { title: 'One', body: 'a ripe banana', views: 3, status: 'published', author: ada.id });
  const two = await createItem(site, 'articles', { title: 'Two', body: 'an apple', views: 7, status: 'draft', author: bob.id });
  const three = await createItem(site, 'articles', { title: 'Three', body: 'a pear', views: 5, status: 'published' });
  for (const text of ['c1', 'c2', 'c3']) await createItem(site, 'comments', { article: one.id, text });
  return { site, gql: graphqlAs(service, site), ada, bob, one, two, three };
}

describe('transport and credentials', () => {
  it('runs a POSTed operation with variables and operationName, and a GET query, with the login JWT', async () => {
    const { site, gql, one } = await siteWithArticles();
    const document = 'query ById($id: ID!) { articles_by_id(id: $id) { title } } query Names { _collections }';
    const chosen = await postGraphql(service, site.siteId, site.adminToken, { query: document, variables: { id: one.id }, operationName: 'ById' });
    expect(dataOf(chosen)).toEqual({ articles_by_id: { title: 'One' } });
    expect(dataOf(await postGraphql(service, site.siteId, site.adminToken, { query: document, operationName: 'Names' }))).toEqual({ _collections: ['articles', 'authors', 'comments'] });
    expect(dataOf(await gql('{ articles(sort: ["title"]) { title } }')).articles.map((article: { title: string }) => article.title)).toEqual(['One', 'Three', 'Two']);

    const viaGet = await service.request('GET', `/graphql?query=${encodeURIComponent('{ _collections }')}`, { site: site.siteId, token: site.adminToken });
    expect(viaGet.status).toBe(200);
    expect(viaGet.body).toEqual({ data: { _collections: ['articles', 'authors', 'comments'] } });
  });

  it('takes an svk_ API key as REST does', async () => {
    const { site } = await siteWithArticles();
    const key = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body: { name: 'graphql' } });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    expect(key.body.data.key).toMatch(/^svk_/);
    const answer = await graphqlAs(service, site, key.body.data.key)('{ articles(filter: { title: { _eq: "One" } }) { title views } }');
    expect(dataOf(answer)).toEqual({ articles: [{ title: 'One', views: 3 }] });
  });

  it('gives no data without a valid token, even where the public role may read', async () => {
    const { site } = await siteWithArticles();
    const publicRole = (await site.call('GET', '/roles')).body.data.find((role: { systemKey: string }) => role.systemKey === 'public');
    const policy = await site.call('POST', '/policies', { name: 'public reads' });
    await site.call('POST', `/policies/${policy.body.data.id}/permissions`, { collection: 'articles', action: 'read' });
    expect((await site.call('POST', `/policies/${policy.body.data.id}/attach`, { roleId: publicRole.id })).status).toBe(200);
    expect((await service.request('GET', '/items/articles', { site: site.siteId })).status).toBe(200);

    for (const token of [null, 'not-a-token', 'svk_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa']) {
      const answer = await postGraphql(service, site.siteId, token, { query: '{ articles { id title } }' });
      expect(answer.data, String(token)).toBeUndefined();
      expect(errorOf(answer)).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
    }
  });

  it('refuses a request without X-Svc-Site, for an unknown site, or with another site\'s token, with no data', async () => {
    const { site } = await siteWithArticles();
    const other = await createContentSite(service, 'gql-other');
    const missing = await postGraphql(service, null, site.adminToken, { query: '{ _collections }' });
    expect(missing.data).toBeUndefined();
    expect(errorOf(missing)).toMatchObject({ code: 'VALIDATION', status: 400, path: ['headers', 'x-svc-site'] });
    const unknown = await postGraphql(service, 'no-such-site', site.adminToken, { query: '{ _collections }' });
    expect(unknown.data).toBeUndefined();
    expect(errorOf(unknown)).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    const foreign = await postGraphql(service, other.siteId, site.adminToken, { query: '{ articles { id } }' });
    expect(foreign.data).toBeUndefined();
    expect(errorOf(foreign)).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
  });

  it('serves GraphiQL to a browser outside production', async () => {
    const page = await service.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(String(page.body)).toContain('GraphiQL');
  });
});

describe('errors', () => {
  it('answers refusals at HTTP 200 with extensions.code and extensions.status', async () => {
    const { gql } = await siteWithArticles();
    const cases: [string, string, Record<string, unknown> | undefined, { code: string; status: number; path?: unknown }][] = [
      ['syntax', '{ articles { ', undefined, { code: 'VALIDATION', status: 400 }],
      ['unknown field', '{ articles { nope } }', undefined, { code: 'VALIDATION', status: 400 }],
      ['unknown collection', '{ nope { id } }', undefined, { code: 'VALIDATION', status: 400 }],
      ['variable of the wrong type', 'query ($limit: Int) { articles(limit: $limit) { id } }', { limit: 'many' }, { code: 'VALIDATION', status: 400 }],
      ['limit over 200', '{ articles(limit: 201) { id } }', undefined, { code: 'VALIDATION', status: 400, path: ['limit'] }],
      ['limit 0', '{ articles(limit: 0) { id } }', undefined, { code: 'VALIDATION', status: 400, path: ['limit'] }],
      ['negative offset', '{ articles(offset: -1) { id } }', undefined, { code: 'VALIDATION', status: 400, path: ['offset'] }],
      ['unknown sort field', '{ articles(sort: ["-nope"]) { id } }', undefined, { code: 'VALIDATION', status: 400, path: ['sort'] }],
      ['data not an object', 'mutation { create_articles(data: [1]) { id } }', undefined, { code: 'VALIDATION', status: 400 }],
      ['value of the wrong type', 'mutation { create_articles(data: { title: "T", views: "many" }) { id } }', undefined, { code: 'VALIDATION', status: 400 }],
      ['value the field refuses', 'mutation { create_articles(data: { title: "T", color: "not a color" }) { id } }', undefined, { code: 'VALIDATION', status: 400, path: ['body', 'color'] }],
      ['missing required field', 'mutation { create_articles(data: { views: 1 }) { id } }', undefined, { code: 'VALIDATION', status: 400 }],
      ['unknown field', 'mutation { create_articles(data: { title: "T", nope: 1 }) { id } }', undefined, { code: 'VALIDATION', status: 400 }],
      ['update of an unknown id', 'mutation { update_articles(id: "nope", data: { title: "x" }) { id } }', undefined, { code: 'NOT_FOUND', status: 404 }],
      ['delete of an unknown id', 'mutation { delete_articles(id: "nope") }', undefined, { code: 'NOT_FOUND', status: 404 }],
    ];
    for (const [what, query, variables, expected] of cases) {
      const answer = await gql(query, variables);
      expect(errorOf(answer), what).toMatchObject(expected);
    }
  });

  it('refuses an o2m limit or offset that REST\'s deep[…][limit|offset] refuses', async () => {
    const { gql, one } = await siteWithArticles();
    for (const args of ['limit: 0', 'limit: -1', 'limit: 201', 'offset: -1']) {
      const answer = await gql(`{ articles_by_id(id: "${one.id}") { comments(${args}) { text } } }`);
      expect(answer.errors, `${args}: ${JSON.stringify(answer)}`).toBeDefined();
      expect(errorOf(answer), args).toMatchObject({ code: 'VALIDATION', status: 400 });
    }
  });

  it('answers INVALID_FILTER or VALIDATION for an unknown filter field or operator, with its path', async () => {
    const { gql } = await siteWithArticles();
    const field = errorOf(await gql('{ articles(filter: { nope: { _eq: 1 } }) { id } }'));
    expect(['INVALID_FILTER', 'VALIDATION']).toContain(field.code);
    expect(field).toMatchObject({ status: 400, path: ['filter', 'nope'] });
    const operator = errorOf(await gql('{ articles(filter: { title: { _like_nothing: "x" } }) { id } }'));
    expect(['INVALID_FILTER', 'VALIDATION']).toContain(operator.code);
    expect(operator).toMatchObject({ status: 400, path: ['filter', 'title', '_like_nothing'] });
    const notObject = errorOf(await gql('{ articles(filter: "title") { id } }'));
    expect(['INVALID_FILTER', 'VALIDATION']).toContain(notObject.code);
  });
});

describe('reading', () => {
  it('filters with REST\'s filter tree (literal or variable, logical and relational), sorts, pages and filters by status', async () => {
    const { gql } = await siteWithArticles();
    const titles = async (args: string, variables?: Record<string, unknown>) =>
      dataOf(await gql(`query ${variables ? '($filter: JSON)' : ''} { articles${args} { title } }`, variables)).articles.map((article: { title: string }) => article.title);
    expect(await titles('(filter: { views: { _gt: 4 } }, sort: ["views"])')).toEqual(['Three', 'Two']);
    expect(await titles('(filter: $filter, sort: ["-views"])', { filter: { _or: [{ title: { _eq: 'One' } }, { views: { _eq: 7 } }] } })).toEqual(['Two', 'One']);
    expect(await titles('(filter: { author: { name: { _eq: "Ada" } } })')).toEqual(['One']);
    expect(await titles('(filter: { author: { _null: true } })')).toEqual(['Three']);
    expect(await titles('(sort: ["status", "-views"])')).toEqual(['Two', 'Three', 'One']);
    expect(await titles('(sort: ["views"], limit: 2)')).toEqual(['One', 'Three']);
    expect(await titles('(sort: ["views"], limit: 2, offset: 2)')).toEqual(['Two']);
    expect(await titles('(sort: ["views"], offset: 3)')).toEqual([]);
    expect(await titles('(status: "published", sort: ["title"])')).toEqual(['One', 'Three']);
    expect(await titles('(status: "published", filter: { views: { _lt: 4 } })')).toEqual(['One']);
    expect(await titles('(status: "archived")')).toEqual([]);
  });

  it('searches with the full-text search', async () => {
    const { gql } = await siteWithArticles();
    await service.context.daemon.drain();
    const found = dataOf(await gql('{ articles(search: "banana") { title } }')).articles;
    expect(found).toEqual([{ title: 'One' }]);
    expect(dataOf(await gql('{ articles(search: "kiwi") { title } }')).articles).toEqual([]);
  });

  it('reads one item by id: null when unknown or deleted', async () => {
    const { gql, one, two } = await siteWithArticles();
    expect(dataOf(await gql(`{ articles_by_id(id: "${one.id}") { id title views } }`))).toEqual({ articles_by_id: { id: one.id, title: 'One', views: 3 } });
    expect(dataOf(await gql('{ articles_by_id(id: "nope") { id } }'))).toEqual({ articles_by_id: null });
    expect(dataOf(await gql(`mutation { delete_articles(id: "${two.id}") }`))).toEqual({ delete_articles: true });
    expect(dataOf(await gql(`{ articles_by_id(id: "${two.id}") { id } }`))).toEqual({ articles_by_id: null });
  });

  it('nests an m2o as an object or null and an o2m as a list with limit and offset, as REST answers them', async () => {
    const { site, gql, one, three } = await siteWithArticles();
    const read = dataOf(await gql(`{
      one: articles_by_id(id: "${one.id}") { author { name articles { title } } comments { text } again: comments { id } }
      three: articles_by_id(id: "${three.id}") { author { name } comments { text } }
    }`));
    expect(read.one).toEqual({ author: { name: 'Ada', articles: [{ title: 'One' }] }, comments: [{ text: 'c1' }, { text: 'c2' }, { text: 'c3' }], again: [{ id: expect.any(String) }, { id: expect.any(String) }, { id: expect.any(String) }] });
    expect(read.three).toEqual({ author: null, comments: [] });
    const paged = dataOf(await gql(`{ articles_by_id(id: "${one.id}") { comments(limit: 1, offset: 1) { text } } }`));
    const rest = await site.call('GET', `/items/articles/${one.id}?fields=comments.text&deep[comments][limit]=1&deep[comments][offset]=1`);
    expect(rest.status, JSON.stringify(rest.body)).toBe(200);
    expect(paged.articles_by_id.comments).toEqual(rest.body.data.comments);
    expect(paged.articles_by_id.comments).toEqual([{ text: 'c2' }]);
    // Fragments are followed, and an alias reads the same relation.
    const fragments = dataOf(await gql(`fragment A on articles { title writer: author { ...W } } fragment W on authors { name }
      { articles(filter: { title: { _eq: "One" } }) { ...A } }`));
    expect(fragments.articles).toEqual([{ title: 'One', writer: { name: 'Ada' } }]);
  });
});

describe('mutations', () => {
  it('creates, updates and deletes through the REST commands: events, revisions, audit and change feed', async () => {
    const { site, gql, ada } = await siteWithArticles();
    const created = dataOf(await gql(`mutation ($data: create_articles_input) { create_articles(data: $data, status: "draft", sort: 4) { id title views status sort author { name } userCreated createdAt } }`, { data: { title: 'Made', views: 9, author: ada.id } })).create_articles;
    expect(created).toMatchObject({ title: 'Made', views: 9, status: 'draft', sort: 4, author: { name: 'Ada' }, userCreated: site.adminUserId });
    const rest = await site.call('GET', `/items/articles/${created.id}?fields=id,title,views,status,sort,userCreated,createdAt`);
    expect(rest.body.data).toEqual({ id: created.id, title: 'Made', views: 9, status: 'draft', sort: 4, userCreated: site.adminUserId, createdAt: created.createdAt });

    const updated = dataOf(await gql(`mutation { update_articles(id: "${created.id}", data: { views: 10 }, status: "published", sort: 1) { id title views status sort } }`)).update_articles;
    expect(updated).toEqual({ id: created.id, title: 'Made', views: 10, status: 'published', sort: 1 });
    expect(dataOf(await gql(`mutation { delete_articles(id: "${created.id}") }`))).toEqual({ delete_articles: true });
    expect((await site.call('GET', `/items/articles/${created.id}`)).status).toBe(404);

    // The same events as a REST write, with the caller as actor.
    const actor = { kind: 'user', id: site.adminUserId };
    expect(await eventsOf(site, 'articles', created.id)).toEqual([
      { type: 'item.created', actor },
      { type: 'item.updated', actor },
      { type: 'item.deleted', actor },
    ]);
    const viaRest = await createItem(site, 'articles', { title: 'Made by REST' });
    expect((await eventsOf(site, 'articles', viaRest.id)).map((event) => event.type)).toEqual(['item.created']);
    const revisions = await site.call('GET', `/items/articles/${created.id}/revisions`);
    expect(revisions.status, JSON.stringify(revisions.body)).toBe(200);
    expect(revisions.body.data).toHaveLength(3);

    const audit = await auditActions(service, site, `&filter[target][_eq]=item/articles/${created.id}`);
    expect(audit.map((entry) => entry.action).sort()).toEqual(['item.created', 'item.deleted', 'item.updated']);
    await feedCaughtUp(service);
    const feed = (await site.call('GET', '/cdc/events')).body.data.filter((entry: { itemId?: string }) => entry.itemId === created.id);
    expect(feed.map((entry: { type: string }) => entry.type)).toEqual(['items.create', 'items.update', 'items.delete']);
  });
});

describe('batched loading', () => {
  it('runs as many SQL statements for 50 items with nested relations as for 5', { timeout: 60_000 }, async () => {
    const { site, gql, ada, bob } = await siteWithArticles();
    const bulk = await site.call('POST', '/items/articles', Array.from({ length: 50 }, (_, index) => ({ title: `Bulk ${index}`, author: index % 2 ? ada.id : bob.id })));
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(201);
    const comments = bulk.body.data.flatMap((article: { id: string }) => [{ article: article.id, text: 'x' }, { article: article.id, text: 'y' }]);
    expect((await site.call('POST', '/items/comments', comments)).status).toBe(201);
    // The projection daemon shares the counter: let it catch up and pause it while counting.
    await service.context.daemon.drain();
    await service.context.daemon.stop();
    try {
      const countQueries = async (query: string) => {
        await gql(query); // caches (schema, site, user, GraphQL schema)
        const counts: number[] = [];
        let answer: any;
        for (let run = 0; run < 10; run += 1) {
          const before = service.context.database.stats.siteQueries;
          answer = dataOf(await gql(query));
          counts.push(service.context.database.stats.siteQueries - before);
        }
        return { queries: Math.min(...counts), answer };
      };
      const nested = (limit: number) =>
        `{ articles(limit: ${limit}, filter: { title: { _starts_with: "Bulk" } }) { id title author { name articles(limit: 3) { title } } comments(limit: 2) { text article { title } } } }`;
      const small = await countQueries(nested(5));
      const large = await countQueries(nested(50));
      expect([small.answer.articles.length, large.answer.articles.length]).toEqual([5, 50]);
      expect(large.answer.articles.every((article: any) => article.author.name && article.comments.length === 2 && article.author.articles.length === 3)).toBe(true);
      expect(large.queries).toBe(small.queries);
      const authorsOf = (limit: number) => `{ authors(limit: ${limit}, sort: ["name"]) { name articles(limit: 30) { title comments(limit: 2) { text } } } }`;
      const oneAuthor = await countQueries(authorsOf(1));
      const twoAuthors = await countQueries(authorsOf(2));
      expect(twoAuthors.answer.authors).toHaveLength(2);
      expect(twoAuthors.queries).toBe(oneAuthor.queries);
    } finally {
      await service.context.daemon.start();
    }
  });
});

describe('depth and cost budgets', () => {
  const aliases = (count: number, field: string, prefix: string) => Array.from({ length: count }, (_, index) => `${prefix}${index}: ${field}`).join(' ');
  const roots = (count: number) => aliases(count, '_collections', 'r');
  /** articles(limit: 1) > author > articles(limit: 1) > … with `id` as the field at `depth`. */
  const chain = (depth: number) => {
    let inner = 'id';
    for (let level = depth - 1; level >= 2; level -= 1) inner = level % 2 === 0 ? `author { ${inner} }` : `articles(limit: 1) { ${inner} }`;
    return `{ articles(limit: 1, filter: { title: { _eq: "One" } }) { ${inner} } }`;
  };

  it('refuses a query deeper than 12', async () => {
    const { gql } = await siteWithArticles();
    const over = await gql(chain(13));
    expect(over.data).toBeUndefined();
    expect(errorOf(over)).toMatchObject({ code: 'VALIDATION', status: 400, message: 'Query exceeds the maximum depth of 12' });
    expect(dataOf(await gql(chain(7))).articles).toHaveLength(1);
  });

  it('runs a query exactly 12 deep', async () => {
    const { gql } = await siteWithArticles();
    const answer = dataOf(await gql(chain(12)));
    let level = answer.articles[0];
    for (let depth = 2; depth < 12; depth += 1) level = depth % 2 === 0 ? level.author : level.articles[0];
    expect(level.id).toEqual(expect.any(String));
  });

  it('runs a query costing exactly 1000 and refuses one costing 1001: literal, clamped, variable, absent and nested limits', async () => {
    const { gql } = await siteWithArticles();
    const overCost = { code: 'VALIDATION', status: 400, message: 'Query exceeds the maximum cost of 1000' };
    const cases: [string, (extra: number) => string, Record<string, unknown> | undefined][] = [
      // 1 + 100 × 9 + 99
      ['literal limit', (extra) => `{ articles(limit: 100) { ${aliases(9, 'id', 'i')} } ${roots(99 + extra)} }`, undefined],
      // limit 150 multiplies by 100
      ['clamped limit', (extra) => `{ articles(limit: 150) { ${aliases(9, 'id', 'i')} } ${roots(99 + extra)} }`, undefined],
      // a variable counts 20, whatever its value: 1 + 20 × 49 + 19
      ['variable limit', (extra) => `query ($n: Int) { articles(limit: $n) { ${aliases(49, 'id', 'i')} } ${roots(19 + extra)} }`, { n: 200 }],
      ['no limit', (extra) => `{ articles { ${aliases(49, 'id', 'i')} } ${roots(19 + extra)} }`, undefined],
      // nested lists multiply: 1 + 10 × (1 + 10 × 9) + 89
      ['nested lists', (extra) => `{ authors(limit: 10) { articles(limit: 10) { ${aliases(9, 'id', 'i')} } } ${roots(89 + extra)} }`, undefined],
    ];
    for (const [what, query, variables] of cases) {
      const atLimit = await gql(query(0), variables);
      expect(atLimit.errors, `${what}: ${JSON.stringify(atLimit.errors)}`).toBeUndefined();
      expect(atLimit.data.r0, what).toEqual(['articles', 'authors', 'comments']);
      const over = await gql(query(1), variables);
      expect(over.data, what).toBeUndefined();
      expect(errorOf(over), what).toMatchObject(overCost);
    }
  });
});

describe('other sites', () => {
  it('reads another site\'s id as null and refuses to change or delete it with NOT_FOUND', async () => {
    const { site, one } = await siteWithArticles();
    const other = await createContentSite(service, 'gql-other');
    const gqlOther = graphqlAs(service, other);
    expect(dataOf(await gqlOther(`{ articles_by_id(id: "${one.id}") { id title } articles { id } }`))).toEqual({ articles_by_id: null, articles: [] });
    const update = await gqlOther(`mutation { update_articles(id: "${one.id}", data: { title: "Hijacked" }) { id } }`);
    expect(errorOf(update)).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(update.data).toBeNull();
    expect(errorOf(await gqlOther(`mutation { delete_articles(id: "${one.id}") }`))).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect((await site.call('GET', `/items/articles/${one.id}?fields=title`)).body.data).toEqual({ title: 'One' });
  });
});
