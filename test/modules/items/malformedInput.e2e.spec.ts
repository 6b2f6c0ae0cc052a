// Bad input never gets a 500: arbitrary query parameters, ids, headers and bodies sent to the item,
// schema admin and search routes are answered, and every refusal is the error envelope (`errors[]`
// with a code, a message and, where given, an array path). A refused write leaves the site's log as
// it was.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { startTestServiceForFile, type TestResponse } from '../../support/testService.ts';
import { ARTICLE_FIELDS, createContentSite, createItem, type ContentSite } from './support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();
let site: ContentSite;
let articleId: string;

beforeAll(async () => {
  site = await createContentSite(service, 'fuzz');
  const author = await createItem(site, 'authors', { name: 'Ada' });
  articleId = (await createItem(site, 'articles', { title: 'First', views: 3, author: author.id, tags: ['a'] })).id;
});

function expectAnswered(response: TestResponse, what: string): void {
  expect(response.status, `${what} → ${JSON.stringify(response.body)}`).toBeLessThan(500);
  if (response.status < 400) return;
  const errors = response.body?.errors;
  expect(Array.isArray(errors) && errors.length > 0, `${what} → ${JSON.stringify(response.body)}`).toBe(true);
  for (const error of errors) {
    expect(typeof error.code, what).toBe('string');
    expect(typeof error.message, what).toBe('string');
    if (error.path !== undefined) expect(Array.isArray(error.path), `${what} → ${JSON.stringify(error)}`).toBe(true);
  }
}

async function siteEventCount(of: ContentSite = site): Promise<number> {
  const { rows } = await owner.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE site_id = $1', [of.siteId]);
  return rows[0]!.n;
}

const fieldNames = [...ARTICLE_FIELDS.map((field) => field.field), 'id', 'status', 'sort', 'author.name', 'comments.text', 'nope', '*', 'author.*', ''];
const operators = ['_eq', '_neq', '_lt', '_lte', '_gt', '_gte', '_in', '_nin', '_null', '_nnull', '_contains', '_icontains', '_starts_with', '_between', '_nbetween', '_empty', '_some', '_none', '_json_contains', '_bogus', '_and', '_or'];
const valueAtoms = ['1', '-1', '0', '1e309', 'NaN', 'true', 'null', '', ' ', '$NOW', '$NOW(-7 days)', '$NOW(+x)', '$CURRENT_USER', '$CURRENT_ROLE', '2024-01-01', 'not-a-date', '[1,2', '{"a":', '%', '%00', '\u0000', '😀', 'a,b,,c', 'x'.repeat(3000)];

const text = fc.oneof(fc.constantFrom(...valueAtoms), fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }));
const field = fc.oneof(fc.constantFrom(...fieldNames), fc.string({ maxLength: 12 }));
const bracketKey = fc
  .array(fc.oneof(field, fc.constantFrom(...operators)), { minLength: 1, maxLength: 10 })
  .map((parts) => `filter${parts.map((part) => `[${part}]`).join('')}`);
const jsonFilter = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
  fc
    .tuple(field, fc.constantFrom(...operators), fc.jsonValue({ maxDepth: 2 }))
    .map(([name, operator, value]) => JSON.stringify({ [name]: { [operator]: value } })),
  text,
);
const listParam = fc.oneof(
  fc.tuple(bracketKey, text),
  fc.tuple(fc.constant('filter'), jsonFilter),
  fc.tuple(fc.constantFrom('sort', 'fields', 'groupBy'), fc.oneof(field, fc.array(field, { maxLength: 4 }).map((names) => names.join(',')), text)),
  fc.tuple(fc.constantFrom('limit', 'offset', 'page'), fc.oneof(fc.integer().map(String), text)),
  fc.tuple(fc.constantFrom('meta'), fc.oneof(fc.constantFrom('total_count', 'none', 'filter_count', '*'), text)),
  fc.tuple(fc.constantFrom('asOf'), fc.oneof(fc.date({ noInvalidDate: true }).map((date) => date.toISOString()), text)),
  fc.tuple(fc.constantFrom('aggregate[count]', 'aggregate[sum]', 'aggregate[avg]', 'aggregate[min]', 'aggregate[countDistinct]', 'aggregate[bogus]'), fc.oneof(field, text)),
  fc.tuple(
    fc.tuple(field, fc.constantFrom('_filter', '_sort', '_limit', '_fields', 'filter', 'sort', 'limit', 'fields', '_x')).map(([name, key]) => `deep[${name}][${key}]`),
    fc.oneof(jsonFilter, text),
  ),
  fc.tuple(fc.string({ maxLength: 15 }), text),
);
const queryString = fc
  .array(listParam, { maxLength: 6 })
  .map((params) => params.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&'));

// Lone surrogates only in bodies: JSON can carry one, a URL cannot (encodeURIComponent refuses it).
const bodyValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(...valueAtoms, '\ud800', 'a\udfffb'));
const articleBody = fc.oneof(
  fc.dictionary(field, bodyValue, { maxKeys: 6 }),
  fc.record({ title: bodyValue }, { requiredKeys: [] }).chain((base) => fc.dictionary(field, bodyValue, { maxKeys: 4 }).map((extra) => ({ ...base, ...extra }))),
  fc.jsonValue({ maxDepth: 3 }),
);
const headerValue = fc.oneof(fc.constantFrom('', 'true', 'false', '1', '"1"', 'W/"1"', '*', 'en', 'vi-VN', 'xx-YY-zz', '../'), fc.stringMatching(/^[\x20-\x7e]{0,20}$/));

