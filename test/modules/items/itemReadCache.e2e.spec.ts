// The read cache of GET /items/:collection/:id (docs/content.md "The read cache",
// src/modules/items/itemReadCache.ts) against the real service and database, without mocks: a cached
// answer is told from a fresh one by changing the item's `items` row directly with SQL, with no event
// (a cached read still shows the old value; a read that is not cached shows the new one at once).
import { describe, expect, it, vi } from 'vitest';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { INSTANCE_TOKEN, startTestService, startTestServiceForFile, uniqueSiteId, type TestResponse, type TestService } from '../../support/testService.ts';
import { createMember, createRole, grant, withHelpers } from '../access/support.ts';
import { grantPublic } from '../delivery/support.ts';
import { createItemReadCache } from '../../../src/modules/items/itemReadCache.ts';
import { settledIndexes } from '../../support/fieldIndexes.ts';
import { createContentSite, createItem, type ContentSite } from './support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();

const JSON_TYPE = 'application/json; charset=utf-8';

type Read = () => Promise<TestResponse>;

/** Sets one content field of an item's read-model row behind the service's back (no event). */
async function behindTheBack(site: ContentSite, collection: string, id: string, field: string, value: unknown): Promise<void> {
  const { rowCount } = await owner.query('UPDATE items SET data = jsonb_set(data, ARRAY[$4::text], $5::jsonb) WHERE site_id = $1 AND collection = $2 AND id = $3', [
    site.siteId,
    collection,
    id,
    field,
    JSON.stringify(value),
  ]);
  expect(rowCount).toBe(1);
}

/**
 * Waits until `listener` has heard every svc_events notification `writer` sent so far. An instance
 * hears its own commits twice: at once (onCommitted), and again when their NOTIFY comes back a few
 * milliseconds later, which retires the site's answers a second time. The barrier is a site created
 * through `writer`: its notification leaves after every earlier one (one sender, in order), and its
 * site id is new, so no earlier notification carries it.
 */
