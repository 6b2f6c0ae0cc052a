// The caching table of public delivery (docs/delivery.md "Caching") over real HTTP, PostgreSQL
// and Redis: what each answer says to shared caches, 304 for the current ETag, the ETag rotating on
// every write (and on what a write changes later: a commit out of log order, the async search index),
// the per-IP rate limit, the negative cache, the response cache (a hot page costs no statement;
// shared through Redis by two instances on one database), POST /utils/cache/purge, and llms.txt
// links never cached for the Host of whoever asked first.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { openOwnerDatabaseForFile, connectOwnerClientForFile } from '../../support/databases.ts';
import { startTestService, startTestServiceForFile, type TestService } from '../../support/testService.ts';
import { createMember, grant } from '../access/support.ts';
import { REDIS_URL, until } from '../cdc/support.ts';
import { createArticle, createDeliverySite, createPage, deliver, expectMiss, fewestStatements, MISS, publicRoleId, statementsOf, type DeliverySite } from './support.ts';

// Two instances on the test run's database and one Redis.
const first = await startTestServiceForFile({ REDIS_URL });
const second = await startTestServiceForFile({ REDIS_URL });
const owner = openOwnerDatabaseForFile();
const ownerClient = await connectOwnerClientForFile();

const PUBLIC_CACHE_CONTROL = 'public, s-maxage=60, stale-while-revalidate=300';

async function siteWithHome(service: TestService = first): Promise<DeliverySite & { pageId: string; path: string }> {
  const site = await createDeliverySite(service);
  await createArticle(site, { title: 'First', author: site.authors.ada });
  const layoutConfig = { blocks: [{ key: 'latest', collection: 'articles', sort: ['title'], fields: ['title', 'author.name'] }] };
  const page = await createPage(site, { slug: 'home', title: 'Home', layoutConfig });
  const path = `/deliver/page/${site.siteId}/home`;
  // Other test files write to the same database: until transactions older than the site's last event
  // end, the site is unsettled (its ETag never repeats) and nothing is cached. Wait for two answers in
  // a row with the same ETag (the ETag is opaque: nothing in it says settled).
  // Another file's bulk load can hold a transaction for seconds on a busy machine: wait up to a minute.
  let previous: string | null = null;
  const settled = await until(
    async () => {
      const answer = await deliver(service, path);
      const etag = answer.status === 200 ? answer.headers.get('etag') : null;
      const repeated = etag !== null && etag === previous;
      previous = etag;
      return repeated;
    },
    (repeated) => repeated,
    60_000,
  );
  expect(settled, 'the site never settled').toBe(true);
  return { ...site, pageId: page.id, path };
}

/** Changes a page's title in the read model behind the service's back: no event, so no fingerprint change. */
async function retitleBehindTheBack(siteId: string, pageId: string, title: string): Promise<void> {
  await owner.query(sql`UPDATE pages SET title = ${title} WHERE site_id = ${siteId} AND id = ${pageId}`);
}

