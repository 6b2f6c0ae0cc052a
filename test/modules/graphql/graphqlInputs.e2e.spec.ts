// The typed inputs of mutations over real HTTP and PostgreSQL: `create_X_input` and `update_X_input`
// hold the fields the caller may write with their GraphQL types (relations by id, required fields
// non-null in a create, everything optional in an update), take literal objects and typed
// variables, refuse unknown fields and JSON-typed variables with VALIDATION and write nothing, and
// follow the caller's write rules through the schema cache.
import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createMember, createRole, grant, withHelpers } from '../access/support.ts';
import { createContentSite, createItem } from '../items/support.ts';
import { dataOf, errorOf, graphqlAs } from './support.ts';

const service = await startTestServiceForFile();

const INPUT_QUERY = `query ($name: String!) { __type(name: $name) { name kind inputFields { name type { ...R } } } }
  fragment R on __Type { kind name ofType { kind name ofType { kind name } } }`;

interface TypeRef {
  kind: string;
  name: string | null;
  ofType?: TypeRef | null;
}

const typeName = (type: TypeRef): string => (type.kind === 'NON_NULL' ? `${typeName(type.ofType!)}!` : type.kind === 'LIST' ? `[${typeName(type.ofType!)}]` : type.name!);

async function inputFields(gql: ReturnType<typeof graphqlAs>, name: string): Promise<Record<string, string> | null> {
  const type = dataOf(await gql(INPUT_QUERY, { name })).__type;
  if (!type) return null;
  expect(type.kind).toBe('INPUT_OBJECT');
  return Object.fromEntries(type.inputFields.map((field: { name: string; type: TypeRef }) => [field.name, typeName(field.type)]));
}

/** The declared fields of `articles` as a write takes them (the test content model, tests/modules/items/support.ts). */
const ARTICLE_INPUT: Record<string, string> = {
  body: 'String',
  views: 'Int',
  rating: 'Float',
  price: 'Decimal',
  big: 'BigInteger',
  published: 'Boolean',
  published_at: 'DateTime',
  day: 'DateTime',
  at: 'DateTime',
  stamp: 'DateTime',
  ref: 'String',
  slug: 'String',
  color: 'String',
  tags: 'JSON',
  meta: 'JSON',
  location: 'JSON',
  gallery: 'JSON',
  secret: 'String',
  summary: 'String',
  snippet: 'String',
  author: 'ID',
};

async function articleCount(site: Awaited<ReturnType<typeof createContentSite>>): Promise<number> {
  const list = await site.call('GET', '/items/articles?fields=id&limit=200');
  expect(list.status).toBe(200);
  return list.body.data.length;
}

describe('the input types', () => {
  it('types create_X_input and update_X_input from the declared fields: required non-null in a create, relations by id, no to-many or kept fields', async () => {
    const site = await createContentSite(service, 'gqlinput');
    const gql = graphqlAs(service, site);
    expect(await inputFields(gql, 'create_articles_input')).toEqual({ id: 'ID', status: 'String', sort: 'Int', title: 'String!', ...ARTICLE_INPUT });
    expect(await inputFields(gql, 'update_articles_input')).toEqual({ status: 'String', sort: 'Int', title: 'String', ...ARTICLE_INPUT });
    expect(await inputFields(gql, 'create_authors_input')).toEqual({ id: 'ID', status: 'String', sort: 'Int', name: 'String!', email: 'String' });
    expect(await inputFields(gql, 'create_comments_input')).toEqual({ id: 'ID', status: 'String', sort: 'Int', article: 'ID', text: 'String' });
  });

  it('shows a member only the fields its create and update rules list, and follows a change of its rules on the next request', async () => {
    const content = await createContentSite(service, 'gqlinputperm');
    const site = withHelpers(service, content);
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [
      { collection: 'articles', action: 'read' },
      { collection: 'articles', action: 'create', fields: ['title', 'views', 'status'] },
      { collection: 'articles', action: 'update', fields: ['title'] },
    ]);
    const member = await createMember(service, site, { roleId: role.id });
    const gql = graphqlAs(service, content, member.token);
    expect(await inputFields(gql, 'create_articles_input')).toEqual({ status: 'String', title: 'String!', views: 'Int' });
    expect(await inputFields(gql, 'update_articles_input')).toEqual({ title: 'String' });
    const refused = await gql('mutation { create_articles(data: { title: "x", body: "y" }) { id } }');
    expect(errorOf(refused)).toMatchObject({ code: 'VALIDATION', status: 400, message: expect.stringContaining('Field "body" is not defined by type "create_articles_input"') });
    expect(await articleCount(content)).toBe(0);

    await grant(site, { roleId: role.id }, [{ collection: 'articles', action: 'create', fields: ['body'] }]);
    expect(await inputFields(gql, 'create_articles_input')).toEqual({ status: 'String', title: 'String!', views: 'Int', body: 'String' });
    const created = dataOf(await gql('mutation { create_articles(data: { title: "x", body: "y" }) { id title body } }')).create_articles;
    expect(created).toMatchObject({ title: 'x', body: 'y' });
  });

  it('offers no input type to a reader without write rules', async () => {
    const content = await createContentSite(service, 'gqlinputread');
    const site = withHelpers(service, content);
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [{ collection: 'articles', action: 'read' }]);
    const member = await createMember(service, site, { roleId: role.id });
    const gql = graphqlAs(service, content, member.token);
    expect(await inputFields(gql, 'create_articles_input')).toBeNull();
    expect(await inputFields(gql, 'update_articles_input')).toBeNull();
  });
});

