import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';

const service = await startTestServiceForFile();

interface SearchSite extends TestSite {
  as: { site: string; token: string };
}

async function createSearchSite(): Promise<SearchSite> {
  const site = await createTestSite(service, 'srch');
  const as = { site: site.siteId, token: site.adminToken };
  for (const body of [
    {
      name: 'posts',
      fields: [
        { field: 'title', type: 'string' },
        { field: 'body', type: 'text' },
        { field: 'views', type: 'integer' },
        { field: 'secret', type: 'hash' },
        { field: 'tags', type: 'json' },
      ],
    },
    { name: 'places', fields: [{ field: 'name', type: 'string' }, { field: 'note', type: 'text' }] },
  ]) {
    const response = await service.request('POST', '/collections', { ...as, body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
  }
  return { ...site, as };
}

async function create(site: SearchSite, collection: string, body: Record<string, unknown>): Promise<string> {
  const response = await service.request('POST', `/items/${collection}`, { ...site.as, body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data.id;
}

async function search(site: SearchSite, query: string) {
  await service.context.daemon.drain();
  return service.request('GET', `/search?${query}`, site.as);
}

/** The stored tsvector of an item's search document, and the row version (xmin) that wrote it. */
async function storedDocument(site: SearchSite, id: string): Promise<{ document: string; rowVersion: string }> {
  const [row] = await service.context.database.withSite(site.siteId, (tx) =>
    tx.query<{ document: string; rowVersion: string }>({
      text: 'SELECT document::text AS document, xmin::text AS "rowVersion" FROM search_documents WHERE site_id = $1 AND id = $2',
      values: [site.siteId, id],
    }),
  );
  return row!;
}

describe('search', () => {
  it('finds Vietnamese text without its diacritics, ranked, with highlights on the original text', async () => {
    const site = await createSearchSite();
    const inTitle = await create(site, 'posts', { title: 'Học Tiếng Việt', body: 'Bài học đầu tiên' });
    const inBody = await create(site, 'posts', { title: 'Ngữ pháp', body: 'Ngữ pháp tiếng Việt cơ bản' });
    await create(site, 'posts', { title: 'English grammar', body: 'Nothing to see' });

    const response = await search(site, 'q=tieng%20viet');
    expect(response.status).toBe(200);
    expect(response.body.meta).toEqual({ total: 2, page: 1, limit: 20 });
    const [first, second] = response.body.data;
    expect(first).toMatchObject({ collection: 'posts', id: inTitle });
    expect(second).toMatchObject({ collection: 'posts', id: inBody });
    expect(first.score).toBeGreaterThan(second.score);
    expect(first.highlights.title).toBe('Học <mark>Tiếng</mark> <mark>Việt</mark>');
    expect(second.highlights.body).toBe('Ngữ pháp <mark>tiếng</mark> <mark>Việt</mark> cơ bản');
    expect(first.item).toMatchObject({ id: inTitle, title: 'Học Tiếng Việt', body: 'Bài học đầu tiên' });
  });

  it('matches accented queries, decomposed input, đ, and word prefixes', async () => {
    const site = await createSearchSite();
    const street = await create(site, 'places', { name: 'Đường Lê Lợi', note: 'Quận 1' });
    for (const query of ['duong%20le', encodeURIComponent('Đường'), encodeURIComponent('Lo\u0323\u031Bi'), 'duo']) {
      const response = await search(site, `q=${query}`);
      expect(response.body.data.map((hit: { id: string; collection: string }) => hit.id), query).toEqual([street]);
    }
  });

  it('folds plain ASCII text (its quick path) and accented text alike', async () => {
    const inputs = ['Plain ASCII Title, 42 WORDS', 'Đường Lê Lợi', 'Lo\u0323\u031Bi', 'MIXED ascii Ñandú', ''];
    const rows = await service.context.database.withSite('no-site', (tx) =>
      tx.query<{ folded: string }>({ text: 'SELECT svc_fold_accents(input) AS folded FROM unnest($1::text[]) WITH ORDINALITY AS t(input, n) ORDER BY n', values: [inputs] }),
    );
    expect(rows.map((row) => row.folded)).toEqual(['plain ascii title, 42 words', 'duong le loi', 'loi', 'mixed ascii nandu', '']);
    const site = await createSearchSite();
    const article = await create(site, 'places', { name: 'Harbour VIEW Terrace', note: 'Open DAILY' });
    const response = await search(site, 'q=harbour%20daily');
    expect(response.body.data.map((hit: { id: string }) => hit.id)).toEqual([article]);
  });

  it('searches all collections unless one is named', async () => {
    const site = await createSearchSite();
    const post = await create(site, 'posts', { title: 'Hà Nội mùa thu' });
    const place = await create(site, 'places', { name: 'Hà Nội' });
    const everywhere = await search(site, 'q=ha%20noi');
    expect(everywhere.body.data.map((hit: { id: string; collection: string }) => `${hit.collection}/${hit.id}`).sort()).toEqual([`places/${place}`, `posts/${post}`].sort());
    const placesOnly = await search(site, 'q=ha%20noi&collection=places');
    expect(placesOnly.body.data.map((hit: { id: string; collection: string }) => hit.id)).toEqual([place]);
    expect(placesOnly.body.meta.total).toBe(1);
  });

  it('indexes nested strings of JSON fields but not hashes or numbers', async () => {
    const site = await createSearchSite();
    const tagged = await create(site, 'posts', { title: 'Tagged', tags: { vi: ['phở bò'] }, secret: 'zanzibar', views: 424242 });
    expect((await search(site, 'q=pho%20bo')).body.data.map((hit: { id: string; collection: string }) => hit.id)).toEqual([tagged]);
    expect((await search(site, 'q=zanzibar')).body.data).toEqual([]);
    expect((await search(site, 'q=424242')).body.data).toEqual([]);
    const hit = (await search(site, 'q=tagged')).body.data[0];
    expect(hit.item.secret).toBe('**********');
  });

  it('follows updates, and never returns soft-deleted items or items of soft-deleted collections', async () => {
    const site = await createSearchSite();
    const post = await create(site, 'posts', { title: 'Sài Gòn' });
    const place = await create(site, 'places', { name: 'Sài Gòn' });
    expect((await search(site, 'q=sai%20gon')).body.meta.total).toBe(2);

    await service.request('PATCH', `/items/posts/${post}`, { ...site.as, body: { title: 'Thành phố Hồ Chí Minh' } });
    expect((await search(site, 'q=sai%20gon')).body.data.map((hit: { id: string; collection: string }) => hit.id)).toEqual([place]);
    expect((await search(site, 'q=ho%20chi%20minh')).body.data.map((hit: { id: string; collection: string }) => hit.id)).toEqual([post]);

    expect((await service.request('DELETE', `/items/posts/${post}`, site.as)).status).toBe(204);
    expect((await search(site, 'q=ho%20chi%20minh')).body.data).toEqual([]);

    expect((await service.request('DELETE', '/collections/places', site.as)).status).toBe(204);
    const afterDelete = await search(site, 'q=sai%20gon');
    expect(afterDelete.body.data).toEqual([]);
    expect(afterDelete.body.meta.total).toBe(0);
  });

  it('stores the tsvector of the joined texts, title-like fields at weight A, and rewrites it only when the text changes', async () => {
    const site = await createSearchSite();
    const post = await create(site, 'posts', { title: 'Học Tiếng Việt', body: 'Bài học', tags: ['phở'], views: 1 });
    await service.context.daemon.drain();
    const stored = await storedDocument(site, post);
    // Title first (positions 1-3, weight A), then body and tags joined in field order (weight B).
    expect(stored.document).toBe("'bai':4B 'hoc':1A,5B 'pho':6B 'tieng':2A 'viet':3A");

    // Neither a number nor a field that is not indexed changes the text: the row is not written again.
    expect((await service.request('PATCH', `/items/posts/${post}`, { ...site.as, body: { views: 2, secret: 'x' } })).status).toBe(200);
    await service.context.daemon.drain();
    expect(await storedDocument(site, post)).toEqual(stored);

    expect((await service.request('PATCH', `/items/posts/${post}`, { ...site.as, body: { body: 'Bài hai' } })).status).toBe(200);
    await service.context.daemon.drain();
    const rewritten = await storedDocument(site, post);
    expect(rewritten.rowVersion).not.toBe(stored.rowVersion);
    expect(rewritten.document).toBe("'bai':4B 'hai':5B 'hoc':1A 'pho':6B 'tieng':2A 'viet':3A");
    expect((await search(site, 'q=hai')).body.data[0].highlights).toEqual({ body: 'Bài <mark>hai</mark>' });
  });

  it('drops a removed field from the index', async () => {
    const site = await createSearchSite();
    const post = await create(site, 'posts', { title: 'Bánh mì', body: 'Nước mắm ngon' });
    expect((await search(site, 'q=nuoc%20mam')).body.data.map((hit: { id: string; collection: string }) => hit.id)).toEqual([post]);
    expect((await service.request('DELETE', '/fields/posts/body', site.as)).status).toBe(204);
    expect((await search(site, 'q=nuoc%20mam')).body.data).toEqual([]);
    expect((await search(site, 'q=banh%20mi')).body.data.map((hit: { id: string; collection: string }) => hit.id)).toEqual([post]);
  });

  it('logs reads of pii fields that hits show', async () => {
    const site = await createSearchSite();
    const created = await service.request('POST', '/collections', {
      ...site.as,
      body: { name: 'people', fields: [{ field: 'name', type: 'string' }, { field: 'email', type: 'string', sensitivity: 'pii' }] },
    });
    expect(created.status).toBe(201);
    const person = await create(site, 'people', { name: 'Trần Thị B', email: 'b@example.test' });
    const response = await search(site, 'q=tran%20thi');
    expect(response.body.data[0].item.email).toBe('b@example.test');
    const logged = await service.context.database.withSite(site.siteId, (tx) =>
      tx.query<{ data: { reads: unknown[] } }>({ text: `SELECT data FROM events WHERE site_id = $1 AND type = 'item.sensitive_read'`, values: [site.siteId] }),
    );
    expect(logged.map((row) => row.data.reads)).toEqual([[{ collection: 'people', itemId: person, fields: [{ field: 'email', sensitivity: 'pii' }] }]]);
  });

  it('never returns another site’s items', async () => {
    const site = await createSearchSite();
    const other = await createSearchSite();
    await create(other, 'posts', { title: 'Bí mật của người khác' });
    const response = await search(site, 'q=bi%20mat');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([]);
    expect((await search(other, 'q=bi%20mat')).body.meta.total).toBe(1);
  });

  it('pages results', async () => {
    const site = await createSearchSite();
    for (let n = 1; n <= 5; n += 1) await create(site, 'posts', { title: `Cà phê số ${n}` });
    const page = await search(site, 'q=ca%20phe&limit=2&page=3');
    expect(page.body.meta).toEqual({ total: 5, page: 3, limit: 2 });
    expect(page.body.data).toHaveLength(1);
  });

  it('refuses bad parameters with 400 and an unknown collection with 404', async () => {
    const site = await createSearchSite();
    const expectError = (response: { status: number; body: { errors: [{ code: string; path: unknown[] }] } }, status: number, code: string, path?: string[]) => {
      expect(response.status, JSON.stringify(response.body)).toBe(status);
      expect(response.body.errors[0].code).toBe(code);
      if (path) expect(response.body.errors[0].path).toEqual(path);
    };
    expectError(await search(site, ''), 400, 'VALIDATION_FAILED', ['query', 'q']);
    expectError(await search(site, 'q='), 400, 'VALIDATION_FAILED', ['query', 'q']);
    expectError(await search(site, 'q=%20%20'), 400, 'VALIDATION_FAILED', ['query', 'q']);
    expectError(await search(site, 'q=!!!'), 400, 'VALIDATION_FAILED', ['query', 'q']);
    expectError(await search(site, 'q=a&limit=0'), 400, 'VALIDATION_FAILED', ['query', 'limit']);
    expectError(await search(site, 'q=a&limit=101'), 400, 'VALIDATION_FAILED', ['query', 'limit']);
    expectError(await search(site, 'q=a&page=0'), 400, 'VALIDATION_FAILED', ['query', 'page']);
    expectError(await search(site, 'q=a&collection=bad%20name'), 400, 'VALIDATION_FAILED', ['query', 'collection']);
    expectError(await search(site, 'q=a&collection=nowhere'), 404, 'NOT_FOUND');
    expectError(await service.request('GET', '/search?q=a', { site: site.siteId }), 401, 'UNAUTHENTICATED');
  });
});
