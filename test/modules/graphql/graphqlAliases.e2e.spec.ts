// Aliases over real HTTP and PostgreSQL: each alias of a to-many relation or a root list answers
// its own arguments (limit, offset, filter, sort), as REST's deep parameters would, at every level;
// equal arguments share one read; another set of arguments is one more batched read per level,
// never one per parent; permissions and other sites' rows apply to every alias.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createMember, createRole, grant, withHelpers } from '../access/support.ts';
import { createContentSite, createItem } from '../items/support.ts';
import { dataOf, errorOf, graphqlAs } from './support.ts';

const service = await startTestServiceForFile();

const titles = (list: { title: string }[]) => list.map((item) => item.title);
const texts = (list: { text: string }[]) => list.map((item) => item.text);

/** Ada with articles A, B (draft), C, D and Bob with E; A has comments a1–a3, C has c1 and c2, E has e1. */
async function siteWithAuthors() {
  const site = await createContentSite(service, 'gqlalias');
  const ada = await createItem(site, 'authors', { name: 'Ada' });
  const bob = await createItem(site, 'authors', { name: 'Bob' });
  const articles: Record<string, { id: string }> = {};
  for (const [title, status, author] of [['A', 'published', ada], ['B', 'draft', ada], ['C', 'published', ada], ['D', 'published', ada], ['E', 'published', bob]] as const) {
    articles[title] = await createItem(site, 'articles', { title, status, views: title.charCodeAt(0), author: author.id });
  }
  for (const text of ['a1', 'a2', 'a3']) await createItem(site, 'comments', { article: articles.A!.id, text });
  for (const text of ['c1', 'c2']) await createItem(site, 'comments', { article: articles.C!.id, text });
  await createItem(site, 'comments', { article: articles.E!.id, text: 'e1' });
  return { site, gql: graphqlAs(service, site), ada, bob, articles };
}

/** The fewest SQL statements of 5 runs of `query` (the projection daemon shares the counter: the caller pauses it). */
async function statementsOf(gql: ReturnType<typeof graphqlAs>, query: string): Promise<{ statements: number; data: any }> {
  dataOf(await gql(query));
  let statements = Number.POSITIVE_INFINITY;
  let data: any;
  for (let run = 0; run < 5; run += 1) {
    const before = service.context.database.stats.siteQueries;
    data = dataOf(await gql(query));
    statements = Math.min(statements, service.context.database.stats.siteQueries - before);
  }
  return { statements, data };
}

