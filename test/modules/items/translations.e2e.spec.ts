// Translatable fields in queries: with X-Svc-Locale, filters, sorts, aggregates and deep filters see
// the value a read in that language shows (that language, else the site's default language); without
// it they see the stored `{ lang: value }` map, as reads do. Dotted paths reach one stored language
// either way, and a member's permission conditions mean the same in every language.
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateFilter, type FieldMap } from '../../../src/query/index.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createMember, createRole, grant, withHelpers } from '../access/support.ts';
import { withCall, type ContentSite } from './support.ts';

const service = await startTestServiceForFile();
let site: ContentSite;
const ids: Record<string, string> = {};

const FR = { 'x-svc-locale': 'fr' };

beforeAll(async () => {
  site = withCall(service, await createTestSite(service, 'translations'));
  const expectCreated = (response: { status: number; body: unknown }) => expect(response.status, JSON.stringify(response.body)).toBe(201);
  expectCreated(await site.call('POST', '/collections', { name: 'shelves', fields: [{ field: 'label', type: 'string', options: { translatable: true } }] }));
  expectCreated(
    await site.call('POST', '/collections', {
      name: 'books',
      fields: [
        { field: 'title', type: 'string', options: { translatable: true } },
        { field: 'rank', type: 'integer', options: { translatable: true } },
        { field: 'kind', type: 'string' },
        { field: 'shelf', type: 'uuid' },
      ],
    }),
  );
  expectCreated(
    await site.call('POST', '/relations', { kind: 'm2o', collection: 'books', field: 'shelf', relatedCollection: 'shelves', relatedField: 'books', onDelete: 'set null' }),
  );
  const create = async (collection: string, key: string, body: Record<string, unknown>) => {
    const response = await site.call('POST', `/items/${collection}`, body);
    expectCreated(response);
    ids[key] = response.body.data.id as string;
  };
  await create('shelves', 'poetry', { label: { en: 'Poetry', fr: 'Poésie' } });
  await create('shelves', 'novels', { label: { en: 'Novels' } });
  // The site's default language is en: a plain value is English.
  await create('books', 'both', { title: { en: 'Apple', fr: 'Pomme' }, rank: { en: 1, fr: 30 }, kind: 'fruit', shelf: ids.poetry });
  await create('books', 'englishOnly', { title: 'Banana', rank: { en: 20 }, kind: 'fruit', shelf: ids.novels });
  await create('books', 'frenchOnly', { title: { fr: 'Cerise' }, rank: { fr: 10 }, kind: 'tree' });
});

/** A site of its own with `books` of one translatable `title`: the lists here count the shared site's books. */
async function siteWithTranslatedBooks(): Promise<ContentSite> {
  const own = withCall(service, await createTestSite(service, 'translations-own'));
  const fields = [{ field: 'title', type: 'string', options: { translatable: true } }];
  expect((await own.call('POST', '/collections', { name: 'books', fields })).status).toBe(201);
  return own;
}

async function listIds(path: string, headers?: Record<string, string>): Promise<string[]> {
  const response = await site.call('GET', path, undefined, headers);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const byId = new Map(Object.entries(ids).map(([key, id]) => [id, key]));
  return (response.body.data as { id: string }[]).map((item) => byId.get(item.id) ?? item.id);
}

