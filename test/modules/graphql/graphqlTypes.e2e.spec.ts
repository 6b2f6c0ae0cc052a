// The item types of a site's GraphQL schema: every field type's GraphQL type and its values next to
// the REST answer, the structural fields and `_data`, relations (m2o, o2m; m2m and m2a through
// `_data`), and collection names that collide with the schema's own names.
import { describe, expect, it } from 'vitest';
import { createCollection, createRelation } from '../../support/contentModel.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createArticleBlocks, createContentSite, createItem } from '../items/support.ts';
import { dataOf, errorOf, graphqlAs } from './support.ts';

const service = await startTestServiceForFile();

/** Every field type of ARTICLE_FIELDS with a value, as REST's item tests write them. */
const fullArticle = {
  title: 'Hello',
  body: 'Long text',
  views: 12,
  rating: 4.5,
  price: '19.90',
  big: '9007199254740993',
  published: true,
  published_at: '2024-05-01T14:30:00+02:00',
  day: '2024-05-01',
  at: '08:15',
  stamp: '2024-05-01T00:00:00-01:00',
  ref: '0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D',
  slug: 'hello-world',
  color: '#FFAA00',
  tags: ['news', 'tech'],
  meta: { depth: { ok: true } },
  location: { type: 'Point', coordinates: [2.35, 48.85] },
  gallery: ['file-1', 'file-2'],
  secret: 'clear text',
  summary: 'In short',
  snippet: 'let a = 1;',
};

/** The GraphQL type of each declared field of `articles` (summary, translatable, is read apart). */
const DECLARED_TYPES: Record<string, string> = {
  published: 'Boolean',
  views: 'Int',
  rating: 'Float',
  price: 'Float',
  big: 'String',
  published_at: 'DateTime',
  day: 'DateTime',
  at: 'DateTime',
  stamp: 'DateTime',
  title: 'String',
  body: 'String',
  ref: 'String',
  secret: 'String',
  slug: 'String',
  snippet: 'String',
  color: 'String',
  meta: 'JSON',
  tags: 'JSON',
  location: 'JSON',
  gallery: 'JSON',
};

const STRUCTURAL_TYPES: Record<string, string> = {
  id: 'ID!',
  status: 'String',
  sort: 'Int',
  createdAt: 'DateTime',
  updatedAt: 'DateTime',
  userCreated: 'String',
  userUpdated: 'String',
  _data: 'JSON',
};

const TYPE_QUERY = `query ($name: String!) { __type(name: $name) { name fields { name type { ...R } args { name type { ...R } } } } }
  fragment R on __Type { ...T ofType { ...T ofType { ...T ofType { ...T } } } }
  fragment T on __Type { kind name }`;

interface TypeRef {
  kind: string;
  name: string | null;
  ofType?: TypeRef | null;
}

/** `[comments!]!` from the introspection's nesting. */
function typeName(type: TypeRef): string {
  if (type.kind === 'NON_NULL') return `${typeName(type.ofType!)}!`;
  if (type.kind === 'LIST') return `[${typeName(type.ofType!)}]`;
  return type.name!;
}

async function fieldTypes(gql: ReturnType<typeof graphqlAs>, name: string): Promise<Record<string, string>> {
  const type = dataOf(await gql(TYPE_QUERY, { name })).__type;
  expect(type, name).not.toBeNull();
  return Object.fromEntries(type.fields.map((field: { name: string; type: TypeRef }) => [field.name, typeName(field.type)]));
}