describe('the caching table', () => {
  it('answers anonymous callers publicly with a weak ETag, Vary: X-Svc-Site and surrogate keys', async () => {
    const site = await siteWithHome();
    const { siteId } = site;
    const page = await deliver(first, site.path);
    expect(page.status, page.text).toBe(200);
    expect(page.headers.get('cache-control')).toBe(PUBLIC_CACHE_CONTROL);
    const etag = page.headers.get('etag');
    expect(etag).toMatch(/^W\/".+"$/);
    expect(page.headers.get('vary')).toBe('X-Svc-Site');
    const pageTags = [`site:${siteId}`, `page:${siteId}/home`, `collection:${siteId}/articles`];
    expect(page.headers.get('surrogate-key')?.split(' ').sort()).toEqual(pageTags.sort());
    expect(page.headers.get('cache-tag')?.split(',').sort()).toEqual(pageTags.sort());

    const list = await deliver(first, '/deliver/items/authors', { 'x-svc-site': siteId });
    expect(list.headers.get('cache-control')).toBe(PUBLIC_CACHE_CONTROL);
    expect(list.headers.get('surrogate-key')?.split(' ').sort()).toEqual([`collection:${siteId}/authors`, `site:${siteId}`]);
    // Every URL of a site shares the site's fingerprint.
    expect(list.headers.get('etag')).toBe(etag);
    expect((await deliver(first, `/deliver/llms.txt/${siteId}`)).headers.get('etag')).toBe(etag);
  });

  it('makes any answer to a request with Authorization private: no-store, no ETag, no surrogate keys', async () => {
    const site = await siteWithHome();
    const etag = (await deliver(first, site.path)).headers.get('etag')!;
    for (const authorization of [`Bearer ${site.adminToken}`, 'Bearer not-a-token', 'Basic Zm9vOmJhcg==']) {
      const answer = await deliver(first, site.path, { authorization, 'if-none-match': etag });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('private, no-store');
      expect(answer.headers.get('etag')).toBeNull();
      expect(answer.headers.get('surrogate-key')).toBeNull();
      expect(answer.headers.get('cache-tag')).toBeNull();
      // Still read as the public role.
      expect(answer.json.data.blocks.latest.items).toEqual([{ title: 'First', author: { name: 'Ada' } }]);
    }
  });

  it('answers a miss, an invalid site id and an invalid slug with one 404 body, no-store', async () => {
    const site = await siteWithHome();
    const misses = [
      `/deliver/page/${site.siteId}/nothing`,
      '/deliver/page/no-such-site/home',
      '/deliver/page/NOT%20A%20SITE!/home',
      `/deliver/page/${site.siteId}/Upper`,
      `/deliver/page/${site.siteId}/a//b`,
      `/deliver/page/${site.siteId}/a--b`,
      `/deliver/page/${site.siteId}/${'a'.repeat(201)}`,
      `/deliver/page/${site.siteId}/%C3%A9t%C3%A9`,
      `/deliver/page/${site.siteId}/`,
    ];
    for (const path of misses) {
      const answer = await deliver(first, path);
      expectMiss(answer);
      expect(answer.text).toBe(JSON.stringify(MISS));
    }
    expectMiss(await deliver(first, '/deliver/page/Upper', { 'x-svc-site': site.siteId }));
    expectMiss(await deliver(first, '/deliver/page/home', { 'x-svc-site': 'no-such-site' }));
    expectMiss(await deliver(first, '/deliver/page/home', { 'x-svc-site': 'NOT A SITE!' }));
    expectMiss(await deliver(first, `/deliver/page/${site.siteId}/nothing`, { authorization: 'Bearer x' }));
  });

  it('answers 304 with an empty body to If-None-Match holding the current ETag (weak comparison, lists, *)', async () => {
    const site = await siteWithHome();
    const etag = (await deliver(first, site.path)).headers.get('etag')!;
    for (const ifNoneMatch of [etag, etag.slice(2), `W/"other", ${etag}`, '*']) {
      // Node's fetch, as a standard client: it must be handed the 304 itself.
      const response = await fetch(`${first.url}/api/v1${site.path}`, { headers: { 'if-none-match': ifNoneMatch } });
      expect(response.status, ifNoneMatch).toBe(304);
      expect(await response.text()).toBe('');
      expect(response.headers.get('etag')).toBe(etag);
      expect(response.headers.get('cache-control')).toBe(PUBLIC_CACHE_CONTROL);
    }
    const stale = await deliver(first, site.path, { 'if-none-match': 'W/"someone-else.1"' });
    expect(stale.status).toBe(200);
    expect(stale.json.data.title).toBe('Home');
  });

  it('answers a miss with a miss even to If-None-Match, and gives it no ETag', async () => {
    const site = await siteWithHome();
    const etag = (await deliver(first, site.path)).headers.get('etag')!;
    // RFC 9110 13.2.1: preconditions are ignored when the answer without them would not be a 2xx.
    for (const ifNoneMatch of [etag, '*']) {
      expectMiss(await deliver(first, `/deliver/page/${site.siteId}/nothing`, { 'if-none-match': ifNoneMatch }));
      expectMiss(await deliver(first, '/deliver/items/nothing_here', { 'x-svc-site': site.siteId, 'if-none-match': ifNoneMatch }));
      expectMiss(await deliver(first, '/deliver/menu/nothing', { 'x-svc-site': site.siteId, 'if-none-match': ifNoneMatch }));
    }
    // A real miss tells no more than an invalid site id (which has no ETag): not the site's fingerprint.
    const miss = await deliver(first, `/deliver/page/${site.siteId}/nothing`);
    expectMiss(miss);
    expect(miss.headers.get('etag')).toBeNull();
  });

  describe('over SVC_DELIVER_RATE_LIMIT per client IP', () => {
    let limited: TestService;
    beforeAll(async () => {
      // In memory (no REDIS_URL): its counters are its own. Client IPs from X-Forwarded-For.
      limited = await startTestService({ SVC_DELIVER_RATE_LIMIT: '3', SVC_TRUST_PROXY: 'true' });
    });
    afterAll(async () => {
      await limited?.close();
    });

    it('answers 429 RATE_LIMITED with Retry-After, no-store, to that IP only', async () => {
      const site = await siteWithHome(limited);
      const ip = `198.51.100.${Math.floor(Math.random() * 200) + 1}`;
      const from = (address: string) => ({ 'x-forwarded-for': address });
      expect((await deliver(limited, site.path, from(ip))).status).toBe(200);
      expectMiss(await deliver(limited, `/deliver/page/${site.siteId}/nothing`, from(ip)));
      expect((await deliver(limited, '/deliver/items/articles', { ...from(ip), 'x-svc-site': site.siteId })).status).toBe(200);
      for (const path of [site.path, '/deliver/menu/main', `/deliver/llms.txt/${site.siteId}`]) {
        const refused = await deliver(limited, path, { ...from(ip), 'x-svc-site': site.siteId });
        expect(refused.status, refused.text).toBe(429);
        expect(refused.json.errors[0].code).toBe('RATE_LIMITED');
        expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
        expect(refused.headers.get('cache-control')).toBe('no-store');
        expect(refused.headers.get('etag')).toBeNull();
      }
      const withToken = await deliver(limited, site.path, { ...from(ip), authorization: `Bearer ${site.adminToken}` });
      expect(withToken.status).toBe(429);
      expect(withToken.headers.get('cache-control')).toBe('no-store');
      expect((await deliver(limited, site.path, from('203.0.113.77'))).status).toBe(200);
    });
  });
});