describe('X-Svc-Locale in filters, sorts and aggregates', () => {
  it('filters on the value the language reads, falling back to the default language', async () => {
    expect(await listIds('/items/books?fields=id&filter[title][_eq]=Pomme', FR)).toEqual(['both']);
    expect(await listIds('/items/books?fields=id&filter[title][_eq]=Banana', FR)).toEqual(['englishOnly']);
    expect(await listIds('/items/books?fields=id&filter[title][_eq]=Apple', FR)).toEqual([]);
    expect(await listIds('/items/books?fields=id&filter[title][_starts_with]=C', FR)).toEqual(['frenchOnly']);
    // A language with no value anywhere reads (and filters) the default language: Cerise has none.
    expect(await listIds('/items/books?fields=id&filter[title][_null]=true', { 'x-svc-locale': 'de' })).toEqual(['frenchOnly']);
    expect(await listIds('/items/books?fields=id&filter[title][_in]=Apple,Banana&sort=id', { 'x-svc-locale': 'en' })).toHaveLength(2);
    // Time travel reads the history with the same expressions.
    const now = encodeURIComponent(new Date(Date.now() + 60_000).toISOString());
    expect(await listIds(`/items/books?fields=id&asOf=${now}&filter[title][_eq]=Pomme&sort=title`, FR)).toEqual(['both']);
  });

  it('compares a translatable number as a number in the language', async () => {
    expect(await listIds('/items/books?fields=id&filter[rank][_gt]=15&sort=rank', FR)).toEqual(['englishOnly', 'both']);
    expect(await listIds('/items/books?fields=id&filter[rank][_lt]=15', { 'x-svc-locale': 'en' })).toEqual(['both']);
    const sum = await site.call('GET', '/items/books?aggregate[sum]=rank', undefined, FR);
    expect(sum.body.data).toEqual([{ sum: { rank: 60 } }]);
    const bad = await site.call('GET', '/items/books?filter[rank][_gt]=many', undefined, FR);
    expect([bad.status, bad.body.errors[0].path]).toEqual([400, ['filter', 'rank', '_gt']]);
  });

  it('sorts and groups by the language value', async () => {
    expect(await listIds('/items/books?fields=id&sort=title', FR)).toEqual(['englishOnly', 'frenchOnly', 'both']);
    // Cerise has no English title: an empty value, which sorts last in both directions.
    expect(await listIds('/items/books?fields=id&sort=-title', { 'x-svc-locale': 'en' })).toEqual(['englishOnly', 'both', 'frenchOnly']);
    const grouped = await site.call('GET', '/items/books?groupBy=title&aggregate[count]=*', undefined, FR);
    expect(grouped.status, JSON.stringify(grouped.body)).toBe(200);
    expect(grouped.body.data).toEqual([
      { title: 'Banana', count: 1 },
      { title: 'Cerise', count: 1 },
      { title: 'Pomme', count: 1 },
    ]);
  });

  it('reaches related items in the same language, in relational and deep filters', async () => {
    expect(await listIds('/items/books?fields=id&filter[shelf][label][_eq]=Poésie', FR)).toEqual(['both']);
    expect(await listIds('/items/books?fields=id&filter[shelf][label][_eq]=Novels', FR)).toEqual(['englishOnly']);
    const deep = await site.call('GET', '/items/shelves?fields=id,label,books.title&sort=id&deep[books][_filter][title][_eq]=Pomme', undefined, FR);
    const poetry = (deep.body.data as { id: string; label: string; books: { title: string }[] }[]).find((shelf) => shelf.id === ids.poetry);
    expect(poetry).toEqual({ id: ids.poetry, label: 'Poésie', books: [{ title: 'Pomme' }] });
  });

  it('without a locale compares the stored map, and a dotted path reaches one stored language either way', async () => {
    expect(await listIds('/items/books?fields=id&filter[title][_has_key]=fr&sort=id')).toEqual([ids.both!, ids.frenchOnly!].sort().map(keyOf));
    const notJson = await site.call('GET', '/items/books?filter[title][_has_key]=fr', undefined, FR);
    expect([notJson.status, notJson.body.errors[0].path]).toEqual([400, ['filter', 'title', '_has_key']]);
    expect(await listIds('/items/books?fields=id&filter[title.fr][_eq]=Pomme', FR)).toEqual(['both']);
    expect(await listIds('/items/books?fields=id&filter[title.en][_eq]=Pomme', FR)).toEqual([]);
    expect(await listIds('/items/books?fields=id&filter[kind][_eq]=tree&sort=title.fr', FR)).toEqual(['frenchOnly']);
  });

  it("keeps a member's permission conditions in the stored form, and checks the member's filter in the language", async () => {
    const accessSite = withHelpers(service, site);
    const role = await createRole(accessSite);
    await grant(accessSite, { roleId: role.id as string }, [
      { collection: 'books', action: 'read', fields: ['id', 'title', 'kind'], conditions: { title: { _has_key: 'en' } } },
    ]);
    const member = await createMember(service, accessSite, { roleId: role.id as string });
    const read = (path: string) => service.request('GET', path, { site: site.siteId, token: member.token, headers: FR });
    const visible = await read('/items/books?fields=id,title&sort=title');
    expect(visible.status, JSON.stringify(visible.body)).toBe(200);
    expect(visible.body.data).toEqual([
      { id: ids.englishOnly, title: 'Banana' },
      { id: ids.both, title: 'Pomme' },
    ]);
    const filtered = await read('/items/books?fields=id&filter[title][_eq]=Pomme');
    expect(filtered.body.data).toEqual([{ id: ids.both }]);
    const hidden = await read('/items/books?fields=id&filter[rank][_gt]=0');
    expect([hidden.status, hidden.body.errors[0].path]).toEqual([403, ['filter', 'rank']]);
  });
});

describe('named versions of translatable fields', () => {
  it("promote merges by language: main's edit of another language survives", async () => {
    const own = await siteWithTranslatedBooks();
    const created = await own.call('POST', '/items/books', { title: { en: 'Plum', fr: 'Prune' } });
    const path = `/items/books/${created.body.data.id}`;
    expect((await own.call('POST', `${path}/versions`, { key: 'fr-copy', name: 'French copy' })).status).toBe(201);
    expect((await own.call('PATCH', `${path}/versions/fr-copy`, { data: { title: { fr: 'Prune mûre' } } })).status).toBe(200);
    expect((await own.call('PATCH', path, { title: 'Ripe plum' }, { 'x-svc-locale': 'en' })).status).toBe(200);
    const promoted = await own.call('POST', `${path}/versions/fr-copy/promote`);
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    expect(promoted.body.meta.mainDiverged).toBe(true);
    expect((await own.call('GET', path)).body.data.title).toEqual({ en: 'Ripe plum', fr: 'Prune mûre' });
  });
});

