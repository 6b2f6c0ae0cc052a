// Public delivery over real HTTP and PostgreSQL (docs/delivery.md): a page hydrated with the
// items its layout references, as the public role and in a number of statements that does not grow
// with the items; public lists with the query language; menus; llms.txt; and one site's pages,
// items and public rules never reaching another site. The caching table is deliveryCaching.e2e.spec.ts.
import { describe, expect, it } from 'vitest';
import { createCollection } from '../../support/contentModel.ts';
import { createTestSite, INSTANCE_TOKEN, startTestServiceForFile } from '../../support/testService.ts';
import { createItem, withHelpers } from '../access/support.ts';
import { createArticle, createDeliverySite, createPage, deliver, expectMiss, fewestStatements, grantPublic } from './support.ts';

const service = await startTestServiceForFile();

const PRIVATE = { authorization: 'Bearer not-checked-by-delivery' };

describe('GET /deliver/page/:site_id/:slug', () => {
  it('hydrates every block as the public role: lists, single items, relations, masks and refusals', async () => {
    const site = await createDeliverySite(service);
    const { ada, bob } = site.authors;
    const news = await createArticle(site, { title: 'News 1', category: 'news', rating: 5, body: 'secret body', author: ada });
    await createArticle(site, { title: 'News 2', category: 'news', rating: 3, author: bob });
    await createArticle(site, { title: 'Sport 1', category: 'sport', author: ada });
    const draft = await createArticle(site, { title: 'Draft', category: 'news', status: 'draft', author: ada });
    await createCollection(service, site, 'notes', [{ field: 'text', type: 'string' }]);
    const note = (await createItem(site, 'notes', { text: 'internal' })).id as string;
    const layoutConfig = {
      theme: 'dark',
      blocks: [
        { key: 'hero', type: 'hero', props: { heading: 'Welcome' } },
        { key: 'latest', collection: 'articles', filter: { category: { _eq: 'news' } }, sort: ['-title'], limit: 5, fields: ['title', 'author.name'] },
        { key: 'everything', collection: 'articles', sort: ['title'] },
        { key: 'featured', collection: 'articles', id: news, fields: ['title', 'author.name', 'author.email'] },
        { key: 'unpublished', collection: 'articles', id: draft },
        { key: 'notes', collection: 'notes' },
        { key: 'note', collection: 'notes', id: note },
        { key: 'gone', collection: 'articles', filter: { no_such_field: { _eq: 1 } } },
      ],
    };
    const page = await createPage(site, { slug: 'home', title: 'Home', layoutConfig });

    const answer = await deliver(service, `/deliver/page/${site.siteId}/home`);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const { data } = answer.json;
    expect(data).toMatchObject({ id: page.id, slug: 'home', title: 'Home', layoutConfig, updatedAt: expect.any(String) });
    // Static blocks stay in the layout only; each reading block is keyed by its key.
    expect(Object.keys(data.blocks).sort()).toEqual(['everything', 'featured', 'gone', 'latest', 'note', 'notes', 'unpublished']);
    expect(data.blocks.latest).toEqual({
      collection: 'articles',
      items: [
        { title: 'News 2', author: { name: 'Bob' } },
        { title: 'News 1', author: { name: 'Ada' } },
      ],
    });
    // No `fields`: every field the public role may read, of published articles only.
    const everything = data.blocks.everything.items as Record<string, unknown>[];
    expect(everything.map((item) => item.title)).toEqual(['News 1', 'News 2', 'Sport 1']);
    for (const item of everything) {
      expect(Object.keys(item).sort()).toEqual(['author', 'category', 'id', 'status', 'title']);
    }
    expect(data.blocks.featured.item).toMatchObject({ title: 'News 1', author: { name: 'Ada' } });
    expect(JSON.stringify(data.blocks.featured)).not.toContain('ada@example.com');
    expect(data.blocks.unpublished).toEqual({ collection: 'articles', item: null });
    expect(data.blocks.notes).toEqual({ collection: 'notes', items: [] });
    expect(data.blocks.note).toEqual({ collection: 'notes', item: null });
    // A filter that no longer fits the collection: empty, with REST's code.
    expect(data.blocks.gone).toEqual({ collection: 'articles', items: [], error: 'VALIDATION_FAILED' });
    expect(answer.text).not.toContain('secret body');
    expect(answer.text).not.toContain('internal');
    expect(answer.text).not.toContain('Draft');
  });

  it('serves slugs with "/" in the long form and in the short form with X-Svc-Site', async () => {
    const site = await createDeliverySite(service);
    await createArticle(site, { title: 'Intro', category: 'docs' });
    await createPage(site, { slug: 'docs/intro', title: 'Intro', layoutConfig: { blocks: [{ key: 'docs', collection: 'articles', fields: ['title'] }] } });
    await createPage(site, { slug: 'docs', title: 'Docs' });

    const long = await deliver(service, `/deliver/page/${site.siteId}/docs/intro`);
    expect(long.status, long.text).toBe(200);
    expect(long.json.data).toMatchObject({ slug: 'docs/intro', blocks: { docs: { items: [{ title: 'Intro' }] } } });
    const short = await deliver(service, '/deliver/page/docs/intro', { 'x-svc-site': site.siteId });
    expect(short.status, short.text).toBe(200);
    expect(short.json.data).toEqual(long.json.data);
    // With X-Svc-Site, a path that starts with that very site's id is the long form.
    const both = await deliver(service, `/deliver/page/${site.siteId}/docs/intro`, { 'x-svc-site': site.siteId });
    expect(both.json.data?.slug).toBe('docs/intro');
    const oneSegment = await deliver(service, '/deliver/page/docs', { 'x-svc-site': site.siteId });
    expect(oneSegment.json.data).toMatchObject({ slug: 'docs', title: 'Docs', layoutConfig: null, blocks: {} });

    expectMiss(await deliver(service, `/deliver/page/${site.siteId}/docs/intro/more`));
    expectMiss(await deliver(service, '/deliver/page/docs/nothing', { 'x-svc-site': site.siteId }));
    // The short form without a site is a miss, not an error about the header.
    expectMiss(await deliver(service, '/deliver/page/docs'));
  });

  it('runs as many SQL statements for a block of 50 items with their authors as for 5', { timeout: 60_000 }, async () => {
    const site = await createDeliverySite(service);
    const { ada, bob } = site.authors;
    const bulk = await site.admin('POST', '/items/articles', Array.from({ length: 60 }, (_, index) => ({ title: `Bulk ${index}`, status: 'published', author: index % 2 ? ada : bob })));
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(201);
    const layout = (limit: number) => ({
      blocks: [
        { key: 'list', collection: 'articles', sort: ['title'], limit, fields: ['title', 'author.name'] },
        { key: 'one', collection: 'articles', id: bulk.body.data[0].id, fields: ['title', 'author.name'] },
      ],
    });
    await createPage(site, { slug: 'five', title: 'Five', layoutConfig: layout(5) });
    await createPage(site, { slug: 'fifty', title: 'Fifty', layoutConfig: layout(50) });
    // With Authorization the answer is built on every request (never from the response cache).
    const read = async (slug: string) => {
      const answer = await deliver(service, `/deliver/page/${site.siteId}/${slug}`, PRIVATE);
      expect(answer.status, answer.text).toBe(200);
      return answer.json.data.blocks.list.items as { title: string; author: { name: string } }[];
    };
    expect(await read('five')).toHaveLength(5); // warms the fingerprint, grants and schema caches
    const fifty = await read('fifty');
    expect(fifty).toHaveLength(50);
    expect(fifty.every((item) => item.author.name === 'Ada' || item.author.name === 'Bob')).toBe(true);

    const small = await fewestStatements(service, () => read('five'));
    const large = await fewestStatements(service, () => read('fifty'));
    expect(small).toBeGreaterThan(0);
    expect(large).toBe(small);
  });
});