describe('the routes of the content model and search answer malformed input with the error envelope, never a 500', () => {
  const fieldTypes = ['string', 'text', 'integer', 'bigInteger', 'float', 'decimal', 'boolean', 'dateTime', 'date', 'time', 'timestamp', 'uuid', 'hash', 'slug', 'code', 'color', 'json', 'csv', 'geometry', 'files', 'alias', 'bogus'];
  const fieldDefinition = fc.oneof(
    fc.record(
      {
        field: fc.oneof(field, fc.constantFrom('fresh_field', 'Bad Name', 'id', 'x'.repeat(80))),
        type: fc.oneof(fc.constantFrom(...fieldTypes), text),
        required: fc.oneof(fc.boolean(), bodyValue),
        options: fc.oneof(fc.constant({ precision: 10, scale: 2 }), fc.constant({ min: 5, max: 1 }), fc.constant({ translatable: true }), fc.jsonValue({ maxDepth: 2 })),
        sensitivity: fc.oneof(fc.constantFrom('pii', 'phi', 'none'), text),
        indexed: fc.oneof(fc.boolean(), bodyValue),
      },
      { requiredKeys: [] },
    ),
    fc.jsonValue({ maxDepth: 3 }),
  );
  const collectionName = fc.oneof(fc.constantFrom('articles', 'authors', 'comments', 'fresh', 'Bad Name', '_x', 'x'.repeat(80), ''), fc.string({ maxLength: 12 }));
  const relation = fc.oneof(
    fc.record(
      {
        id: fc.oneof(fc.constantFrom('article-author', 'fresh-relation'), text),
        kind: fc.oneof(fc.constantFrom('m2o', 'o2m', 'm2m', 'm2a', 'bogus'), text),
        collection: collectionName,
        field: field,
        relatedCollection: collectionName,
        relatedField: field,
        junctionCollection: collectionName,
        onDelete: fc.oneof(fc.constantFrom('restrict', 'set null', 'cascade', 'nope'), text),
      },
      { requiredKeys: [] },
    ),
    fc.jsonValue({ maxDepth: 3 }),
  );
  const schemaWrite = fc.oneof(
    fc.record({ method: fc.constant('POST'), path: fc.constant('/collections'), body: fc.oneof(fc.record({ name: collectionName, fields: fc.array(fieldDefinition, { maxLength: 3 }) }, { requiredKeys: [] }), fc.jsonValue({ maxDepth: 3 })) }),
    fc.record({ method: fc.constant('PATCH'), path: collectionName.map((name) => `/collections/${encodeURIComponent(name)}`), body: fc.jsonValue({ maxDepth: 3 }) }),
    fc.record({ method: fc.constant('POST'), path: collectionName.map((name) => `/fields/${encodeURIComponent(name)}`), body: fieldDefinition }),
    fc.record({ method: fc.constant('PATCH'), path: fc.tuple(collectionName, field).map(([name, f]) => `/fields/${encodeURIComponent(name)}/${encodeURIComponent(f)}`), body: fieldDefinition }),
    fc.record({ method: fc.constant('POST'), path: fc.constant('/relations'), body: relation }),
    fc.record({ method: fc.constant('PATCH'), path: fc.constantFrom('/relations/article-author', '/relations/nope'), body: relation }),
    fc.record({ method: fc.constant('PUT'), path: collectionName.map((name) => `/collections/${encodeURIComponent(name)}/schema`), body: fc.oneof(fc.record({ collection: collectionName, fields: fc.array(fieldDefinition, { maxLength: 3 }), relations: fc.array(relation, { maxLength: 2 }) }, { requiredKeys: [] }), fc.jsonValue({ maxDepth: 3 })) }),
    fc.record({ method: fc.constant('POST'), path: fc.constant('/collections/diff'), body: fc.jsonValue({ maxDepth: 4 }) }),
  );

  it('refuses arbitrary schema changes without writing anything', async () => {
    // A site of its own: a change that passes (a PUT of a random bundle) reshapes the content model
    // the other tests write to.
    const schemaSite = await createContentSite(service, 'fuzz-schema');
    await fc.assert(
      fc.asyncProperty(schemaWrite, async ({ method, path, body }) => {
        const before = await siteEventCount(schemaSite);
        const response = await schemaSite.call(method, path, body);
        const what = `${method} ${path} ${JSON.stringify(body)?.slice(0, 300)}`;
        expectAnswered(response, what);
        if (response.status >= 400) expect(await siteEventCount(schemaSite), what).toBe(before);
      }),
      { numRuns: 300 },
    );
  });

  it('searches with arbitrary parameters', async () => {
    const searchParam = fc.oneof(
      fc.tuple(fc.constant('q'), text),
      fc.tuple(fc.constant('collection'), fc.oneof(collectionName, text)),
      fc.tuple(fc.constantFrom('limit', 'page'), fc.oneof(fc.integer().map(String), text)),
      fc.tuple(fc.string({ maxLength: 10 }), text),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(searchParam, { maxLength: 5 }), async (params) => {
        const query = params.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&');
        expectAnswered(await site.call('GET', `/search?${query}`), `GET /search?${query}`);
      }),
      { numRuns: 200 },
    );
  });
});