async function quiet(writer: TestService = service, listener: TestService = writer): Promise<void> {
  const barrier = uniqueSiteId('barrier');
  let heard = false;
  const stop = listener.context.notifier.on('svc_events', (siteId) => {
    if (siteId === barrier) heard = true;
  });
  try {
    const created = await writer.request('POST', '/instance/sites', { token: INSTANCE_TOKEN, body: { id: barrier, adminEmail: `admin@${barrier}.test`, adminPassword: 'barrier password' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await vi.waitFor(() => expect(heard).toBe(true), { timeout: 10_000, interval: 10 });
  } finally {
    stop();
  }
}

/**
 * A read served from the cache: once the site is quiet, a direct change of `field` made after `read`
 * answered is not seen by the next read, which answers the same bytes and ETag.
 */
async function cachedRead(
  site: ContentSite,
  read: Read,
  collection: string,
  id: string,
  field = 'title',
  value: (marker: string) => unknown = (marker) => marker,
  instances: [TestService, TestService] = [service, service],
): Promise<{ first: TestResponse; second: TestResponse }> {
  await quiet(...instances);
  const first = await read();
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  await behindTheBack(site, collection, id, field, value(`behind the back ${Math.random()}`));
  const second = await read();
  expect(second.body).toEqual(first.body);
  expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
  return { first, second };
}

/** A read that is not cached: a direct change made after it answered is seen by the very next read. */
async function expectUncached(site: ContentSite, read: Read, collection: string, id: string, pick: (data: any) => unknown, field = 'title'): Promise<void> {
  for (const round of [1, 2, 3]) {
    const marker = `uncached ${round} ${Math.random()}`;
    expect((await read()).status).toBe(200);
    await behindTheBack(site, collection, id, field, marker);
    const answer = await read();
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(pick(answer.body.data)).toBe(marker);
  }
}

async function siteWithArticle(prefix = 'readcache'): Promise<{ site: ContentSite; article: any; path: string }> {
  const site = await createContentSite(service, prefix);
  const article = await createItem(site, 'articles', {
    title: 'Hello',
    body: 'Long text',
    views: 12,
    published_at: '2024-05-01T00:00:00Z',
    summary: { en: 'In short', fr: 'En bref' },
  });
  // The field index builder reloads the site's schema once its indexes are built: a new schema object,
  // which the answers cached before it do not count as current. Cached reads start after it.
  await settledIndexes(service, owner, site.siteId);
  return { site, article, path: `/items/articles/${article.id}` };
}

/** A member whose role has one policy with these read rules on articles. */
async function readerWith(site: ContentSite, rules: { collection?: string; fields: string[]; conditions?: Record<string, unknown> }[]) {
  const helpers = withHelpers(service, site);
  const role = await createRole(helpers);
  const policyId = await grant(
    helpers,
    { roleId: role.id },
    rules.map(({ collection = 'articles', ...rule }) => ({ collection, action: 'read', ...rule })),
  );
  const member = await createMember(service, site, { roleId: role.id });
  const read = (path: string, headers?: Record<string, string>) => service.request('GET', path, { site: site.siteId, token: member.token, ...(headers ? { headers } : {}) });
  return { member, policyId, helpers, read };
}

describe('what the cache serves', () => {
  it('serves a second read of the same item by the same reader with the same fields from the cache: same body, same ETag, JSON', async () => {
    const { site, article, path } = await siteWithArticle();
    const { first, second } = await cachedRead(site, () => site.call('GET', path), 'articles', article.id);
    expect(first.body.data).toMatchObject({ id: article.id, body: 'Long text', views: 12, comments: [] });
    expect(first.headers.get('etag')).toBe('"1"');
    expect(second.headers.get('etag')).toBe('"1"');
    expect(second.headers.get('content-type')).toBe(JSON_TYPE);
    expect(first.headers.get('content-type')).toBe(JSON_TYPE);
    // The row now holds the last direct change; the cache still answers what it was built with.
    const third = await site.call('GET', path);
    expect(third.body).toEqual(first.body);
    expect((await owner.query('SELECT data FROM items WHERE site_id = $1 AND id = $2', [site.siteId, article.id])).rows[0].data.title).not.toBe(first.body.data.title);
  });

  it('reads your writes: a PATCH retires the answer at once, and so does a write of another item of the site', async () => {
    const { site, article, path } = await siteWithArticle();
    await cachedRead(site, () => site.call('GET', path), 'articles', article.id);
    const patched = await site.call('PATCH', path, { title: 'Patched' });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const afterPatch = await site.call('GET', path);
    expect(afterPatch.body.data.title).toBe('Patched');
    expect(afterPatch.headers.get('etag')).toBe('"2"');
    expect(afterPatch.headers.get('content-type')).toBe(JSON_TYPE);

    // Site-level invalidation: the answer is retired by a write that does not touch the item.
    const { first } = await cachedRead(site, () => site.call('GET', path), 'articles', article.id, 'body');
    await behindTheBack(site, 'articles', article.id, 'body', 'seen after another write');
    expect((await site.call('GET', path)).body).toEqual(first.body);
    await createItem(site, 'comments', { text: 'unrelated' });
    const afterOther = await site.call('GET', path);
    expect(afterOther.body.data.body).toBe('seen after another write');
    expect(afterOther.body.data.title).toBe('Patched');
    expect(afterOther.headers.get('etag')).toBe('"2"');
  });

  it('does not cache nested fields, drafts, time travel or a collection with pii fields', async () => {
    const { site, article, path } = await siteWithArticle();
    const author = await createItem(site, 'authors', { name: 'Ann', email: 'ann@example.test' });
    expect((await site.call('PATCH', path, { author: author.id })).status).toBe(200);
    // The site is quiet (and plain reads of it are cached) before the reads that are not.
    await cachedRead(site, () => site.call('GET', path), 'articles', article.id);

    await expectUncached(site, () => site.call('GET', `${path}?fields=title,author.name`), 'articles', article.id, (data) => data.title);
    const nested = await site.call('GET', `${path}?fields=title,author.name`);
    expect(nested.body.data.author).toEqual({ name: 'Ann' });
    await expectUncached(site, () => site.call('GET', path, undefined, { 'x-svc-draft': 'true' }), 'articles', article.id, (data) => data.title);
    await expectUncached(site, () => site.call('GET', `${path}?asOf=${encodeURIComponent(new Date().toISOString())}`), 'articles', article.id, (data) => data.title);
    // A read that shows no pii value logs nothing (no event of the site retires anything): still not cached.
    await expectUncached(site, () => site.call('GET', `/items/authors/${author.id}?fields=name`), 'authors', author.id, (data) => data.name, 'name');
    await expectUncached(site, () => site.call('GET', `/items/authors/${author.id}`), 'authors', author.id, (data) => data.name, 'name');
  });

  it('never keeps an answer above 64 KiB: many locale tags or field lists of one large item cannot fill the memory', async () => {
    const site = await createContentSite(service, 'cache');
    const big = await createItem(site, 'articles', { title: 'Big', body: 'x'.repeat(70 * 1024) });
    await quiet();
    for (const locale of ['en-zz000001', 'en-zz000002']) {
      await expectUncached(site, () => site.call('GET', `/items/articles/${big.id}`, undefined, { 'x-svc-locale': locale }), 'articles', big.id, (data) => data.title);
    }
  });

  it('keeps each field selection and each locale as its own answer', async () => {
    const { site, article, path } = await siteWithArticle();
    const { first: titleOnly } = await cachedRead(site, () => site.call('GET', `${path}?fields=title`), 'articles', article.id);
    expect(titleOnly.body.data).toEqual({ title: expect.any(String) });
    const { first: titleAndViews } = await cachedRead(site, () => site.call('GET', `${path}?fields=title,views`), 'articles', article.id);
    expect(titleAndViews.body.data).toEqual({ title: expect.any(String), views: 12 });
    expect((await site.call('GET', `${path}?fields=title`)).body).toEqual(titleOnly.body);
    expect((await site.call('GET', `${path}?fields=title,views`)).body).toEqual(titleAndViews.body);

    const read = (locale?: string) => site.call('GET', `${path}?fields=summary`, undefined, locale ? { 'x-svc-locale': locale } : undefined);
    const summary = (marker: string) => ({ en: `In short, ${marker}`, fr: `En bref, ${marker}` });
    const { first: every } = await cachedRead(site, () => read(), 'articles', article.id, 'summary', summary);
    expect(every.body.data).toEqual({ summary: { en: expect.stringMatching(/^In short/), fr: expect.stringMatching(/^En bref/) } });
    const { first: french } = await cachedRead(site, () => read('fr'), 'articles', article.id, 'summary', summary);
    expect(french.body.data).toEqual({ summary: expect.stringMatching(/^En bref/) });
    const { first: english } = await cachedRead(site, () => read('en'), 'articles', article.id, 'summary', summary);
    expect(english.body.data).toEqual({ summary: expect.stringMatching(/^In short/) });
    expect((await read()).body).toEqual(every.body);
    expect((await read('fr')).body).toEqual(french.body);
  });
});

describe('who is served', () => {
  it('checks the reader before the cache: 403 without read permission, only the allowed fields, 401 anonymous', async () => {
    const { site, article, path } = await siteWithArticle();
    const nobody = await createMember(service, site);
    const { read } = await readerWith(site, [{ fields: ['id', 'title'] }]);
    const { first: adminAnswer } = await cachedRead(site, () => site.call('GET', path), 'articles', article.id);
    await behindTheBack(site, 'articles', article.id, 'title', 'Current title');
    expect((await site.call('GET', path)).body).toEqual(adminAnswer.body);

    const refused = await service.request('GET', path, { site: site.siteId, token: nobody.token });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].code).toBe('PERMISSION_DENIED');
    const narrow = await read(path);
    expect(narrow.status).toBe(200);
    expect(narrow.body.data).toEqual({ id: article.id, title: 'Current title' });
    expect((await read(`${path}?fields=title,body,views`)).body.data).toEqual({ title: 'Current title' });
    const anonymous = await service.request('GET', path, { site: site.siteId });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.errors[0].code).toBe('UNAUTHENTICATED');
    // The administrator's answer is still the cached one.
    expect((await site.call('GET', path)).body).toEqual(adminAnswer.body);
  });

  it('answers a reader whose grants changed with the new grants', async () => {
    const { site, article, path } = await siteWithArticle();
    const { read, policyId, helpers } = await readerWith(site, [{ fields: ['id', 'title'] }]);
    const { first } = await cachedRead(site, () => read(path), 'articles', article.id);
    expect(first.body.data).toEqual({ id: article.id, title: expect.any(String) });
    await behindTheBack(site, 'articles', article.id, 'title', 'Title after the grant');
    expect((await read(path)).body).toEqual(first.body);

    const added = await helpers.admin('POST', `/policies/${policyId}/permissions`, { collection: 'articles', action: 'read', fields: ['views'] });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const widened = await read(path);
    expect(widened.status).toBe(200);
    expect(widened.body.data).toEqual({ id: article.id, title: 'Title after the grant', views: 12 });
  });

  it('keeps sites apart: an id cached in one site is not found in another, even by the same kind of reader', async () => {
    const [first, second] = [await createContentSite(service, 'readcache-a'), await createContentSite(service, 'readcache-b')];
    // Anonymous readers (the public role) have the same key in every site: only the site tells them apart.
    for (const site of [first, second]) await grantPublic(withHelpers(service, site), [{ collection: 'articles', action: 'read', fields: ['id', 'title', 'body'] }]);
    const article = await createItem(first, 'articles', { id: 'shared-id', title: 'From A' });
    const path = `/items/articles/${article.id}`;
    const anonymous = (site: ContentSite) => () => service.request('GET', path, { site: site.siteId });
    const { first: adminOfA } = await cachedRead(first, () => first.call('GET', path), 'articles', article.id, 'body');
    const { first: publicOfA } = await cachedRead(first, anonymous(first), 'articles', article.id, 'body');
    expect(publicOfA.body.data).toEqual({ id: 'shared-id', title: 'From A', body: expect.any(String) });

    for (const read of [() => second.call('GET', path), anonymous(second)]) {
      const missing = await read();
      expect(missing.status).toBe(404);
      expect(missing.body.errors[0].code).toBe('RECORD_NOT_FOUND');
    }
    // A's token does not read B.
    const crossed = await service.request('GET', path, { site: second.siteId, token: first.adminToken });
    expect(crossed.status).toBe(401);
    expect(crossed.body.errors[0].code).toBe('UNAUTHENTICATED');

    // B's own item of the same id; A's answers are not retired by B's write.
    await createItem(second, 'articles', { id: 'shared-id', title: 'From B' });
    expect((await second.call('GET', path)).body.data.title).toBe('From B');
    expect((await anonymous(second)()).body.data).toEqual({ id: 'shared-id', title: 'From B', body: null });
    expect((await first.call('GET', path)).body).toEqual(adminOfA.body);
    expect((await anonymous(first)()).body).toEqual(publicOfA.body);
  });

  it('does not cache for a reader whose read rules use $NOW', async () => {
    const { site, article, path } = await siteWithArticle();
    const { read } = await readerWith(site, [{ fields: ['*'], conditions: { published_at: { _lte: '$NOW' } } }]);
    await cachedRead(site, () => site.call('GET', path), 'articles', article.id);
    await expectUncached(site, () => read(path), 'articles', article.id, (data) => data.title);
    await expectUncached(site, () => read(`${path}?fields=title`), 'articles', article.id, (data) => data.title);
  });

  it('does not cache for a reader whose read rules use $NOW on a related collection the answer lists (o2m comments)', async () => {
    const { site, article, path } = await siteWithArticle();
    const comment = await createItem(site, 'comments', { article: article.id, text: 'First!' });
    const { read } = await readerWith(site, [{ fields: ['*'] }, { collection: 'comments', fields: ['*'], conditions: { createdAt: { _lte: '$NOW' } } }]);
    const answer = await read(path);
    expect(answer.body.data.comments).toEqual([comment.id]);
    await cachedRead(site, () => site.call('GET', `${path}?fields=title`), 'articles', article.id);
    // Which comments the answer lists changes with the clock alone: the answer is not cacheable.
    await expectUncached(site, () => read(path), 'articles', article.id, (data) => data.title);
  });
});