describe('GET /deliver/items/:collection', () => {
  it('exposes nothing until the public role may read the collection, then its rows and fields only', async () => {
    const site = await createDeliverySite(service, { open: false });
    await createArticle(site, { title: 'Out', category: 'news', rating: 4, author: site.authors.ada });
    await createArticle(site, { title: 'Hidden', status: 'draft' });
    const headers = { 'x-svc-site': site.siteId };

    expectMiss(await deliver(service, '/deliver/items/articles', headers));
    expectMiss(await deliver(service, '/deliver/items/nothing_here', headers));
    expectMiss(await deliver(service, '/deliver/items/bad%20name!', headers));
    expectMiss(await deliver(service, '/deliver/items/articles'));

    await grantPublic(site, [{ collection: 'articles', action: 'read', fields: ['id', 'title'], conditions: { status: { _eq: 'published' } } }]);
    const list = await deliver(service, '/deliver/items/articles', headers);
    expect(list.status, list.text).toBe(200);
    expect(list.json.data).toEqual([{ id: expect.any(String), title: 'Out' }]);
    // Another collection stays out of reach.
    expectMiss(await deliver(service, '/deliver/items/authors', headers));
  });

  it('takes fields, filter, sort and limit (at most 200); a malformed query is 400, a filter on a field the public may not read a miss', async () => {
    const site = await createDeliverySite(service);
    for (const [title, category] of [['A', 'news'], ['B', 'news'], ['C', 'news'], ['D', 'sport']] as const) {
      await createArticle(site, { title, category, author: site.authors.ada });
    }
    const headers = { 'x-svc-site': site.siteId };
    const list = await deliver(service, '/deliver/items/articles?fields=title,author.name&filter[category][_eq]=news&sort=-title&limit=2', headers);
    expect(list.status, list.text).toBe(200);
    expect(list.json.data).toEqual([
      { title: 'C', author: { name: 'Ada' } },
      { title: 'B', author: { name: 'Ada' } },
    ]);
    const withTotal = await deliver(service, '/deliver/items/articles?fields=title&filter[category][_eq]=news&meta=total_count&limit=200', headers);
    expect(withTotal.json).toMatchObject({ data: [{}, {}, {}], meta: { total: 3 } });

    const tooMany = await deliver(service, '/deliver/items/articles?limit=201', headers);
    expect(tooMany.status, tooMany.text).toBe(400);
    expect(tooMany.json.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: expect.arrayContaining(['limit']) });
    expect(tooMany.headers.get('cache-control')).toBe('no-store');
    expectMiss(await deliver(service, '/deliver/items/articles?filter[rating][_gt]=1', headers));
  });
});