describe('aliases of a to-many relation', () => {
  it('answers each alias with its own limit, offset, filter and sort, as REST\'s deep parameters do', async () => {
    const { site, gql, ada } = await siteWithAuthors();
    const read = dataOf(await gql(`{ authors_by_id(id: "${ada.id}") {
      all: articles(limit: 10, sort: ["title"]) { id title }
      page: articles(limit: 2, offset: 1, sort: ["title"]) { title }
      published: articles(filter: { status: { _eq: "published" } }, sort: ["-title"]) { title status }
      last: articles(sort: ["-views"], limit: 1) { title views }
    } }`)).authors_by_id;
    expect(titles(read.all)).toEqual(['A', 'B', 'C', 'D']);
    expect(titles(read.page)).toEqual(['B', 'C']);
    expect(read.published).toEqual([{ title: 'D', status: 'published' }, { title: 'C', status: 'published' }, { title: 'A', status: 'published' }]);
    expect(read.last).toEqual([{ title: 'D', views: 68 }]);
    // The same answer as REST's deep[articles][…] for the paged alias.
    const rest = await site.call('GET', `/items/authors/${ada.id}?fields=articles.title&deep[articles][limit]=2&deep[articles][offset]=1&deep[articles][sort]=title`);
    expect(rest.status, JSON.stringify(rest.body)).toBe(200);
    expect(read.page).toEqual(rest.body.data.articles);
  });

  it('gives every parent of a list its own answer per alias', async () => {
    const { gql } = await siteWithAuthors();
    const authors = dataOf(await gql(`{ authors(sort: ["name"]) {
      name first: articles(limit: 1, sort: ["title"]) { title } rest: articles(offset: 1, sort: ["title"]) { title }
    } }`)).authors;
    expect(authors.map((author: any) => [author.name, titles(author.first), titles(author.rest)])).toEqual([
      ['Ada', ['A'], ['B', 'C', 'D']],
      ['Bob', ['E'], []],
    ]);
  });

  it('shares one read between aliases with the same arguments, written in any order', async () => {
    const { gql, ada } = await siteWithAuthors();
    await service.context.daemon.drain();
    await service.context.daemon.stop();
    try {
      const once = await statementsOf(gql, `{ authors_by_id(id: "${ada.id}") { articles(limit: 2, sort: ["title"], filter: { views: { _gt: 0 } }) { id title } } }`);
      const twice = await statementsOf(
        gql,
        `{ authors_by_id(id: "${ada.id}") { x: articles(limit: 2, sort: ["title"], filter: { views: { _gt: 0 } }) { id } y: articles(filter: { views: { _gt: 0 } }, sort: ["title"], limit: 2) { title } } }`,
      );
      expect(twice.data.authors_by_id.x.map((article: { id: string }) => article.id)).toEqual(once.data.authors_by_id.articles.map((article: { id: string }) => article.id));
      expect(twice.data.authors_by_id.y).toEqual([{ title: 'A' }, { title: 'B' }]);
      expect(twice.statements).toBe(once.statements);
    } finally {
      await service.context.daemon.start();
    }
  });

  it('reads aliases at nested levels, below an m2o and below another alias', async () => {
    const { gql, ada, articles } = await siteWithAuthors();
    const read = dataOf(await gql(`{
      authors_by_id(id: "${ada.id}") {
        early: articles(limit: 2, sort: ["title"]) { title one: comments(limit: 1, sort: ["text"]) { text } two: comments(limit: 2, offset: 1, sort: ["text"]) { text } }
        late: articles(offset: 2, sort: ["title"]) { title comments(sort: ["-text"]) { text } newest: comments(limit: 1, sort: ["-text"]) { text } }
      }
      articles_by_id(id: "${articles.C!.id}") { author { name a: articles(limit: 1, sort: ["-title"]) { title } b: articles(limit: 1, sort: ["title"]) { title } } }
    }`));
    expect(read.authors_by_id.early).toEqual([
      { title: 'A', one: [{ text: 'a1' }], two: [{ text: 'a2' }, { text: 'a3' }] },
      { title: 'B', one: [], two: [] },
    ]);
    expect(read.authors_by_id.late).toEqual([
      { title: 'C', comments: [{ text: 'c2' }, { text: 'c1' }], newest: [{ text: 'c2' }] },
      { title: 'D', comments: [], newest: [] },
    ]);
    expect(read.articles_by_id.author).toEqual({ name: 'Ada', a: [{ title: 'D' }], b: [{ title: 'A' }] });
  });

  it('answers root list aliases with their own arguments and their own nested aliases', async () => {
    const { gql } = await siteWithAuthors();
    const read = dataOf(await gql(`{
      top: articles(sort: ["-views"], limit: 2) { title comments(limit: 1) { text } }
      commented: articles(filter: { title: { _in: ["A", "C", "E"] } }, sort: ["title"]) { title last: comments(sort: ["-text"], limit: 1) { text } all: comments(sort: ["text"]) { text } }
      drafts: articles(status: "draft") { title }
    }`));
    expect(read.top).toEqual([{ title: 'E', comments: [{ text: 'e1' }] }, { title: 'D', comments: [] }]);
    expect(read.commented.map((article: any) => [article.title, texts(article.last), texts(article.all)])).toEqual([
      ['A', ['a3'], ['a1', 'a2', 'a3']],
      ['C', ['c2'], ['c1', 'c2']],
      ['E', ['e1'], ['e1']],
    ]);
    expect(read.drafts).toEqual([{ title: 'B' }]);
  });

  it('keeps SQL statements bounded: one more batched read per level for another set of arguments, whatever the number of parents', { timeout: 60_000 }, async () => {
    const { site, gql } = await siteWithAuthors();
    const authors = await site.call('POST', '/items/authors', Array.from({ length: 20 }, (_, index) => ({ name: `Many ${String(index).padStart(2, '0')}` })));
    expect(authors.status, JSON.stringify(authors.body)).toBe(201);
    const bulk = await site.call(
      'POST',
      '/items/articles',
      authors.body.data.flatMap((author: { id: string }) => ['x', 'y', 'z'].map((title) => ({ title, author: author.id }))),
    );
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(201);
    const comments = bulk.body.data.flatMap((article: { id: string }) => [{ article: article.id, text: 'p' }, { article: article.id, text: 'q' }]);
    expect((await site.call('POST', '/items/comments', comments)).status).toBe(201);
    await service.context.daemon.drain();
    await service.context.daemon.stop();
    try {
      const plain = (limit: number) => `{ authors(limit: ${limit}, filter: { name: { _starts_with: "Many" } }) { name articles(limit: 3) { title comments(limit: 2) { text } } } }`;
      const aliased = (limit: number) => `{ authors(limit: ${limit}, filter: { name: { _starts_with: "Many" } }) { name
        articles(limit: 3) { title comments(limit: 2) { text } first: comments(limit: 1) { text } }
        one: articles(limit: 1, sort: ["-title"]) { title comments(limit: 2) { text } }
      } }`;
      const base = await statementsOf(gql, plain(2));
      const small = await statementsOf(gql, aliased(2));
      const large = await statementsOf(gql, aliased(20));
      expect(large.data.authors).toHaveLength(20);
      expect(large.data.authors.every((author: any) => author.articles.length === 3 && author.articles.every((article: any) => article.comments.length === 2 && article.first.length === 1))).toBe(true);
      expect(large.data.authors.every((author: any) => author.one.length === 1 && author.one[0].title === 'z' && author.one[0].comments.length === 2)).toBe(true);
      expect(large.statements).toBe(small.statements);
      // Two other variants, each read once for all its parents: `first` (the articles again by id, their
      // comments) and `one` (the authors again by id, their articles, those articles' comments).
      expect(small.statements).toBe(base.statements + 2 + 3);
    } finally {
      await service.context.daemon.start();
    }
  });
});

