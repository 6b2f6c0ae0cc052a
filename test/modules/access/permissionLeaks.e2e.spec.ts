// Whatever a member asks, a read rule's limits hold: arbitrary combinations of fields, relations,
// filters, sorts, aggregates, groups, deep parameters, time travel and search never answer with a
// value of a field the rule does not list, of a row outside its condition, or of another site, and
// never with a 500. Canary strings mark everything the member must not see; the queries never
// contain them, so an error message echoing the query cannot set one off.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSite, startTestService, type TestService } from '../../support/testService.ts';
import { createContentModel, createItem, createMember, createRole, grant, withHelpers, type AccessSite, type Member } from './support.ts';

let service: TestService;
let site: AccessSite;
let reader: Member;

beforeAll(async () => {
  service = await startTestService();
  site = withHelpers(service, await createTestSite(service, 'leaks'));
  await createContentModel(site);
  // A translatable field the rule does not list, so that lists in a language (X-Svc-Locale) are tried too.
  expect((await site.admin('POST', '/fields/articles', { field: 'tagline', type: 'string', options: { translatable: true } })).status).toBe(201);
  const role = await createRole(site);
  await grant(site, { roleId: role.id }, [
    { collection: 'articles', action: 'read', fields: ['id', 'title', 'category', 'author'], conditions: { category: { _eq: 'public' } } },
    { collection: 'authors', action: 'read', fields: ['id', 'name'] },
  ]);
  reader = await createMember(service, site, { roleId: role.id });
  const author = await createItem(site, 'authors', { name: 'Ada', email: 'canary-email@leak.test' });
  await createItem(site, 'articles', { title: 'Visible', body: 'CANARY body of a visible row', category: 'public', rating: 4, author: author.id, tagline: { en: 'CANARY en', fr: 'CANARY fr' } });
  await createItem(site, 'articles', { title: 'CANARY hidden title', body: 'CANARY hidden body', category: 'CANARY-internal', rating: 9, author: author.id, tagline: { fr: 'CANARY' } });
  const other = withHelpers(service, await createTestSite(service, 'leaks-other'));
  await createContentModel(other);
  await createItem(other, 'articles', { title: 'CANARY of another site', body: 'CANARY', category: 'public' });
});
afterAll(async () => {
  await service.close();
});

const fieldNames = ['id', 'title', 'body', 'category', 'rating', 'author', 'author.name', 'author.email', 'author.*', 'author.articles', 'tagline', 'tagline.fr', '*', 'nope'];
const values = ['Visible', 'public', 'Ada', 'a', 'e', '1', '4', '9', 'null', 'true', '$CURRENT_USER', ''];
const operators = ['_eq', '_neq', '_lt', '_gt', '_in', '_nin', '_null', '_nnull', '_contains', '_icontains', '_starts_with', '_ends_with', '_between'];
const pick = <T>(list: readonly T[]) => fc.constantFrom(...list);

const param = fc.oneof(
  fc.array(pick(fieldNames), { minLength: 1, maxLength: 4 }).map((names) => ['fields', names.join(',')] as const),
  fc.tuple(pick(fieldNames), pick(operators), pick(values)).map(([field, operator, value]) => [`filter[${field.replace('.', '][')}][${operator}]`, value] as const),
  fc
    .tuple(pick(fieldNames), pick(operators), pick(values), pick(fieldNames), pick(values))
    .map(([a, operator, value, b, other]) => ['filter', JSON.stringify({ _or: [{ [a]: { [operator]: value } }, { [b]: { _eq: other } }] })] as const),
  fc.array(fc.tuple(fc.boolean(), pick(fieldNames)), { minLength: 1, maxLength: 2 }).map((keys) => ['sort', keys.map(([down, key]) => `${down ? '-' : ''}${key}`).join(',')] as const),
  fc.tuple(pick(['count', 'countDistinct', 'min', 'max', 'sum', 'avg']), pick([...fieldNames, '*'])).map(([fn, field]) => [`aggregate[${fn}]`, field] as const),
  pick(fieldNames).map((field) => ['groupBy', field] as const),
  fc.tuple(pick(['_fields', '_filter[name][_eq]', '_filter[email][_contains]', '_sort', '_limit']), pick(['name', 'email', '-email', 'a', '1'])).map(([key, value]) => [`deep[author][${key}]`, value] as const),
  pick(['total_count', 'none']).map((meta) => ['meta', meta] as const),
  pick([new Date(Date.now() + 60_000).toISOString(), '2000-01-01T00:00:00Z']).map((when) => ['asOf', when] as const),
);
const query = fc.array(param, { minLength: 1, maxLength: 4 }).map((params) => params.map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join('&'));

function expectNoLeak(status: number, body: unknown, what: string): void {
  expect(status, `${what} → ${JSON.stringify(body)}`).toBeLessThan(500);
  const text = JSON.stringify(body);
  expect(text.toLowerCase().includes('canary'), `${what} → ${text}`).toBe(false);
}

describe("a member's read rule holds against any query", () => {
  it('lists, single reads and relations show no unlisted field, no row outside the condition and no other site', async () => {
    const visible = await site.as(reader.token, 'GET', '/items/articles?fields=id');
    expect(visible.body.data).toHaveLength(1);
    const visibleId = visible.body.data[0].id as string;
    await fc.assert(
      fc.asyncProperty(pick(['articles', 'authors']), query, pick(['list', 'one']), pick([undefined, 'en', 'fr']), async (collection, search, shape, locale) => {
        const path = shape === 'list' || collection === 'authors' ? `/items/${collection}?${search}` : `/items/articles/${visibleId}?${search}`;
        const response = await site.as(reader.token, 'GET', path, undefined, locale ? { 'x-svc-locale': locale } : undefined);
        expectNoLeak(response.status, response.body, `${path} (${locale})`);
      }),
      { numRuns: 400 },
    );
  });

  it('search, revisions and versions show nothing the rule hides', async () => {
    const visibleId = (await site.as(reader.token, 'GET', '/items/articles?fields=id')).body.data[0].id as string;
    for (const path of [
      '/search?q=canary',
      '/search?q=hidden',
      '/search?q=visible',
      '/search?q=body&collection=articles',
      `/items/articles/${visibleId}/revisions`,
      `/items/articles/${visibleId}/versions`,
      `/items/articles/${visibleId}/dependents`,
      `/items/articles/${visibleId}?asOf=${new Date(Date.now() + 60_000).toISOString()}&fields=*`,
    ]) {
      const response = await site.as(reader.token, 'GET', path);
      expectNoLeak(response.status, response.body, path);
    }
  });
});