describe('what the public role may not read stays unread', () => {
  it('reveals no field the public may not read through a filter, a sort, a relation or a search', async () => {
    const site = await createDeliverySite(service);
    await createArticle(site, { title: 'Out', body: 'the launch code is zebra1234', rating: 5, author: site.authors.ada });
    const headers = { 'x-svc-site': site.siteId };
    expectMiss(await deliver(service, '/deliver/items/articles?filter[author][email][_eq]=ada@example.com', headers));
    expectMiss(await deliver(service, '/deliver/items/articles?sort=-rating', headers));
    expectMiss(await deliver(service, '/deliver/items/authors?fields=name,articles.title&deep[articles][_filter][body][_contains]=zebra', headers));
    const related = await deliver(service, '/deliver/items/articles?fields=title,author.*', headers);
    expect(related.json.data).toEqual([{ title: 'Out', author: { id: site.authors.ada, name: 'Ada' } }]);
    await createPage(site, {
      slug: 'probe',
      title: 'Probe',
      layoutConfig: { blocks: [{ key: 'byEmail', collection: 'articles', filter: { author: { email: { _eq: 'ada@example.com' } } }, fields: ['title'] }] },
    });
    expect((await deliver(service, `/deliver/page/${site.siteId}/probe`)).json.data.blocks.byEmail.items).toEqual([]);

    // `search` matches every text field of the item: a match on the body (not public) would reveal it.
    await service.context.daemon.drain();
    expect((await site.admin('GET', '/items/articles?fields=title&search=zebra1234')).body.data).toEqual([{ title: 'Out' }]);
    const searched = await deliver(service, '/deliver/items/articles?fields=title&search=zebra1234', headers);
    expect(searched.json?.data ?? []).toEqual([]);
  });
});