describe('refusals, permissions and other sites', () => {
  it('refuses an alias\'s bad arguments with VALIDATION or INVALID_FILTER and their path, and answers no data', async () => {
    const { gql, ada } = await siteWithAuthors();
    const cases: [string, { code: string; status: number; path?: unknown }][] = [
      ['limit: 0', { code: 'VALIDATION', status: 400, path: ['deep', 'articles', 'limit'] }],
      ['limit: 201', { code: 'VALIDATION', status: 400, path: ['deep', 'articles', 'limit'] }],
      ['offset: -1', { code: 'VALIDATION', status: 400, path: ['deep', 'articles', 'offset'] }],
      ['filter: [1]', { code: 'VALIDATION', status: 400, path: ['deep', 'articles', 'filter'] }],
      ['sort: ["ti tle"]', { code: 'VALIDATION', status: 400, path: ['deep', 'articles', 'sort'] }],
      ['sort: ["nope"]', { code: 'VALIDATION', status: 400, path: ['deep', 'articles', 'sort'] }],
      ['filter: { nope: { _eq: 1 } }', { code: 'INVALID_FILTER', status: 400, path: ['deep', 'articles', 'filter', 'nope'] }],
    ];
    for (const [args, expected] of cases) {
      const answer = await gql(`{ authors_by_id(id: "${ada.id}") { first: articles(limit: 1) { id } other: articles(${args}) { id } } }`);
      expect(errorOf(answer), args).toMatchObject(expected);
      expect(answer.data?.authors_by_id ?? null, args).toBeNull();
    }
  });

  it('applies the reader\'s row conditions and field rules to every alias, and refuses a filter on a field it may not read', async () => {
    const { site, ada } = await siteWithAuthors();
    const access = withHelpers(service, site);
    const role = await createRole(access);
    await grant(access, { roleId: role.id }, [
      { collection: 'authors', action: 'read' },
      { collection: 'articles', action: 'read', fields: ['id', 'title', 'status', 'author'], conditions: { status: { _eq: 'published' } } },
    ]);
    const member = await createMember(service, access, { roleId: role.id });
    const gql = graphqlAs(service, site, member.token);
    const read = dataOf(await gql(`{ authors_by_id(id: "${ada.id}") { first: articles(limit: 1, sort: ["title"]) { title } rest: articles(offset: 1, sort: ["title"]) { title _data } } }`));
    expect(titles(read.authors_by_id.first)).toEqual(['A']);
    expect(titles(read.authors_by_id.rest)).toEqual(['C', 'D']);
    expect(Object.keys(read.authors_by_id.rest[0]._data).sort()).toEqual(['author', 'id', 'status', 'title']);
    const hidden = await gql(`{ authors_by_id(id: "${ada.id}") { first: articles(limit: 1) { title } byViews: articles(filter: { views: { _gt: 1 } }) { title } } }`);
    expect(errorOf(hidden)).toMatchObject({ code: 'PERMISSION_DENIED', status: 403 });
  });

  it('never shows another site\'s rows in an alias, even where both sites hold an item of the same id', async () => {
    const { site, gql } = await siteWithAuthors();
    const other = await createContentSite(service, 'gqlalias-other');
    // A client-chosen id: both sites have an article of that id, each with its own comments.
    const shared = randomUUID();
    const ours = await createItem(site, 'articles', { id: shared, title: 'Ours' });
    const theirs = await createItem(other, 'articles', { id: shared, title: 'Theirs' });
    expect([ours.id, theirs.id]).toEqual([shared, shared]);
    for (const text of ['o1', 'o2']) await createItem(site, 'comments', { article: shared, text });
    for (const text of ['t1', 't2', 't3']) await createItem(other, 'comments', { article: shared, text });
    const query = `{ articles(filter: { id: { _eq: "${shared}" } }) { title one: comments(limit: 1, sort: ["-text"]) { text } all: comments(limit: 10, sort: ["text"]) { text } } }`;
    const read = dataOf(await gql(query)).articles;
    expect(read.map((article: any) => [article.title, texts(article.one), texts(article.all)])).toEqual([['Ours', ['o2'], ['o1', 'o2']]]);
    const theirsRead = dataOf(await graphqlAs(service, other)(query)).articles;
    expect(theirsRead.map((article: any) => [article.title, texts(article.one), texts(article.all)])).toEqual([['Theirs', ['t3'], ['t1', 't2', 't3']]]);
  });
});