describe('language codes', () => {
  it('are compared in their canonical form, in headers and in translation keys', async () => {
    const own = await siteWithTranslatedBooks();
    const created = await own.call('POST', '/items/books', { title: { en: 'Plum', 'PT-br': 'Ameixa' } });
    expect(created.body.data.title).toEqual({ en: 'Plum', 'pt-BR': 'Ameixa' });
    const path = `/items/books/${created.body.data.id}`;
    expect((await own.call('GET', path, undefined, { 'x-svc-locale': 'pt-br' })).body.data.title).toBe('Ameixa');
    expect((await own.call('PATCH', path, { title: 'Ameixa roxa' }, { 'x-svc-locale': 'PT-BR' })).body.data.title).toBe('Ameixa roxa');
    const filtered = await own.call('GET', '/items/books?fields=title&filter[title][_eq]=Ameixa roxa', undefined, { 'x-svc-locale': 'pt-Br' });
    expect(filtered.body.data).toEqual([{ title: 'Ameixa roxa' }]);
    const badKey = await own.call('POST', '/items/books', { title: { en: 'x', 'xx-YY-zz': 'y' } });
    // Not every key is a language: the object is a value, and not a string.
    expect([badKey.status, badKey.body.errors[0].path]).toEqual([400, ['body', 'title']]);
  });
});

describe('PUT of translatable fields', () => {
  it('replaces the map without a locale, and sets one language with it', async () => {
    const own = await siteWithTranslatedBooks();
    const path = `/items/books/${(await own.call('POST', '/items/books', { title: { en: 'Plum', fr: 'Prune' } })).body.data.id}`;
    expect((await own.call('PUT', path, { title: 'Prune mûre' }, FR)).body.data.title).toBe('Prune mûre');
    expect((await own.call('GET', path)).body.data.title).toEqual({ en: 'Plum', fr: 'Prune mûre' });
    expect((await own.call('PUT', path, { title: { de: 'Pflaume' } })).body.data.title).toEqual({ de: 'Pflaume' });
    expect((await own.call('PUT', path, { title: 'Plum' })).body.data.title).toEqual({ en: 'Plum' });
    // PATCH sets the languages it sends whatever the header.
    expect((await own.call('PATCH', path, { title: { fr: 'Prune' } })).body.data.title).toEqual({ en: 'Plum', fr: 'Prune' });
  });
});

describe('revisions of translatable fields', () => {
  it("a revert restores the revision's languages exactly", async () => {
    const own = await siteWithTranslatedBooks();
    const path = `/items/books/${(await own.call('POST', '/items/books', { title: { en: 'Plum' } })).body.data.id}`;
    expect((await own.call('PATCH', path, { title: 'Prune' }, FR)).status).toBe(200);
    const [, created] = (await own.call('GET', `${path}/revisions`)).body.data as { revisionId: string }[];
    const reverted = await own.call('POST', `${path}/revert`, { revisionId: created!.revisionId });
    expect(reverted.status, JSON.stringify(reverted.body)).toBe(200);
    expect((await own.call('GET', path)).body.data.title).toEqual({ en: 'Plum' });
    const [latest] = (await own.call('GET', `${path}/revisions`)).body.data as { data: { title: unknown }; delta: unknown }[];
    expect([latest!.data.title, latest!.delta]).toEqual([{ en: 'Plum' }, { title: { en: 'Plum' } }]);
  });
});

describe('X-Svc-Locale in search', () => {
  it("shows each hit's item in the language, and the stored map without one", async () => {
    await service.context.daemon.drain();
    const search = (headers?: Record<string, string>) => site.call('GET', '/search?q=pomme&collection=books', undefined, headers);
    const french = await search(FR);
    expect(french.status, JSON.stringify(french.body)).toBe(200);
    expect(french.body.data.map((hit: { item: { id: string; title: unknown } }) => [hit.item.id, hit.item.title])).toEqual([[ids.both, 'Pomme']]);
    expect((await search()).body.data[0].item.title).toEqual({ en: 'Apple', fr: 'Pomme' });
    const bad = await search({ 'x-svc-locale': 'not a language' });
    expect([bad.status, bad.body.errors[0].path]).toEqual([400, ['headers', 'x-svc-locale']]);
  });
});

function keyOf(id: string): string {
  return Object.entries(ids).find(([, value]) => value === id)?.[0] ?? id;
}

describe('the in-memory evaluation of a translated field', () => {
  it('takes the first language with a value, as the SQL does', () => {
    const fields: FieldMap = new Map([['title', { field: 'title', type: 'string', languages: ['fr', 'en'] }]]);
    const check = (title: unknown, filter: Record<string, unknown>) => evaluateFilter(filter, { id: '1', title }, { fields, now: new Date(), userId: null });
    expect(check({ fr: 'Pomme', en: 'Apple' }, { title: { _eq: 'Pomme' } })).toBe(true);
    expect(check({ fr: null, en: 'Apple' }, { title: { _eq: 'Apple' } })).toBe(true);
    expect(check({ de: 'Apfel' }, { title: { _null: true } })).toBe(true);
    expect(check({ fr: 'Pomme' }, { 'title.fr': { _eq: 'Pomme' } })).toBe(true);
    expect(check('Apple', { title: { _null: true } })).toBe(true);
  });
});