describe('item types', () => {
  it('types each field as the mapping says: scalars, structural fields, m2o object, o2m list with limit, offset, filter and sort', async () => {
    const site = await createContentSite(service, 'gqltypes');
    const gql = graphqlAs(service, site);
    const types = await fieldTypes(gql, 'articles');
    expect(types).toEqual({ ...STRUCTURAL_TYPES, ...DECLARED_TYPES, summary: 'String', author: 'authors', comments: '[comments!]!' });
    const comments = dataOf(await gql(TYPE_QUERY, { name: 'articles' })).__type.fields.find((field: { name: string }) => field.name === 'comments');
    expect(comments.args.map((arg: { name: string; type: TypeRef }) => `${arg.name}: ${typeName(arg.type)}`)).toEqual(['limit: Int', 'offset: Int', 'filter: JSON', 'sort: [String!]']);
    expect(await fieldTypes(gql, 'comments')).toEqual({ ...STRUCTURAL_TYPES, article: 'articles', text: 'String' });
    expect(await fieldTypes(gql, 'authors')).toEqual({ ...STRUCTURAL_TYPES, name: 'String', email: 'String', articles: '[articles!]!' });

    const query = dataOf(await gql(TYPE_QUERY, { name: 'Query' })).__type.fields;
    const list = query.find((field: { name: string }) => field.name === 'articles');
    expect(typeName(list.type)).toBe('[articles!]!');
    expect(list.args.map((arg: { name: string; type: TypeRef }) => `${arg.name}: ${typeName(arg.type)}`)).toEqual([
      'filter: JSON',
      'sort: [String!]',
      'limit: Int',
      'offset: Int',
      'status: String',
      'search: String',
    ]);
    const mutation = dataOf(await gql(TYPE_QUERY, { name: 'Mutation' })).__type.fields;
    const signature = (name: string) => {
      const field = mutation.find((candidate: { name: string }) => candidate.name === name);
      return `${field.args.map((arg: { name: string; type: TypeRef }) => `${arg.name}: ${typeName(arg.type)}`).join(', ')} → ${typeName(field.type)}`;
    };
    expect(signature('create_articles')).toBe('data: create_articles_input, status: String, sort: Int → articles!');
    expect(signature('update_articles')).toBe('id: ID!, data: update_articles_input, status: String, sort: Int → articles!');
    expect(signature('delete_articles')).toBe('id: ID! → Boolean!');
  });

  it('answers every declared field with the value REST answers (decimal as a number)', async () => {
    const site = await createContentSite(service, 'gqltypes');
    const gql = graphqlAs(service, site);
    const created = await createItem(site, 'articles', fullArticle);
    const rest = (await site.call('GET', `/items/articles/${created.id}`)).body.data;
    const names = Object.keys(DECLARED_TYPES);
    const read = dataOf(await gql(`{ articles_by_id(id: "${created.id}") { ${names.join(' ')} } }`)).articles_by_id;
    for (const name of names) expect(read[name], name).toEqual(name === 'price' ? Number(rest[name]) : rest[name]);
    // A few of them spelled out: the stored forms, not what was sent.
    expect(read).toMatchObject({ price: 19.9, big: '9007199254740993', published_at: '2024-05-01T12:30:00.000Z', day: '2024-05-01', at: '08:15:00', tags: 'news,tech', secret: '**********', color: '#ffaa00' });

    const empty = await createItem(site, 'articles', { title: 'Empty' });
    const nulls = dataOf(await gql(`{ articles_by_id(id: "${empty.id}") { ${names.filter((name) => name !== 'title').join(' ')} author { id } } }`)).articles_by_id;
    expect(Object.values(nulls).every((value) => value === null)).toBe(true);
  });

  it('answers the structural fields and _data as REST answers the item', async () => {
    const site = await createContentSite(service, 'gqltypes');
    const gql = graphqlAs(service, site);
    const created = await createItem(site, 'articles', { ...fullArticle, status: 'published', sort: 3 });
    await site.call('PATCH', `/items/articles/${created.id}`, { views: 13 });
    // GraphQL reads in a language (X-Svc-Locale, else the site's default): as REST does with that header.
    const rest = (await service.request('GET', `/items/articles/${created.id}?fields=*`, { site: site.siteId, token: site.adminToken, headers: { 'x-svc-locale': 'en' } })).body.data;
    const read = dataOf(await gql(`{ articles_by_id(id: "${created.id}") { ${Object.keys(STRUCTURAL_TYPES).join(' ')} } }`)).articles_by_id;
    const { _data: data, ...structural } = read;
    expect(structural).toEqual({
      id: rest.id,
      status: 'published',
      sort: 3,
      createdAt: rest.createdAt,
      updatedAt: rest.updatedAt,
      userCreated: site.adminUserId,
      userUpdated: site.adminUserId,
    });
    expect(structural.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(data).toEqual(rest);
  });

  it("answers a translatable text field in X-Svc-Locale's language, else the site's default", async () => {
    const site = await createContentSite(service, 'gqltypes');
    const gql = graphqlAs(service, site);
    const created = await createItem(site, 'articles', { title: 'T', summary: 'In short' });
    const withLocale = await gql(`{ articles_by_id(id: "${created.id}") { summary } }`, undefined, { 'x-svc-locale': 'en' });
    expect(dataOf(withLocale).articles_by_id).toEqual({ summary: 'In short' });
    // Without the header GraphQL reads in the site's default language (REST answers the stored map { en: 'In short' }).
    const withoutLocale = await gql(`{ articles_by_id(id: "${created.id}") { title summary } }`);
    expect(withoutLocale.errors, JSON.stringify(withoutLocale.errors)).toBeUndefined();
    expect(withoutLocale.data.articles_by_id).toEqual({ title: 'T', summary: 'In short' });
  });
});

describe('relations', () => {
  it('reads m2m and m2a only through _data, as REST reads them', async () => {
    const site = await createContentSite(service, 'gqlrel');
    const gql = graphqlAs(service, site);
    await createCollection(service, site, 'labels', [{ field: 'name', type: 'string' }]);
    await createCollection(service, site, 'articles_labels', [
      { field: 'article', type: 'uuid' },
      { field: 'label', type: 'uuid' },
    ]);
    await createRelation(service, site, {
      kind: 'm2m',
      collection: 'articles',
      field: 'labelled',
      relatedCollection: 'labels',
      junctionCollection: 'articles_labels',
      junctionField: 'article',
      junctionRelatedField: 'label',
    });
    await createCollection(service, site, 'headings', [{ field: 'text', type: 'string' }]);
    await createArticleBlocks(service, site, ['headings']);
    const article = await createItem(site, 'articles', { title: 'With relations' });
    const label = await createItem(site, 'labels', { name: 'news' });
    await createItem(site, 'articles_labels', { article: article.id, label: label.id });
    const heading = await createItem(site, 'headings', { text: 'Intro' });
    await createItem(site, 'articles_blocks', { article: article.id, item: heading.id, collection: 'headings' });

    const types = await fieldTypes(gql, 'articles');
    expect(types).not.toHaveProperty('labelled');
    expect(types).not.toHaveProperty('blocks');
    const unknown = await gql(`{ articles_by_id(id: "${article.id}") { labelled { id } } }`);
    expect(errorOf(unknown)).toMatchObject({ code: 'VALIDATION', status: 400 });

    const data = dataOf(await gql(`{ articles_by_id(id: "${article.id}") { _data } }`)).articles_by_id._data;
    const rest = (await site.call('GET', `/items/articles/${article.id}?fields=*`)).body.data;
    expect(data).toEqual(rest);
    expect(data.labelled).toHaveLength(1);
    expect(data.blocks).toHaveLength(1);
  });
});

describe('names', () => {
  it('renames collections that collide with the schema\'s own names and reports them in _schemaWarnings', async () => {
    const site = await createContentSite(service, 'gqlnames');
    const gql = graphqlAs(service, site);
    expect(dataOf(await gql('{ _schemaWarnings }'))).toEqual({ _schemaWarnings: [] });
    for (const name of ['Query', 'JSON', 'posts', 'posts_by_id']) await createCollection(service, site, name, [{ field: 'title', type: 'string' }]);
    await createItem(site, 'Query', { title: 'In Query' });
    await createItem(site, 'posts_by_id', { title: 'In posts_by_id' });

    const read = dataOf(await gql('{ _collections _schemaWarnings Query_2 { title } JSON_2 { title } posts_by_id_2 { title } posts { title } }'));
    expect(read._collections).toEqual(['JSON', 'Query', 'articles', 'authors', 'comments', 'posts', 'posts_by_id']);
    expect(read).toMatchObject({ Query_2: [{ title: 'In Query' }], JSON_2: [], posts_by_id_2: [{ title: 'In posts_by_id' }], posts: [] });
    expect(read._schemaWarnings).toHaveLength(3);
    for (const [original, exposed] of [['Query', 'Query_2'], ['JSON', 'JSON_2'], ['posts_by_id', 'posts_by_id_2']]) {
      expect(read._schemaWarnings.some((warning: string) => warning.includes(`"${original}"`) && warning.includes(`"${exposed}"`)), original).toBe(true);
    }
    // The renamed collection's fields at the root follow its new name.
    const created = dataOf(await gql('mutation { create_posts_by_id_2(data: { title: "Made" }) { id title } }')).create_posts_by_id_2;
    expect(dataOf(await gql(`{ posts_by_id_2_by_id(id: "${created.id}") { title } }`))).toEqual({ posts_by_id_2_by_id: { title: 'Made' } });
    expect(dataOf(await gql(`{ posts_by_id(id: "${created.id}") { title } }`))).toEqual({ posts_by_id: null });
  });
});
