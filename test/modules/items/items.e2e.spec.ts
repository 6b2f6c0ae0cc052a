import { describe, expect, it } from 'vitest';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createContentSite, createItem, type ContentSite, type Json } from './support.ts';

// Eight concurrent writers (the If-Match race below) beside the service's own background parts: with
// the tests' pool of 10, a loaded machine once left three of them waiting 5 s for a connection (503).
// The race is about versions, not pool size.
const service = await startTestServiceForFile({ SVC_DB_POOL_SIZE: '20' });
const owner = await connectOwnerClientForFile();

async function itemEvents(site: ContentSite, collection: string, id: string) {
  const { rows } = await owner.query<{ type: string; data: Json; metadata: Json; stream_position: number }>(
    'SELECT type, data, metadata, stream_position FROM events WHERE stream_id = $1 ORDER BY stream_position',
    [`${site.siteId}/item/${collection}/${id}`],
  );
  return rows;
}

async function articleCount(site: ContentSite): Promise<number> {
  return (await site.call('GET', '/items/articles?limit=1')).body.meta.total;
}

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

describe('create and read', () => {
  it('creates an item, stores every type in its normal form, and returns it with its version as ETag', async () => {
    const site = await createContentSite(service);
    const created = await site.call('POST', '/items/articles', fullArticle);
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"1"');
    const item = created.body.data;
    expect(item).toMatchObject({
      status: null,
      sort: null,
      userCreated: site.adminUserId,
      userUpdated: site.adminUserId,
      title: 'Hello',
      views: 12,
      rating: 4.5,
      price: '19.90',
      big: '9007199254740993',
      published: true,
      published_at: '2024-05-01T12:30:00.000Z',
      day: '2024-05-01',
      at: '08:15:00',
      stamp: '2024-05-01T01:00:00.000Z',
      ref: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
      slug: 'hello-world',
      color: '#ffaa00',
      tags: 'news,tech',
      meta: { depth: { ok: true } },
      location: { type: 'Point', coordinates: [2.35, 48.85] },
      gallery: ['file-1', 'file-2'],
      secret: '**********',
      summary: { en: 'In short' },
      snippet: 'let a = 1;',
      author: null,
    });
    expect(item.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const read = await site.call('GET', `/items/articles/${item.id}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe('"1"');
    expect(read.body.data).toEqual({ ...item, comments: [] });

    const [event] = await itemEvents(site, 'articles', item.id);
    expect(event!.type).toBe('item.created');
    expect(event!.metadata.actor).toEqual({ kind: 'user', id: site.adminUserId });
    expect(event!.data.snapshot.secret).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(event!.data)).not.toContain('clear text');
  });

  it('refuses a bad value of every type with 400 VALIDATION_FAILED at body.<field>, writing nothing', async () => {
    const site = await createContentSite(service);
    const bad: Record<string, unknown> = {
      title: 'x'.repeat(256),
      body: 42,
      views: 2 ** 31,
      rating: 'high',
      price: '1.234',
      big: '99999999999999999999',
      published: 'yes',
      published_at: '2024-13-01T00:00:00Z',
      day: '2024-02-30',
      at: '25:00',
      stamp: 'now',
      ref: 'not-a-uuid',
      slug: 'Not A Slug',
      color: 'orange',
      tags: [1, 2],
      meta: { bad: Number.NaN },
      location: { type: 'Point', coordinates: ['a', 'b'] },
      gallery: 'file-1',
      secret: '',
      summary: { english: 'x' },
      snippet: { code: true },
      author: 'nope',
      unknown: 'field',
    };
    for (const [field, value] of Object.entries(bad)) {
      const body = field === 'title' ? { title: value } : { title: 'ok', [field]: value };
      const response = await site.call('POST', '/items/articles', field === 'meta' ? undefined : body, undefined);
      if (field === 'meta') continue; // NaN is not JSON: covered by the unit tests
      expect([field, response.status, response.body.errors?.[0]?.code, response.body.errors?.[0]?.path?.slice(0, 2)]).toEqual([
        field,
        400,
        'VALIDATION_FAILED',
        ['body', field],
      ]);
    }
    const missing = await site.call('POST', '/items/articles', { views: 1 });
    expect(missing.body.errors[0].path).toEqual(['body', 'title']);
    expect(await articleCount(site)).toBe(0);
  });

  it('answers 404 NOT_FOUND for an unknown collection and 404 RECORD_NOT_FOUND for a missing item', async () => {
    const site = await createContentSite(service);
    for (const [method, path, body] of [
      ['GET', '/items/nope'],
      ['POST', '/items/nope', { a: 1 }],
      ['GET', '/items/nope/x'],
      ['PATCH', '/items/nope/x', { a: 1 }],
    ] as [string, string, unknown?][]) {
      const response = await site.call(method, path, body);
      expect([path, response.status, response.body.errors[0].code]).toEqual([path, 404, 'NOT_FOUND']);
    }
    for (const [method, path, body] of [
      ['GET', '/items/articles/missing'],
      ['PATCH', '/items/articles/missing', { title: 'x' }],
      ['PUT', '/items/articles/missing', { title: 'x' }],
      ['DELETE', '/items/articles/missing'],
      ['GET', '/items/articles/missing/dependents'],
      ['GET', '/items/articles/bad%20id'],
    ] as [string, string, unknown?][]) {
      const response = await site.call(method, path, body);
      expect([method, path, response.status, response.body.errors[0].code]).toEqual([method, path, 404, 'RECORD_NOT_FOUND']);
    }
  });

  it('keeps a structural column over a content field of the same name', async () => {
    const site = await createContentSite(service);
    await site.call('POST', '/collections', {
      name: 'posts',
      fields: [
        { field: 'status', type: 'string', options: { choices: ['draft', 'published'] } },
        { field: 'title', type: 'string' },
      ],
    });
    const bad = await site.call('POST', '/items/posts', { title: 'T', status: 'archived' });
    expect(bad.body.errors[0].path).toEqual(['body', 'status']);
    const post = await createItem(site, 'posts', { title: 'T', status: 'published', sort: 3 });
    expect(post).toMatchObject({ status: 'published', sort: 3 });
    const { rows } = await owner.query('SELECT status, sort, data FROM items WHERE site_id = $1 AND id = $2', [site.siteId, post.id]);
    expect(rows[0]).toEqual({ status: 'published', sort: 3, data: { title: 'T' } });
  });
});

describe('bulk create', () => {
  it('creates an array of items in one transaction, in order', async () => {
    const site = await createContentSite(service);
    const created = await site.call('POST', '/items/articles', [{ title: 'A' }, { title: 'B', views: 2 }, { id: 'chosen-id', title: 'C' }]);
    expect(created.status).toBe(201);
    expect(created.body.data.map((item: { title: string }) => item.title)).toEqual(['A', 'B', 'C']);
    expect(created.body.data[2].id).toBe('chosen-id');
    expect(await articleCount(site)).toBe(3);
  });

  it('is all or nothing: one bad item refuses the array with the path body.<index>.<field>', async () => {
    const site = await createContentSite(service);
    const bad = await site.call('POST', '/items/articles', [{ title: 'A' }, { title: 'B' }, { title: 'C', views: 'lots' }]);
    expect([bad.status, bad.body.errors[0].code, bad.body.errors[0].path]).toEqual([400, 'VALIDATION_FAILED', ['body', 2, 'views']]);
    const missing = await site.call('POST', '/items/articles', [{ title: 'A' }, {}]);
    expect(missing.body.errors[0].path).toEqual(['body', 1, 'title']);
    const twice = await site.call('POST', '/items/articles', [{ id: 'same', title: 'A' }, { id: 'same', title: 'B' }]);
    expect(twice.body.errors[0].path).toEqual(['body', 1, 'id']);
    expect(await articleCount(site)).toBe(0);

    await createItem(site, 'articles', { id: 'taken', title: 'Taken' });
    const conflict = await site.call('POST', '/items/articles', [{ title: 'New' }, { id: 'taken', title: 'Again' }]);
    expect([conflict.status, conflict.body.errors[0].code, conflict.body.errors[0].path]).toEqual([409, 'CONFLICT', ['body', 1, 'id']]);
    expect(await articleCount(site)).toBe(1);
    const notObject = await site.call('POST', '/items/articles', [{ title: 'A' }, 'text']);
    expect(notObject.body.errors[0].path).toEqual(['body', 1]);
  });
});

describe('update and delete', () => {
  it('PATCH merges, PUT replaces, each bumps the version in ETag', async () => {
    const site = await createContentSite(service);
    const item = await createItem(site, 'articles', { title: 'One', views: 1, body: 'text' });
    const patched = await site.call('PATCH', `/items/articles/${item.id}`, { views: 2 });
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).toBe('"2"');
    expect(patched.body.data).toMatchObject({ title: 'One', views: 2, body: 'text', createdAt: item.createdAt });
    const replaced = await site.call('PUT', `/items/articles/${item.id}`, { title: 'Two' });
    expect(replaced.headers.get('etag')).toBe('"3"');
    expect(replaced.body.data).toMatchObject({ title: 'Two', views: null, body: null });
    const badPut = await site.call('PUT', `/items/articles/${item.id}`, { views: 3 });
    expect(badPut.body.errors[0].path).toEqual(['body', 'title']);
    const badPatch = await site.call('PATCH', `/items/articles/${item.id}`, { title: null });
    expect(badPatch.body.errors[0].path).toEqual(['body', 'title']);
    const otherId = await site.call('PATCH', `/items/articles/${item.id}`, { id: 'other' });
    expect(otherId.body.errors[0].path).toEqual(['body', 'id']);
    expect((await itemEvents(site, 'articles', item.id)).map((event) => event.type)).toEqual(['item.created', 'item.updated', 'item.updated']);
  });

  it('If-Match: a stale version is 412 PRECONDITION_FAILED and changes nothing; a current one (3, "3" or W/"3") passes', async () => {
    const site = await createContentSite(service);
    const item = await createItem(site, 'articles', { title: 'One' });
    const stale = await site.call('PATCH', `/items/articles/${item.id}`, { title: 'Two' }, { 'if-match': '"7"' });
    expect([stale.status, stale.body.errors[0].code]).toEqual([412, 'PRECONDITION_FAILED']);
    expect((await site.call('GET', `/items/articles/${item.id}`)).body.data.title).toBe('One');
    expect((await site.call('PATCH', `/items/articles/${item.id}`, { title: 'Two' }, { 'if-match': '1' })).status).toBe(200);
    expect((await site.call('PATCH', `/items/articles/${item.id}`, { title: 'Three' }, { 'if-match': '"2"' })).status).toBe(200);
    expect((await site.call('PUT', `/items/articles/${item.id}`, { title: 'Four' }, { 'if-match': 'W/"3"' })).status).toBe(200);
    expect((await site.call('DELETE', `/items/articles/${item.id}`, undefined, { 'if-match': '"3"' })).status).toBe(412);
    const malformed = await site.call('PATCH', `/items/articles/${item.id}`, { title: 'x' }, { 'if-match': 'abc' });
    expect([malformed.status, malformed.body.errors[0].path]).toEqual([400, ['headers', 'if-match']]);
    expect((await site.call('DELETE', `/items/articles/${item.id}`, undefined, { 'if-match': '"4"' })).status).toBe(204);
  });

  it('never loses an update: concurrent PATCHes without If-Match all land', async () => {
    const site = await createContentSite(service);
    const item = await createItem(site, 'articles', { title: 'One' });
    const fields = ['views', 'rating', 'body', 'slug', 'published', 'color'];
    const values: Record<string, unknown> = { views: 5, rating: 1.5, body: 'b', slug: 's', published: false, color: '#000000' };
    const responses = await Promise.all(fields.map((field) => site.call('PATCH', `/items/articles/${item.id}`, { [field]: values[field] })));
    expect(responses.map((response) => response.status)).toEqual(fields.map(() => 200));
    const read = await site.call('GET', `/items/articles/${item.id}`);
    expect(read.body.data).toMatchObject(values);
    expect(read.headers.get('etag')).toBe(`"${fields.length + 1}"`);
  });

  it('lets exactly one of concurrent writes with the same If-Match land; the others get 412 and change nothing', async () => {
    const site = await createContentSite(service);
    const item = await createItem(site, 'articles', { title: 'Start', views: 0 });
    const writes = Array.from({ length: 8 }, (_, index) =>
      site.call('PATCH', `/items/articles/${item.id}`, { title: `Writer ${index}`, views: index }, { 'if-match': '"1"' }),
    );
    const responses = await Promise.all(writes);
    const statuses = responses.map((response) => response.status).sort();
    // On failure, say what each writer was told: the version a refused writer saw names the cause.
    expect(statuses, JSON.stringify(responses.map((response) => response.body.errors ?? 'ok'))).toEqual([200, 412, 412, 412, 412, 412, 412, 412]);
    const winner = responses.find((response) => response.status === 200)!;
    for (const refused of responses.filter((response) => response.status === 412)) expect(refused.body.errors[0].code).toBe('PRECONDITION_FAILED');
    const read = await site.call('GET', `/items/articles/${item.id}`);
    expect(read.headers.get('etag')).toBe('"2"');
    expect(read.body.data).toMatchObject({ title: winner.body.data.title, views: winner.body.data.views });
    const revisions = await site.call('GET', `/items/articles/${item.id}/revisions`);
    expect(revisions.body.data).toHaveLength(2);
  });

  it('soft delete hides the item from reads and keeps its history', async () => {
    const site = await createContentSite(service);
    const item = await createItem(site, 'articles', { title: 'Gone' });
    expect((await site.call('DELETE', `/items/articles/${item.id}`)).status).toBe(204);
    expect((await site.call('GET', `/items/articles/${item.id}`)).status).toBe(404);
    expect((await site.call('GET', '/items/articles')).body.data).toEqual([]);
    expect((await site.call('PATCH', `/items/articles/${item.id}`, { title: 'x' })).status).toBe(404);
    expect((await site.call('DELETE', `/items/articles/${item.id}`)).body.errors[0].code).toBe('RECORD_NOT_FOUND');
    const events = await itemEvents(site, 'articles', item.id);
    expect(events.map((event) => event.type)).toEqual(['item.created', 'item.deleted']);
    expect(events[1]!.data.delta).toEqual({ deletedAt: events[1]!.data.snapshot.deletedAt });
  });
});

describe('hash, translations and drafts', () => {
  it('never returns a hash in clear, and a PUT sending the mask back keeps it', async () => {
    const site = await createContentSite(service);
    const item = await createItem(site, 'articles', { title: 'T', secret: 'pw-1' });
    const stored = async () => (await owner.query('SELECT data FROM items WHERE site_id = $1 AND id = $2', [site.siteId, item.id])).rows[0].data.secret;
    const hash = await stored();
    expect(hash).toMatch(/^\$argon2id\$/);
    const read = await site.call('GET', `/items/articles/${item.id}`);
    expect(read.body.data.secret).toBe('**********');
    await site.call('PUT', `/items/articles/${item.id}`, read.body.data);
    expect(await stored()).toBe(hash);
    await site.call('PATCH', `/items/articles/${item.id}`, { secret: 'pw-2' });
    expect(await stored()).not.toBe(hash);
  });

  it('X-Svc-Locale writes and reads one language of translatable fields, falling back to the site default', async () => {
    const site = await createContentSite(service);
    const item = (await site.call('POST', '/items/articles', { title: 'T', summary: 'Bonjour' }, { 'x-svc-locale': 'fr' })).body.data;
    expect(item.summary).toBe('Bonjour');
    await site.call('PATCH', `/items/articles/${item.id}`, { summary: 'Hello' }, { 'x-svc-locale': 'en' });
    expect((await site.call('GET', `/items/articles/${item.id}`)).body.data.summary).toEqual({ fr: 'Bonjour', en: 'Hello' });
    expect((await site.call('GET', `/items/articles/${item.id}`, undefined, { 'x-svc-locale': 'fr' })).body.data.summary).toBe('Bonjour');
    expect((await site.call('GET', `/items/articles/${item.id}`, undefined, { 'x-svc-locale': 'de' })).body.data.summary).toBe('Hello');
    const list = await site.call('GET', '/items/articles?fields=summary', undefined, { 'x-svc-locale': 'fr' });
    expect(list.body.data).toEqual([{ summary: 'Bonjour' }]);
    const filtered = await site.call('GET', '/items/articles?filter[summary.fr][_eq]=Bonjour&fields=id');
    expect(filtered.body.data).toEqual([{ id: item.id }]);
    const bad = await site.call('GET', '/items/articles', undefined, { 'x-svc-locale': 'not a language' });
    expect([bad.status, bad.body.errors[0].path]).toEqual([400, ['headers', 'x-svc-locale']]);
  });

  it('X-Svc-Draft writes go to the draft, which only X-Svc-Draft reads show', async () => {
    const site = await createContentSite(service);
    const item = await createItem(site, 'articles', { title: 'Published title', views: 1 });
    const draft = await site.call('PATCH', `/items/articles/${item.id}`, { title: 'Draft title' }, { 'x-svc-draft': 'true' });
    expect(draft.status).toBe(200);
    expect(draft.body.data).toMatchObject({ title: 'Draft title', views: 1 });
    expect(draft.headers.get('etag')).toBe('"2"');
    expect((await site.call('GET', `/items/articles/${item.id}`)).body.data.title).toBe('Published title');
    expect((await site.call('GET', '/items/articles?fields=title')).body.data).toEqual([{ title: 'Published title' }]);
    expect((await site.call('GET', `/items/articles/${item.id}`, undefined, { 'x-svc-draft': 'true' })).body.data.title).toBe('Draft title');
    expect((await site.call('GET', '/items/articles?fields=title', undefined, { 'x-svc-draft': 'true' })).body.data).toEqual([{ title: 'Draft title' }]);
    const events = await itemEvents(site, 'articles', item.id);
    expect(events[1]).toMatchObject({ type: 'item.updated', data: { cause: { draft: true }, snapshot: { title: 'Published title' }, draft: { title: 'Draft title' } } });
    // a normal write changes the item and leaves the draft as it was
    await site.call('PATCH', `/items/articles/${item.id}`, { views: 2 });
    expect((await site.call('GET', `/items/articles/${item.id}`, undefined, { 'x-svc-draft': 'true' })).body.data).toMatchObject({ title: 'Draft title', views: 1 });
    expect((await site.call('GET', `/items/articles/${item.id}`)).body.data).toMatchObject({ title: 'Published title', views: 2 });
  });
});

describe('hash fields in queries', () => {
  it('lets a query ask only whether a hash is set: comparisons, sort, groupBy, min and max would read the hash out', async () => {
    const site = await createContentSite(service);
    const withSecret = await createItem(site, 'articles', { title: 'With', secret: 'hunter2' });
    await createItem(site, 'articles', { title: 'Without' });
    const set = await site.call('GET', '/items/articles?filter[secret][_nnull]=true&fields=id');
    expect(set.body.data).toEqual([{ id: withSecret.id }]);
    expect((await site.call('GET', '/items/articles?filter[secret][_null]=true&fields=title')).body.data).toEqual([{ title: 'Without' }]);
    expect((await site.call('GET', '/items/articles?aggregate[count]=secret')).body.data).toEqual([{ count: { secret: 1 } }]);
    const refused: [string, (string | number)[]][] = [
      ['filter[secret][_starts_with]=%24argon2', ['filter', 'secret', '_starts_with']],
      ['filter[secret][_gt]=%24', ['filter', 'secret', '_gt']],
      ['filter[secret][_eq]=hunter2', ['filter', 'secret', '_eq']],
      ['filter[secret][_in]=a,b', ['filter', 'secret', '_in']],
      [`filter=${encodeURIComponent(JSON.stringify({ _or: [{ secret: { _contains: 'a' } }] }))}`, ['filter', '_or', 0, 'secret', '_contains']],
      ['sort=-secret', ['sort']],
      ['groupBy=secret&aggregate[count]=*', ['groupBy']],
      ['aggregate[min]=secret', ['aggregate', 'min']],
      ['aggregate[max]=secret', ['aggregate', 'max']],
      ['aggregate[countDistinct]=secret', ['aggregate', 'countDistinct']],
    ];
    for (const [query, path] of refused) {
      const response = await site.call('GET', `/items/articles?${query}`);
      expect([response.status, response.body.errors?.[0]?.code, response.body.errors?.[0]?.path], query).toEqual([400, 'VALIDATION_FAILED', path]);
      expect(JSON.stringify(response.body)).not.toContain('argon2id');
    }
  });
});

describe('sensitive fields', () => {
  it('logs each read request that returns pii fields, once, as item.sensitive_read, and projects it to the field access log', async () => {
    const site = await createContentSite(service);
    const ann = await createItem(site, 'authors', { name: 'Ann', email: 'ann@example.com' });
    await createItem(site, 'authors', { name: 'Bob', email: 'bob@example.com' });
    const stream = `${site.siteId}/sensitive-reads/${new Date().toISOString().slice(0, 10)}`;
    const logged = async () =>
      (await owner.query<{ type: string; data: Json; metadata: Json }>('SELECT type, data, metadata FROM events WHERE stream_id = $1 ORDER BY stream_position', [stream])).rows;
    expect(await logged()).toEqual([]);
    expect((await site.call('GET', '/items/authors?fields=name')).status).toBe(200);
    expect(await logged()).toEqual([]);
    await site.call('GET', `/items/authors/${ann.id}`);
    await site.call('GET', '/items/authors?sort=name');
    const events = await logged();
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({
      type: 'item.sensitive_read',
      data: { reads: [{ collection: 'authors', itemId: ann.id, fields: [{ field: 'email', sensitivity: 'pii' }] }] },
      metadata: { actor: { kind: 'user', id: site.adminUserId } },
    });
    expect(events[1]!.data.reads).toHaveLength(2);
    await service.context.daemon.drain();
    const { rows } = await owner.query('SELECT user_id, collection, item_id, field, sensitivity FROM field_access_log WHERE site_id = $1 ORDER BY position, ordinal', [
      site.siteId,
    ]);
    expect(rows[0]).toEqual({ user_id: site.adminUserId, collection: 'authors', item_id: ann.id, field: 'email', sensitivity: 'pii' });
    expect(rows).toHaveLength(3);
  });
});

describe('sensitive fields, every way out', () => {
  it('logs pii returned by any selection, relation, time travel or write answer, and refuses aggregates that answer with pii values', async () => {
    const site = await createContentSite(service);
    const ann = await createItem(site, 'authors', { name: 'Ann', email: 'ann@example.com' });
    const article = await createItem(site, 'articles', { title: 'T', author: ann.id });
    const stream = `${site.siteId}/sensitive-reads/${new Date().toISOString().slice(0, 10)}`;
    const reads = async () => Number((await owner.query('SELECT count(*) FROM events WHERE stream_id = $1', [stream])).rows[0].count);
    const later = encodeURIComponent(new Date(Date.now() + 60_000).toISOString());
    // Each returns the email, naming it without `id` or through a relation: each is one logged read.
    for (const path of [
      '/items/authors?fields=email',
      `/items/authors/${ann.id}?fields=email`,
      `/items/articles/${article.id}?fields=title,author.email`,
      '/items/articles?fields=title,author.email',
      `/items/authors?asOf=${later}&fields=email`,
      `/items/articles?asOf=${later}&fields=title,author.email`,
    ]) {
      const before = await reads();
      const response = await site.call('GET', path);
      expect(JSON.stringify(response.body), path).toContain('ann@example.com');
      expect(await reads(), path).toBe(before + 1);
    }
    // An aggregate answering with pii values has no item to log them against: refused.
    for (const [query, path] of [
      ['aggregate[min]=email', ['aggregate', 'min']],
      ['aggregate[max]=email', ['aggregate', 'max']],
      ['groupBy=email&aggregate[count]=*', ['groupBy']],
    ] as const) {
      const response = await site.call('GET', `/items/authors?${query}`);
      expect([response.status, response.body.errors[0].path], query).toEqual([400, path]);
    }
    expect((await site.call('GET', '/items/authors?aggregate[count]=email')).body.data).toEqual([{ count: { email: 1 } }]);
    // A write's answer logs the pii it shows that its body did not carry.
    let before = await reads();
    await site.call('PATCH', `/items/authors/${ann.id}`, { name: 'Ann B' });
    expect(await reads()).toBe(before + 1);
    before = await reads();
    await site.call('PATCH', `/items/authors/${ann.id}`, { email: 'ann2@example.com' });
    await site.call('POST', '/items/authors', { name: 'Bob', email: 'bob@example.com' });
    await site.call('POST', '/items/authors', { name: 'Cid' });
    expect(await reads()).toBe(before);
  });
});