describe('the item routes answer malformed input with the error envelope, never a 500', () => {
  it('lists with arbitrary query parameters, in the stored form and in a language', async () => {
    const locale = fc.constantFrom(undefined, 'en', 'fr', 'not a language');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('articles', 'authors', 'nope'), queryString, locale, async (collection, query, language) => {
        const headers = language === undefined ? undefined : { 'x-svc-locale': language };
        expectAnswered(await site.call('GET', `/items/${collection}?${query}`, undefined, headers), `GET /items/${collection}?${query} (${language})`);
      }),
      { numRuns: 300 },
    );
  });

  it('reads one item with arbitrary ids, parameters and headers', async () => {
    const id = fc.oneof(fc.constant(articleId), fc.string({ minLength: 1, maxLength: 40 }), fc.uuid());
    const sub = fc.constantFrom('', '/revisions', '/versions', '/dependents', '/pins', '/versions/main/compare');
    await fc.assert(
      fc.asyncProperty(id, sub, queryString, headerValue, headerValue, async (itemId, path, query, locale, draft) => {
        const url = `/items/articles/${encodeURIComponent(itemId)}${path}?${query}`;
        expectAnswered(await site.call('GET', url, undefined, { 'x-svc-locale': locale, 'x-svc-draft': draft }), `GET ${url}`);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses arbitrary writes without writing anything', async () => {
    const write = fc.oneof(
      fc.record({ method: fc.constant('POST'), path: fc.constant('/items/articles'), body: fc.oneof(articleBody, fc.array(articleBody, { maxLength: 3 })) }),
      fc.record({ method: fc.constantFrom('PATCH', 'PUT'), path: fc.constant('/items/articles/ID'), body: articleBody }),
      fc.record({ method: fc.constant('POST'), path: fc.constantFrom('/items/articles/ID/revert', '/items/articles/ID/versions', '/items/articles/ID/resolve-dependents'), body: fc.jsonValue({ maxDepth: 3 }) }),
    );
    await fc.assert(
      fc.asyncProperty(write, headerValue, headerValue, headerValue, async ({ method, path, body }, locale, draft, ifMatch) => {
        const before = await siteEventCount();
        const url = path.replace('ID', articleId);
        const response = await site.call(method, url, body, { 'x-svc-locale': locale, 'x-svc-draft': draft, 'if-match': ifMatch });
        const what = `${method} ${url} ${JSON.stringify(body)?.slice(0, 300)}`;
        expectAnswered(response, what);
        if (response.status >= 400) expect(await siteEventCount(), what).toBe(before);
      }),
      { numRuns: 300 },
    );
  });

  it('answers writes of well-shaped items with edge values, then reads and filters what was written', async () => {
    const author = await createItem(site, 'authors', { name: 'Grace' });
    const comment = await createItem(site, 'comments', { text: 'first' });
    const when = ['2024-05-01T14:30:00+02:00', '2024-02-30T00:00:00Z', '2024-05-01', '2024-05-01T24:00:00Z', '9999-12-31T23:59:59Z', '0000-01-01T00:00:00Z', '2024-05-01T12:00:00.123456789Z', 1714567800000];
    // Per field, values a client may send: good ones, edge ones and wrong ones.
    const pools: Record<string, unknown[]> = {
      title: ['x', '', 'x'.repeat(300), 'Tiếng Việt 😀', 1, null],
      body: ['long '.repeat(500), '', null, ['a']],
      views: [0, -2147483648, 2147483647, 2147483648, 1.5, '5', -0, null],
      rating: [1e308, -1e-308, 1.5, '1.5', 0, null],
      price: ['19.90', '1e5', '-0.001', 12.345, '99999999.99', '123456789012', '.5', null],
      big: ['9223372036854775807', '9223372036854775808', '-9223372036854775808', 5, '0x10', '007', null],
      published: [true, false, 'true', 1, null],
      published_at: when,
      day: ['2024-02-29', '2023-02-29', '0000-01-01', '9999-12-31', '2024-13-01', '2024-05-01T00:00:00Z'],
      at: ['08:15', '24:00', '23:59:60', '08:15:00.123456789', '8:15'],
      stamp: when,
      ref: ['0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D', 'not-a-uuid', '00000000-0000-0000-0000-000000000000'],
      slug: ['hello-world', 'Hello World', '-x-', '', 'a--b'],
      color: ['#FFAA00', '#fff', 'red', '#GGGGGG', '#ffaa0080'],
      tags: [['a', 'b'], 'a,b', [], ['a,b'], [1], ['x'.repeat(1000)]],
      meta: [{ a: { b: [1, 'two', null] } }, [], 'text', 12, { ['']: 1 }, JSON.parse('{"a":'.repeat(40) + '1' + '}'.repeat(40))],
      location: [
        { type: 'Point', coordinates: [2.35, 48.85] },
        { type: 'Point', coordinates: [200, 100] },
        { type: 'LineString', coordinates: [[0, 0]] },
        { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] },
        { type: 'GeometryCollection', geometries: [] },
        { type: 'Feature' },
      ],
      gallery: [['f1'], ['f1', 'f1'], [], 'f1', [1], ['../etc']],
      secret: ['pw', '', 'x'.repeat(10_000)],
      summary: ['short', { en: 'x', fr: 'y' }, { 'xx-YY-zz': 'y' }, { en: 1 }, {}],
      snippet: ['let a = 1;', ''],
      author: [author.id, '00000000-0000-7000-8000-000000000000', 'x', null],
      comments: [[], [comment.id], ['nope'], 'nope'],
      status: ['draft', 'published', 'archived', 'bogus', '', null],
      sort: [1, -1, 1.5, '2', null],
    };
    const names = Object.keys(pools);
    const body = fc
      .subarray(names, { minLength: 1, maxLength: 3 })
      .chain((picked) => fc.tuple(...picked.map((name) => fc.constantFrom(...pools[name]!).map((value) => [name, value] as const))))
      .map((entries) => Object.fromEntries(entries));
    const locale = fc.constantFrom(undefined, undefined, 'en', 'fr', 'vi-VN', 'not a language');
    const draft = fc.constantFrom(undefined, undefined, 'true', 'false');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('POST', 'PATCH', 'PUT'), body, locale, draft, fc.nat(), async (method, item, language, toDraft, pick) => {
        const headers: Record<string, string> = {};
        if (language) headers['x-svc-locale'] = language;
        if (toDraft) headers['x-svc-draft'] = toDraft;
        const path = method === 'POST' ? '/items/articles' : `/items/articles/${articleId}`;
        const what = `${method} ${path} ${JSON.stringify(headers)} ${JSON.stringify(item).slice(0, 300)}`;
        const before = await siteEventCount();
        // The required title is given unless the body sets it (PATCH needs none).
        const written = await site.call(method, path, method === 'PATCH' ? item : { title: 'given', ...item }, headers);
        expectAnswered(written, what);
        if (written.status >= 400) {
          expect(await siteEventCount(), what).toBe(before);
          return;
        }
        const id = written.body.data.id as string;
        expectAnswered(await site.call('GET', `/items/articles/${id}?fields=*,author.name,comments.text`, undefined, headers), `read after ${what}`);
        const filtered = Object.keys(item)[pick % Object.keys(item).length]!;
        const value = item[filtered];
        if (value === undefined || (typeof value === 'object' && value !== null)) return;
        const query = `filter[${filtered}][_eq]=${encodeURIComponent(String(value))}&sort=-${filtered},id&fields=id,${filtered}&meta=total_count`;
        expectAnswered(await site.call('GET', `/items/articles?${query}`, undefined, headers), `list ${query} after ${what}`);
      }),
      { numRuns: 250 },
    );
  });

  it('answers a body that is not JSON with 400 VALIDATION', async () => {
    for (const rawBody of ['{', '{"title": }', 'null', '"text"', '[', '\u0000']) {
      const response = await service.request('POST', '/items/articles', { site: site.siteId, token: site.adminToken, rawBody });
      expectAnswered(response, `POST raw ${JSON.stringify(rawBody)}`);
      expect(response.status, rawBody).toBe(400);
    }
  });
});