describe('the ETag', () => {
  it('rotates on an item write, a page change, a setting and a release publish, and stays while nothing changes', async () => {
    const site = await siteWithHome();
    const etagOf = async () => {
      const answer = await deliver(first, site.path);
      expect(answer.status, answer.text).toBe(200);
      return { etag: answer.headers.get('etag')!, data: answer.json.data };
    };
    const seen = new Set<string>();
    const rotated = async () => {
      const now = await etagOf();
      expect(seen.has(now.etag), `${now.etag} seen before`).toBe(false);
      seen.add(now.etag);
      return now;
    };
    await rotated();
    const unchanged = (await etagOf()).etag;
    expect(seen.has(unchanged)).toBe(true);
    // A PATCH that repeats the page records nothing: the ETag stays.
    expect((await site.admin('PATCH', `/pages/${site.pageId}`, { title: 'Home' })).status).toBe(200);
    expect((await etagOf()).etag).toBe(unchanged);

    const second_ = await createArticle(site, { title: 'Second', author: site.authors.bob });
    expect((await rotated()).data.blocks.latest.items).toHaveLength(2);
    expect((await site.admin('PATCH', `/items/articles/${second_}`, { title: 'Second, edited' })).status).toBe(200);
    expect((await rotated()).data.blocks.latest.items[1].title).toBe('Second, edited');
    expect((await site.admin('DELETE', `/items/articles/${second_}`)).status).toBe(204);
    expect((await rotated()).data.blocks.latest.items).toHaveLength(1);
    expect((await site.admin('PATCH', `/pages/${site.pageId}`, { title: 'Welcome' })).status).toBe(200);
    expect((await rotated()).data.title).toBe('Welcome');
    expect((await site.admin('PUT', '/settings/menus', { value: { main: { items: [{ label: 'Home', page: 'home' }] } } })).status).toBe(200);
    await rotated();

    const draft = (await site.admin('POST', '/items/articles', { title: 'Launch', status: 'draft' })).body.data.id as string;
    const release = await site.admin('POST', '/releases', { name: 'Launch', addItems: [{ collection: 'articles', itemId: draft, targetStatus: 'published' }] });
    expect(release.status, JSON.stringify(release.body)).toBe(201);
    expect((await rotated()).data.blocks.latest.items.map((item: { title: string }) => item.title)).toEqual(['First']);
    const published = await site.admin('POST', `/releases/${release.body.data.id}/publish`);
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect((await rotated()).data.blocks.latest.items.map((item: { title: string }) => item.title)).toEqual(['First', 'Launch']);
    // A client holding the old ETag gets the new page, not a 304.
    const old = [...seen][0]!;
    expect((await deliver(first, site.path, { 'if-none-match': old })).status).toBe(200);
  });

  it('rotates for a write that commits after a later write of the same site', { timeout: 30_000 }, async () => {
    const site = await siteWithHome();
    const before = await deliver(first, site.path);
    let meanwhileEtag = '';
    // Hold the page's row: the PATCH appends its event (taking its log position), then waits.
    await ownerClient.query('BEGIN');
    let patch: Promise<{ status: number }> | null = null;
    try {
      await ownerClient.query('SELECT 1 FROM pages WHERE id = $1 FOR UPDATE', [site.pageId]);
      patch = site.admin('PATCH', `/pages/${site.pageId}`, { title: 'Late title' });
      await until(
        async () => (await owner.query<{ n: number }>(sql`
          SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%UPDATE pages SET%'`))[0]!.n,
        (waiting) => waiting > 0,
      );
      // A later write of the site commits first, and a visitor reads the page meanwhile.
      await createArticle(site, { title: 'Meanwhile', author: site.authors.bob });
      const meanwhile = await deliver(first, site.path);
      expect(meanwhile.json.data).toMatchObject({ title: 'Home', blocks: { latest: { items: [{ title: 'First' }, { title: 'Meanwhile' }] } } });
      meanwhileEtag = meanwhile.headers.get('etag')!;
      expect(meanwhileEtag).not.toBe(before.headers.get('etag'));
    } finally {
      await ownerClient.query('COMMIT');
    }
    expect((await patch!).status).toBe(200);
    const after = await deliver(first, site.path);
    expect(after.json.data.title).toBe('Late title');
    expect(after.headers.get('etag')).not.toBe(meanwhileEtag);
    expect((await deliver(first, site.path, { 'if-none-match': meanwhileEtag })).status).toBe(200);
  });
});