describe('writing with the input types', () => {
  it('creates from a literal object and from a typed variable, every field type as REST stores it', async () => {
    const site = await createContentSite(service, 'gqlinputwrite');
    const gql = graphqlAs(service, site);
    const ada = await createItem(site, 'authors', { name: 'Ada' });
    const literal = dataOf(await gql(`mutation { create_articles(data: {
      title: "Literal", views: 12, rating: 4.5, price: "19.90", big: 9007199254740993, published: true,
      published_at: "2024-05-01T14:30:00+02:00", day: "2024-05-01", at: "08:15", color: "#FFAA00",
      tags: ["news", "tech"], meta: { depth: { ok: true } }, secret: "clear text", summary: "In short", author: "${ada.id}"
    }, status: "draft") { id status views rating price big published published_at day at color tags meta secret summary author { name } } }`)).create_articles;
    expect(literal).toMatchObject({
      status: 'draft',
      views: 12,
      rating: 4.5,
      price: 19.9,
      big: '9007199254740993',
      published: true,
      published_at: '2024-05-01T12:30:00.000Z',
      day: '2024-05-01',
      at: '08:15:00',
      color: '#ffaa00',
      tags: 'news,tech',
      meta: { depth: { ok: true } },
      secret: '**********',
      summary: 'In short',
      author: { name: 'Ada' },
    });
    const rest = (await site.call('GET', `/items/articles/${literal.id}?fields=price,big`)).body.data;
    expect(rest).toEqual({ price: '19.90', big: '9007199254740993' });

    const typed = dataOf(
      await gql('mutation ($data: create_articles_input!) { create_articles(data: $data) { id title price author { name } } }', {
        data: { id: 'chosen-id', title: 'Typed', price: 3.25, author: ada.id },
      }),
    ).create_articles;
    expect(typed).toEqual({ id: 'chosen-id', title: 'Typed', price: 3.25, author: { name: 'Ada' } });
  });

  it('updates only the fields given, and clears a field given null', async () => {
    const site = await createContentSite(service, 'gqlinputupdate');
    const gql = graphqlAs(service, site);
    const article = await createItem(site, 'articles', { title: 'Before', views: 3, body: 'text' });
    const updated = dataOf(
      await gql('mutation ($id: ID!, $data: update_articles_input) { update_articles(id: $id, data: $data) { title views body } }', { id: article.id, data: { views: 4, body: null } }),
    ).update_articles;
    expect(updated).toEqual({ title: 'Before', views: 4, body: null });
    const literal = dataOf(await gql(`mutation { update_articles(id: "${article.id}", data: { title: "After" }, sort: 2) { title views sort } }`)).update_articles;
    expect(literal).toEqual({ title: 'After', views: 4, sort: 2 });
  });

  it('refuses unknown fields, a missing required field, a wrong type and a JSON-typed variable with VALIDATION, and writes nothing', async () => {
    const site = await createContentSite(service, 'gqlinputrefuse');
    const gql = graphqlAs(service, site);
    const article = await createItem(site, 'articles', { title: 'Kept', views: 1 });
    const cases: [string, string, Record<string, unknown> | undefined][] = [
      ['unknown field, literal', 'mutation { create_articles(data: { title: "x", nope: 1 }) { id } }', undefined],
      ['unknown field, variable', 'mutation ($data: create_articles_input) { create_articles(data: $data) { id } }', { data: { title: 'x', nope: 1 } }],
      ['a kept field', 'mutation { create_articles(data: { title: "x", createdAt: "2024-01-01" }) { id } }', undefined],
      ['a to-many relation', 'mutation { create_articles(data: { title: "x", comments: [] }) { id } }', undefined],
      ['missing required field', 'mutation { create_articles(data: { views: 1 }) { id } }', undefined],
      ['null for a required field', 'mutation ($data: create_articles_input) { create_articles(data: $data) { id } }', { data: { title: null } }],
      ['wrong type', 'mutation { create_articles(data: { title: "x", views: "many" }) { id } }', undefined],
      ['JSON-typed variable', 'mutation ($data: JSON) { create_articles(data: $data) { id } }', { data: { title: 'x' } }],
      ['unknown field in an update', `mutation { update_articles(id: "${article.id}", data: { title: "x", nope: 1 }) { id } }`, undefined],
      ['id in an update', `mutation { update_articles(id: "${article.id}", data: { id: "other" }) { id } }`, undefined],
    ];
    for (const [what, query, variables] of cases) {
      const answer = await gql(query, variables);
      expect(answer.data ?? null, what).toBeNull();
      expect(errorOf(answer), what).toMatchObject({ code: 'VALIDATION', status: 400 });
    }
    expect(await articleCount(site)).toBe(1);
    expect((await site.call('GET', `/items/articles/${article.id}?fields=title,views`)).body.data).toEqual({ title: 'Kept', views: 1 });
    // A value the field's own rules refuse keeps REST's path.
    expect(errorOf(await gql('mutation { create_articles(data: { title: "x", price: "much" }) { id } }'))).toMatchObject({ code: 'VALIDATION', status: 400, path: ['body', 'price'] });
    expect(await articleCount(site)).toBe(1);
  });

  it('refuses another site\'s id in an update with NOT_FOUND and changes nothing there', async () => {
    const site = await createContentSite(service, 'gqlinputsite');
    const other = await createContentSite(service, 'gqlinputother');
    const theirs = await createItem(other, 'articles', { title: 'Theirs' });
    const answer = await graphqlAs(service, site)(`mutation { update_articles(id: "${theirs.id}", data: { title: "Mine" }) { id } }`);
    expect(errorOf(answer)).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect((await other.call('GET', `/items/articles/${theirs.id}?fields=title`)).body.data).toEqual({ title: 'Theirs' });
  });
});