describe('instances and configuration', () => {
  it('retires a second instance\'s answer when the first instance\'s write notification reaches it', async () => {
    const other = await startTestService();
    try {
      const { site, article, path } = await siteWithArticle();
      const readThere = () => other.request('GET', path, { site: site.siteId, token: site.adminToken });
      const { first } = await cachedRead(site, readThere, 'articles', article.id, 'body', undefined, [service, other]);
      expect(first.headers.get('etag')).toBe('"1"');
      expect((await site.call('PATCH', path, { title: 'Patched on the first' })).status).toBe(200);
      await vi.waitFor(
        async () => {
          const answer = await readThere();
          expect(answer.body.data.title).toBe('Patched on the first');
          expect(answer.headers.get('etag')).toBe('"2"');
        },
        { timeout: 10_000, interval: 20 },
      );
      // And it caches again afterwards.
      await cachedRead(site, readThere, 'articles', article.id, 'body', undefined, [service, other]);
    } finally {
      await other.close();
    }
  });

  it('holds at most its bytes: the oldest answer not served since goes first, and a new schema or grants object is a miss', async () => {
    const cache = createItemReadCache(service.context, { maxEntries: 100, maxBytes: 25, maxAnswerBytes: 10 });
    try {
      const siteId = uniqueSiteId('bytes');
      const basis = { grants: { roleChain: [], roleId: null, teamIds: [], rules: [] }, schema: await service.context.schemas.site(siteId) };
      const store = (key: string, body: string) => cache.begin(siteId)(key, basis, { body, version: 1 });
      store('a', '0123456789');
      store('b', '0123456789');
      store('too large', '0123456789A');
      expect([cache.size, cache.bytes]).toEqual([2, 20]);
      expect(cache.get(siteId, 'a', basis)?.body).toBe('0123456789');
      // 'a' was served since it was stored: 'b' goes first, then 'a' is spared once.
      store('c', '0123456789');
      expect([cache.get(siteId, 'b', basis), cache.size, cache.bytes]).toEqual([null, 2, 20]);
      expect(cache.get(siteId, 'a', { ...basis, grants: { ...basis.grants } })).toBeNull();
      expect(cache.get(siteId, 'c', { ...basis, schema: { ...basis.schema } })).toBeNull();
      expect([cache.size, cache.bytes]).toEqual([0, 0]);
    } finally {
      cache.close();
    }
  });

  it('serves every read from the database with SVC_ITEM_READ_CACHE=0', async () => {
    const off = await startTestService({ SVC_ITEM_READ_CACHE: '0' });
    try {
      const { site, article, path } = await siteWithArticle();
      // The same reads are cached by the instance whose cache is on.
      await cachedRead(site, () => site.call('GET', path), 'articles', article.id);
      const readThere = () => off.request('GET', path, { site: site.siteId, token: site.adminToken });
      await expectUncached(site, readThere, 'articles', article.id, (data) => data.title);
      const answer = await readThere();
      expect(answer.headers.get('etag')).toBe('"1"');
      expect(answer.headers.get('content-type')).toBe(JSON_TYPE);
    } finally {
      await off.close();
    }
  });
});