describe('the negative cache', () => {
  it('remembers a missed slug, and forgets it at once when that page is created', async () => {
    const site = await siteWithHome();
    const path = `/deliver/page/${site.siteId}/soon`;
    expectMiss(await deliver(first, path));
    // Remembered: no statement (the fewest of a few runs: the echo of the site's last NOTIFY may drop the fingerprint once).
    expectMiss(await deliver(first, path));
    expect(await fewestStatements(first, () => deliver(first, path), 3)).toBe(0);
    expectMiss(await deliver(first, '/deliver/page/soon', { 'x-svc-site': site.siteId }));

    await createPage(site, { slug: 'soon', title: 'Soon' });
    const created = await deliver(first, path);
    expect(created.status, created.text).toBe(200);
    expect(created.json.data.title).toBe('Soon');
    expect((await deliver(first, '/deliver/page/soon', { 'x-svc-site': site.siteId })).status).toBe(200);
  });

  it('forgets a missed slug at once when a page is renamed to it, on this instance and on another', async () => {
    const site = await siteWithHome();
    const path = `/deliver/page/${site.siteId}/renamed`;
    expectMiss(await deliver(first, path));
    expectMiss(await deliver(second, path));
    expect((await site.admin('PATCH', `/pages/${site.pageId}`, { slug: 'renamed' })).status).toBe(200);
    const renamed = await deliver(first, path);
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json.data).toMatchObject({ slug: 'renamed', title: 'Home' });
    expectMiss(await deliver(first, site.path));
    // The other instance hears of the write through NOTIFY.
    const there = await until(() => deliver(second, path), (answer) => answer.status === 200);
    expect(there.json.data.slug).toBe('renamed');
  });
});

