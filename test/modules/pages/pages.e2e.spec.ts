// /pages over real HTTP and PostgreSQL: the CRUD, the slug and layout rules with their paths (and
// nothing written), one page per slug, who may read and write, another site's pages out of reach,
// and the announcement on the delivery channel after each committed change.
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createMember } from '../identity/support/identity.ts';
import { withCall, type ContentSite } from '../items/support.ts';

const service = await startTestServiceForFile();
const missingId = '6f1c1b7e-0000-4000-8000-000000000000';

async function pagesSite(): Promise<ContentSite> {
  return withCall(service, await createTestSite(service));
}

function expectError(response: { status: number; body: any }, status: number, code: string, path?: (string | number)[]) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.errors[0].code).toBe(code);
  if (path) expect(response.body.errors[0].path).toEqual(path);
}

async function createPage(site: ContentSite, body: Record<string, unknown>): Promise<any> {
  const created = await site.call('POST', '/pages', body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data;
}

const heroAndLatest = {
  blocks: [
    { key: 'hero', type: 'hero', props: { heading: 'Welcome' } },
    { key: 'latest', collection: 'articles', filter: { status: { _eq: 'published' } }, sort: ['-published_at'], limit: 3, fields: ['title', 'author.name'] },
    { key: 'about', collection: 'snippets', id: 'about-us' },
  ],
};

describe('/pages', () => {
  it('creates, reads, lists, updates and deletes a page', async () => {
    const site = await pagesSite();
    const page = await createPage(site, { slug: 'home', title: '  Home  ', layoutConfig: heroAndLatest });
    expect(page).toMatchObject({ slug: 'home', title: 'Home', layoutConfig: heroAndLatest });
    expect(page.createdAt).toBe(page.updatedAt);
    expect((await site.call('GET', `/pages/${page.id}`)).body.data).toEqual(page);

    const updated = await site.call('PATCH', `/pages/${page.id}`, { slug: 'welcome/home', title: 'Welcome', layoutConfig: null });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.data).toMatchObject({ id: page.id, slug: 'welcome/home', title: 'Welcome', layoutConfig: null, createdAt: page.createdAt });
    const unchanged = await site.call('PATCH', `/pages/${page.id}`, {});
    expect(unchanged.body.data).toEqual(updated.body.data);

    const about = await createPage(site, { slug: 'about', title: 'About' });
    expect(about.layoutConfig).toBeNull();
    const contact = await createPage(site, { slug: 'contact', title: 'Contact', layoutConfig: { blocks: [] } });
    const newestFirst = await site.call('GET', '/pages');
    expect(newestFirst.body.meta).toEqual({ total: 3, page: 1, pageSize: 25 });
    expect(newestFirst.body.data.map((row: { id: string }) => row.id)).toEqual([contact.id, about.id, page.id]);
    const bySlug = await site.call('GET', '/pages?sort=slug&limit=2&page=2');
    expect(bySlug.body).toMatchObject({ data: [{ slug: 'welcome/home' }], meta: { total: 3, page: 2, pageSize: 2 } });
    expect((await site.call('GET', '/pages?sort=slug')).body.data.map((row: { slug: string }) => row.slug)).toEqual(['about', 'contact', 'welcome/home']);
    expectError(await site.call('GET', '/pages?limit=201'), 400, 'VALIDATION_FAILED', ['query', 'limit']);
    expectError(await site.call('GET', '/pages?sort=title'), 400, 'VALIDATION_FAILED', ['query', 'sort']);

    expect((await site.call('DELETE', `/pages/${page.id}`)).status).toBe(204);
    expectError(await site.call('GET', `/pages/${page.id}`), 404, 'NOT_FOUND');
    expectError(await site.call('DELETE', `/pages/${page.id}`), 404, 'NOT_FOUND');
    expectError(await site.call('PATCH', `/pages/${page.id}`, { title: 'Back' }), 404, 'NOT_FOUND');
    expect((await site.call('GET', '/pages')).body.meta.total).toBe(2);
    // A deleted page's slug is free again.
    await createPage(site, { slug: 'welcome/home', title: 'Welcome again' });
  });

  it('takes a slug of 200 characters and refuses one of 201 or of a bad shape, writing nothing', async () => {
    const site = await pagesSite();
    const longest = `${'a'.repeat(99)}/${'b'.repeat(100)}`;
    expect(longest).toHaveLength(200);
    expect((await createPage(site, { slug: longest, title: 'Long' })).slug).toBe(longest);
    for (const slug of ['a'.repeat(201), 'Upper', 'a//b', '-a', 'a-', '/a', 'a/', 'a b', 'a__b', 'caf\u00e9', '', 7, null]) {
      expectError(await site.call('POST', '/pages', { slug, title: 'Bad' }), 400, 'VALIDATION_FAILED', ['body', 'slug']);
    }
    expectError(await site.call('POST', '/pages', { title: 'No slug' }), 400, 'VALIDATION_FAILED', ['body', 'slug']);
    expectError(await site.call('POST', '/pages', { slug: 'no-title' }), 400, 'VALIDATION_FAILED', ['body', 'title']);
    expectError(await site.call('POST', '/pages', { slug: 'blank', title: '   ' }), 400, 'VALIDATION_FAILED', ['body', 'title']);
    expectError(await site.call('POST', '/pages', { slug: 'extra', title: 'Extra', status: 'published' }), 400, 'VALIDATION_FAILED', ['body']);
    expect((await site.call('GET', '/pages')).body.meta.total).toBe(1);
  });

  it('leaves a page unchanged when a PATCH is refused', async () => {
    const site = await pagesSite();
    const page = await createPage(site, { slug: 'news', title: 'News', layoutConfig: heroAndLatest });
    const refused: [Record<string, unknown>, (string | number)[]][] = [
      [{ slug: 'Bad Slug', title: 'Renamed' }, ['body', 'slug']],
      [{ slug: 'x'.repeat(201) }, ['body', 'slug']],
      [{ title: 'Renamed', layoutConfig: { blocks: [{ key: 'a', limit: 3 }] } }, ['body', 'layoutConfig', 'blocks', 0, 'limit']],
      [{ title: '' }, ['body', 'title']],
      [{ slug: null }, ['body', 'slug']],
      [{ id: missingId }, ['body']],
    ];
    for (const [body, path] of refused) expectError(await site.call('PATCH', `/pages/${page.id}`, body), 400, 'VALIDATION_FAILED', path);
    expect((await site.call('GET', `/pages/${page.id}`)).body.data).toEqual(page);
  });

  it('keeps a slug to one page of the site: 409 on create and on rename, whatever the race', async () => {
    const site = await pagesSite();
    const blog = await createPage(site, { slug: 'blog', title: 'Blog' });
    const shop = await createPage(site, { slug: 'shop', title: 'Shop' });
    expectError(await site.call('POST', '/pages', { slug: 'blog', title: 'Another blog' }), 409, 'CONFLICT', ['body', 'slug']);
    expectError(await site.call('PATCH', `/pages/${shop.id}`, { slug: 'blog', title: 'Renamed' }), 409, 'CONFLICT', ['body', 'slug']);
    expect((await site.call('GET', `/pages/${shop.id}`)).body.data).toEqual(shop);
    // Its own slug is no conflict.
    expect((await site.call('PATCH', `/pages/${blog.id}`, { slug: 'blog', title: 'The blog' })).body.data).toMatchObject({ slug: 'blog', title: 'The blog' });

    const racers = await Promise.all(Array.from({ length: 6 }, (_, index) => site.call('POST', '/pages', { slug: 'contested', title: `Racer ${index}` })));
    expect(racers.map((response) => response.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const renames = await Promise.all([blog, shop].map((page) => site.call('PATCH', `/pages/${page.id}`, { slug: 'renamed' })));
    expect(renames.map((response) => response.status).sort()).toEqual([200, 409]);
    expect((await site.call('GET', '/pages')).body.meta.total).toBe(3);
  });

  it('says where a layoutConfig is wrong', async () => {
    const site = await pagesSite();
    const cases: [unknown, (string | number)[]][] = [
      ['blocks', ['body', 'layoutConfig']],
      [[], ['body', 'layoutConfig']],
      [{ sections: [] }, ['body', 'layoutConfig', 'blocks']],
      [{ blocks: [{ type: 'hero' }, { collection: 'articles' }] }, ['body', 'layoutConfig', 'blocks', 1, 'key']],
      [{ blocks: [{ type: 'hero', key: 'a' }, { key: 'a', collection: 'articles' }] }, ['body', 'layoutConfig', 'blocks', 1, 'key']],
      [{ blocks: [{ key: 'a' }, { key: 'a' }] }, ['body', 'layoutConfig', 'blocks', 1, 'key']],
      [{ blocks: [{ key: 'a', id: 'a1' }] }, ['body', 'layoutConfig', 'blocks', 0, 'id']],
      [{ blocks: [{ key: 'a', collection: 'articles', id: 'a1', limit: 2 }] }, ['body', 'layoutConfig', 'blocks', 0, 'limit']],
      [{ blocks: [{ key: 'a', collection: 'articles', limit: 201 }] }, ['body', 'layoutConfig', 'blocks', 0, 'limit']],
      [{ blocks: [{ key: 'a', collection: 'articles', fields: ['ok', 'not ok'] }] }, ['body', 'layoutConfig', 'blocks', 0, 'fields', 1]],
      [{ blocks: [{ key: 'a', collection: 'articles', sort: ['-'] }] }, ['body', 'layoutConfig', 'blocks', 0, 'sort', 0]],
      [{ blocks: [{ key: 'a', collection: 'articles', filter: 'status=published' }] }, ['body', 'layoutConfig', 'blocks', 0, 'filter']],
      [{ blocks: Array.from({ length: 51 }, (_, index) => ({ key: `b${index}` })) }, ['body', 'layoutConfig', 'blocks']],
      [{ blocks: [{ key: 'big', props: { text: 'x'.repeat(65 * 1024) } }] }, ['body', 'layoutConfig']],
    ];
    for (const [layoutConfig, path] of cases) {
      expectError(await site.call('POST', '/pages', { slug: 'p', title: 'P', layoutConfig }), 400, 'VALIDATION_FAILED', path);
    }
    expect((await site.call('GET', '/pages')).body.meta.total).toBe(0);
    const fifty = { blocks: Array.from({ length: 50 }, (_, index) => ({ key: `b${index}`, collection: 'articles', limit: 200 })) };
    expect((await createPage(site, { slug: 'p', title: 'P', layoutConfig: fifty })).layoutConfig).toEqual(fifty);
  });

  it('takes blocks that read nothing without a key: delivery keys what the others read, and keeps them in layoutConfig by place', async () => {
    const site = await pagesSite();
    const layout = { blocks: [{ type: 'hero', props: { heading: 'Hi' } }, { key: 'latest', collection: 'articles' }, { type: 'divider' }] };
    const page = await createPage(site, { slug: 'home', title: 'Home', layoutConfig: layout });
    expect(page.layoutConfig).toEqual(layout);
    const delivered = await service.request('GET', `/deliver/page/${site.siteId}/home`);
    expect(delivered.status, JSON.stringify(delivered.body)).toBe(200);
    expect(delivered.body.data.layoutConfig).toEqual(layout);
    expect(delivered.body.data.blocks).toEqual({ latest: { collection: 'articles', items: [] } });
    const keyless = { blocks: [{ type: 'spacer' }, { type: 'spacer' }] };
    const patched = await site.call('PATCH', `/pages/${page.id}`, { layoutConfig: keyless });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data.layoutConfig).toEqual(keyless);
  });

  it('lets members read, only site administrators write, and nobody without a token', async () => {
    const site = await pagesSite();
    const page = await createPage(site, { slug: 'home', title: 'Home' });
    const member = await createMember(service, site);
    const asMember = (method: string, path: string, body?: unknown) =>
      service.request(method, path, { site: site.siteId, token: member.token, ...(body === undefined ? {} : { body }) });
    expect((await asMember('GET', '/pages')).body.data.map((row: { id: string }) => row.id)).toEqual([page.id]);
    expect((await asMember('GET', `/pages/${page.id}`)).body.data).toEqual(page);
    expectError(await asMember('POST', '/pages', { slug: 'mine', title: 'Mine' }), 403, 'PERMISSION_DENIED');
    expectError(await asMember('PATCH', `/pages/${page.id}`, { title: 'Mine' }), 403, 'PERMISSION_DENIED');
    expectError(await asMember('DELETE', `/pages/${page.id}`), 403, 'PERMISSION_DENIED');
    for (const [method, path] of [['GET', '/pages'], ['GET', `/pages/${page.id}`], ['POST', '/pages'], ['PATCH', `/pages/${page.id}`], ['DELETE', `/pages/${page.id}`]] as const) {
      expectError(await service.request(method, path, { site: site.siteId, body: method === 'GET' || method === 'DELETE' ? undefined : { title: 'X' } }), 401, 'UNAUTHENTICATED');
    }
    expect((await site.call('GET', `/pages/${page.id}`)).body.data).toEqual(page);
  });

  it('keeps each site to its own pages: 404 for another site’s page or an id that is no UUID', async () => {
    const site = await pagesSite();
    const other = await pagesSite();
    const mine = await createPage(site, { slug: 'shared-slug', title: 'Mine' });
    const theirs = await createPage(other, { slug: 'shared-slug', title: 'Theirs' });
    expectError(await site.call('GET', `/pages/${theirs.id}`), 404, 'NOT_FOUND');
    expectError(await site.call('PATCH', `/pages/${theirs.id}`, { title: 'Taken over' }), 404, 'NOT_FOUND');
    expectError(await site.call('DELETE', `/pages/${theirs.id}`), 404, 'NOT_FOUND');
    for (const id of ['not-a-uuid', missingId]) {
      expectError(await site.call('GET', `/pages/${id}`), 404, 'NOT_FOUND');
      expectError(await site.call('PATCH', `/pages/${id}`, { title: 'X' }), 404, 'NOT_FOUND');
      expectError(await site.call('DELETE', `/pages/${id}`), 404, 'NOT_FOUND');
    }
    expect((await site.call('GET', '/pages')).body.data.map((row: { id: string }) => row.id)).toEqual([mine.id]);
    expect((await other.call('GET', '/pages')).body.data).toEqual([theirs]);
    // Another site's administrator token is no use here.
    expectError(await service.request('GET', '/pages', { site: site.siteId, token: other.adminToken }), 401, 'UNAUTHENTICATED');
  });
});