describe('GET /deliver/menu/:key', () => {
  it('answers a menu of the menus setting, and a plain miss for any other key', async () => {
    const site = await createDeliverySite(service);
    const main = {
      label: 'Main',
      items: [
        { label: 'Home', page: 'home' },
        { label: 'Docs', page: 'docs/intro', children: [{ label: 'API', url: 'https://example.com/api' }] },
      ],
    };
    const put = await site.admin('PUT', '/settings/menus', { value: { main, footer: { items: [] } } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const headers = { 'x-svc-site': site.siteId };

    const menu = await deliver(service, '/deliver/menu/main', headers);
    expect(menu.status, menu.text).toBe(200);
    expect(menu.json).toEqual({ data: { key: 'main', ...main } });
    expect((await deliver(service, '/deliver/menu/footer', headers)).json).toEqual({ data: { key: 'footer', items: [] } });
    expectMiss(await deliver(service, '/deliver/menu/sidebar', headers));
    expectMiss(await deliver(service, '/deliver/menu/Not%20A%20Key', headers));
    expectMiss(await deliver(service, '/deliver/menu/constructor', headers));
    expectMiss(await deliver(service, '/deliver/menu/main'));
    // A menu that does not fit the setting's shape is refused where it is written.
    const bad = await site.admin('PUT', '/settings/menus', { value: { main: { items: [{ url: '/no-label' }] } } });
    expect(bad.status, JSON.stringify(bad.body)).toBe(400);
  });
});

describe('GET /deliver/llms.txt/:site_id', () => {
  it('lists the site name, its pages and its public collections with their delivery URLs', async () => {
    const site = await createDeliverySite(service);
    await createCollection(service, site, 'notes', [{ field: 'text', type: 'string' }]);
    expect((await site.admin('PATCH', '/site', { name: 'Acme Docs' })).status).toBe(200);
    await createPage(site, { slug: 'home', title: 'Home' });
    await createPage(site, { slug: 'docs/intro', title: 'Getting started' });

    const answer = await deliver(service, `/deliver/llms.txt/${site.siteId}`);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const lines = answer.text.split('\n');
    expect(lines[0]).toBe('# Acme Docs');
    // Links are relative to the service: never built from a Host header.
    const base = '/api/v1';
    expect(lines).toContain(`- [Getting started](${base}/deliver/page/${site.siteId}/docs/intro)`);
    expect(lines).toContain(`- [Home](${base}/deliver/page/${site.siteId}/home)`);
    expect(answer.text).toContain(`(${base}/deliver/items/articles)`);
    expect(answer.text).toContain(`(${base}/deliver/items/authors)`);
    expect(answer.text).not.toContain('notes');
    expect(answer.text.indexOf('## Pages')).toBeLessThan(answer.text.indexOf('## Collections'));
  });

  it('is a miss for an unknown, malformed or deleted site', async () => {
    expectMiss(await deliver(service, '/deliver/llms.txt/no-such-site'));
    expectMiss(await deliver(service, '/deliver/llms.txt/NOT%20A%20SITE'));
    const site = await createTestSite(service, 'gone');
    expect((await deliver(service, `/deliver/llms.txt/${site.siteId}`)).status).toBe(200);
    expect((await service.request('DELETE', `/instance/sites/${site.siteId}`, { token: INSTANCE_TOKEN })).status).toBe(204);
    expectMiss(await deliver(service, `/deliver/llms.txt/${site.siteId}`));
  });
});

describe('one site never serves another', () => {
  it("keeps a site's pages and items out of another site's answers, in the long and the short form", async () => {
    const a = await createDeliverySite(service, { prefix: 'dla' });
    const b = await createDeliverySite(service, { prefix: 'dlb' });
    const theirs = await createArticle(a, { title: 'Only in A' });
    await createPage(a, { slug: 'home', title: 'A home' });
    await createPage(a, { slug: 'about', title: 'A about' });
    await createPage(b, { slug: 'home', title: 'B home', layoutConfig: { blocks: [{ key: 'stolen', collection: 'articles', id: theirs }, { key: 'all', collection: 'articles' }] } });

    expect((await deliver(service, `/deliver/page/${a.siteId}/home`)).json.data.title).toBe('A home');
    const home = await deliver(service, `/deliver/page/${b.siteId}/home`);
    expect(home.json.data).toMatchObject({ title: 'B home', blocks: { stolen: { item: null }, all: { items: [] } } });
    expect((await deliver(service, '/deliver/page/home', { 'x-svc-site': b.siteId })).json.data.title).toBe('B home');
    expectMiss(await deliver(service, `/deliver/page/${b.siteId}/about`));
    expectMiss(await deliver(service, '/deliver/page/about', { 'x-svc-site': b.siteId }));
    // The header names B: the path is B's slug "<A>/about", not A's page.
    expectMiss(await deliver(service, `/deliver/page/${a.siteId}/about`, { 'x-svc-site': b.siteId }));

    expect((await a.admin('PUT', '/settings/menus', { value: { main: { items: [{ label: 'A home', page: 'home' }] } } })).status).toBe(200);
    expect((await deliver(service, '/deliver/menu/main', { 'x-svc-site': a.siteId })).status).toBe(200);
    expectMiss(await deliver(service, '/deliver/menu/main', { 'x-svc-site': b.siteId }));

    const listB = await deliver(service, '/deliver/items/articles', { 'x-svc-site': b.siteId });
    expect(listB.json.data).toEqual([]);
    expect((await deliver(service, '/deliver/items/articles', { 'x-svc-site': a.siteId })).json.data).toEqual([expect.objectContaining({ title: 'Only in A' })]);
  });

  it("applies a site's public role rules to that site only", async () => {
    const open = await createDeliverySite(service, { prefix: 'dlo' });
    const closed = withHelpers(service, await createTestSite(service, 'dlc'));
    await createCollection(service, closed, 'articles', [{ field: 'title', type: 'string' }]);
    await createItem(closed, 'articles', { title: 'Closed article', status: 'published' });
    await createArticle(open, { title: 'Open article' });
    await createPage(closed, { slug: 'home', title: 'Closed home', layoutConfig: { blocks: [{ key: 'all', collection: 'articles' }] } });

    expect((await deliver(service, '/deliver/items/articles', { 'x-svc-site': open.siteId })).status).toBe(200);
    expectMiss(await deliver(service, '/deliver/items/articles', { 'x-svc-site': closed.siteId }));
    expect((await deliver(service, `/deliver/page/${closed.siteId}/home`)).json.data.blocks.all).toEqual({ collection: 'articles', items: [] });
    const llms = await deliver(service, `/deliver/llms.txt/${closed.siteId}`);
    expect(llms.text).not.toContain('/deliver/items/articles');
  });
});