describe('the response cache', () => {
  it('serves a hot page, list and menu with no SQL statement, and builds again after a write', async () => {
    const site = await siteWithHome();
    expect((await site.admin('PUT', '/settings/menus', { value: { main: { items: [{ label: 'Home', page: 'home' }] } } })).status).toBe(200);
    const headers = { 'x-svc-site': site.siteId };
    for (const [path, sent] of [[site.path, {}], ['/deliver/items/articles?fields=title&sort=title', headers], ['/deliver/menu/main', headers], ['/deliver/page/home', headers]] as const) {
      const cold = await deliver(first, path, sent);
      expect(cold.status, `${path}: ${cold.text}`).toBe(200);
      const hot = await deliver(first, path, sent);
      expect(hot.text).toBe(cold.text);
      expect(hot.headers.get('surrogate-key')).toBe(cold.headers.get('surrogate-key'));
      // Once the site is settled again after the menu's write (other files' transactions may hold it open).
      expect(await until(() => fewestStatements(first, () => deliver(first, path, sent), 3), (statements) => statements === 0), path).toBe(0);
    }
    await createArticle(site, { title: 'Fresh', author: site.authors.bob });
    const rebuilt = await statementsOf(first, () => deliver(first, site.path));
    expect(rebuilt.statements).toBeGreaterThan(0);
    expect(rebuilt.result.json.data.blocks.latest.items.map((item: { title: string }) => item.title)).toEqual(['First', 'Fresh']);
  });

  it('lets another instance on the same database serve the answer one instance cached (Redis)', async () => {
    const site = await siteWithHome();
    expect((await deliver(first, site.path)).json.data.title).toBe('Home');
    await retitleBehindTheBack(site.siteId, site.pageId, 'Changed behind the back');
    // The second instance has never built this answer: it takes the first's from Redis.
    const shared = await deliver(second, site.path);
    expect(shared.status, shared.text).toBe(200);
    expect(shared.json.data.title).toBe('Home');
    // What it would build now (with Authorization, never cached) is the changed row.
    expect((await deliver(second, site.path, { authorization: 'Bearer x' })).json.data.title).toBe('Changed behind the back');
  });
});

describe('what the fingerprint must see', () => {
  it('drops a cached page at once when the public role gains or loses a collection', async () => {
    const site = await createDeliverySite(first, { open: false });
    await createArticle(site, { title: 'First' });
    await createPage(site, { slug: 'home', title: 'Home', layoutConfig: { blocks: [{ key: 'all', collection: 'articles', fields: ['title'] }] } });
    const path = `/deliver/page/${site.siteId}/home`;
    const headers = { 'x-svc-site': site.siteId };
    expect((await deliver(first, path)).json.data.blocks.all.items).toEqual([]);

    const policyId = await grant(site, { roleId: await publicRoleId(site) }, [{ collection: 'articles', action: 'read', fields: ['title'] }]);
    expect((await deliver(first, path)).json.data.blocks.all.items).toEqual([{ title: 'First' }]);
    expect((await deliver(first, '/deliver/items/articles?fields=title', headers)).json.data).toEqual([{ title: 'First' }]);

    expect((await site.admin('DELETE', `/policies/${policyId}`)).status).toBe(204);
    expect((await deliver(first, path)).json.data.blocks.all.items).toEqual([]);
    expectMiss(await deliver(first, '/deliver/items/articles?fields=title', headers));
    await until(() => deliver(second, path), (answer) => answer.json.data.blocks.all.items.length === 0);
  });

  it('does not keep a search result built before the search index caught up with the write', { timeout: 30_000 }, async () => {
    const site = await siteWithHome();
    // A search needs read on every field of the collection.
    await grant(site, { roleId: await publicRoleId(site) }, [{ collection: 'articles', action: 'read', fields: ['*'] }]);
    const headers = { 'x-svc-site': site.siteId };
    const path = '/deliver/items/articles?fields=title&search=zebra';
    await first.context.daemon.drain();
    expect((await deliver(first, path, headers)).json.data).toEqual([]);
    // The search index is an async read model: hold its table so the daemons cannot apply the write yet.
    await ownerClient.query('BEGIN');
    try {
      await ownerClient.query('LOCK TABLE search_documents IN EXCLUSIVE MODE');
      await createArticle(site, { title: 'Zebra crossing' });
      expect((await deliver(first, path, headers)).json.data).toEqual([]);
    } finally {
      await ownerClient.query('COMMIT');
    }
    await first.context.daemon.drain();
    expect((await site.admin('GET', '/items/articles?fields=title&search=zebra')).body.data).toEqual([{ title: 'Zebra crossing' }]);
    const caughtUp = await deliver(first, path, headers);
    expect(caughtUp.json.data).toEqual([{ title: 'Zebra crossing' }]);
  });
});

describe('POST /utils/cache/purge', () => {
  it('is for site administrators only', async () => {
    const site = await siteWithHome();
    const body = { tags: [`site:${site.siteId}`] };
    const anonymous = await first.request('POST', '/utils/cache/purge', { site: site.siteId, body });
    expect([anonymous.status, anonymous.body.errors[0].code]).toEqual([401, 'UNAUTHENTICATED']);
    const member = await createMember(first, site);
    const refused = await first.request('POST', '/utils/cache/purge', { site: site.siteId, token: member.token, body });
    expect([refused.status, refused.body.errors[0].code]).toEqual([403, 'PERMISSION_DENIED']);
  });

  it('refuses the whole purge when one tag or key lacks the site id, and purges nothing', async () => {
    const site = await siteWithHome();
    await deliver(first, site.path);
    await retitleBehindTheBack(site.siteId, site.pageId, 'Changed behind the back');
    const bad = [
      [{ tags: [`page:${site.siteId}/home`, 'page:other-site/home'] }, ['body', 'tags', 1]],
      [{ tags: [`site:${site.siteId}`], keys: [`${site.siteId}:/api/v1${site.path}`, '/api/v1/deliver/page/x/home', 'y'] }, ['body', 'keys', 1]],
      [{ keys: ['nothing'] }, ['body', 'keys', 0]],
    ] as const;
    for (const [body, path] of bad) {
      const refused = await site.admin('POST', '/utils/cache/purge', body);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path });
    }
    expect((await deliver(first, site.path)).json.data.title).toBe('Home');
    expect(await fewestStatements(first, () => deliver(first, site.path), 3)).toBe(0);
  });

  it('drops the answers carrying a tag, on this instance and on another, so the next GET builds again', async () => {
    const site = await siteWithHome();
    expect((await deliver(first, site.path)).json.data.title).toBe('Home');
    expect((await deliver(second, site.path)).json.data.title).toBe('Home');
    await retitleBehindTheBack(site.siteId, site.pageId, 'Purged by tag');
    expect((await deliver(first, site.path)).json.data.title).toBe('Home');

    const purged = await site.admin('POST', '/utils/cache/purge', { tags: [`page:${site.siteId}/home`] });
    expect(purged.status, JSON.stringify(purged.body)).toBe(200);
    expect(purged.body).toEqual({ data: { tags: [`page:${site.siteId}/home`], keys: [] } });
    const rebuilt = await statementsOf(first, () => deliver(first, site.path));
    expect(rebuilt.statements).toBeGreaterThan(0);
    expect(rebuilt.result.json.data.title).toBe('Purged by tag');
    await until(() => deliver(second, site.path), (answer) => answer.json.data.title === 'Purged by tag');
  });

  it('drops the answer stored under a key, and the remembered misses of the site', async () => {
    const site = await siteWithHome();
    await deliver(first, site.path);
    const missing = `/deliver/page/${site.siteId}/nothing`;
    expectMiss(await deliver(first, missing));
    // Behind the service's back: the page is retitled and the missed slug appears; both stay unseen.
    await retitleBehindTheBack(site.siteId, site.pageId, 'Purged by key');
    await owner.query(sql`INSERT INTO pages (site_id, id, slug, title, layout_config, created_at, updated_at)
      VALUES (${site.siteId}, gen_random_uuid(), 'nothing', 'Found', NULL, now(), now())`);
    expect((await deliver(first, site.path)).json.data.title).toBe('Home');
    expectMiss(await deliver(first, missing));

    const purged = await site.admin('POST', '/utils/cache/purge', { keys: [`${site.siteId}:/api/v1${site.path}`] });
    expect(purged.status, JSON.stringify(purged.body)).toBe(200);
    expect(purged.body).toEqual({ data: { tags: [], keys: [`${site.siteId}:/api/v1${site.path}`] } });
    expect((await deliver(first, site.path)).json.data.title).toBe('Purged by key');
    expect((await deliver(first, missing)).json.data).toMatchObject({ slug: 'nothing', title: 'Found' });
  });
});

describe('llms.txt and the Host header', () => {
  /** A GET with a Host header of our choosing (fetch does not let a caller set it). */
  function getWithHost(service: TestService, path: string, host: string): Promise<string> {
    const url = new URL(`${service.url}/api/v1${path}`);
    return new Promise((resolve, reject) => {
      const request = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, headers: { host } }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve(text));
      });
      request.on('error', reject);
      request.end();
    });
  }

  it('never builds links from the Host header, so none can be cached for another host', async () => {
    const site = await siteWithHome();
    const path = `/deliver/llms.txt/${site.siteId}`;
    const poisoned = await getWithHost(first, path, 'attacker.example');
    expect(poisoned).not.toContain('attacker.example');
    expect(poisoned).toContain(`](/api/v1/deliver/page/${site.siteId}/home)`);
    const visitor = await deliver(first, path);
    expect(visitor.status).toBe(200);
    expect(visitor.text).toBe(poisoned);
  });
});
