// client.items(collection) against the real service, typed by the fixture's collection types: lists
// narrowed to the fields asked (relations expanded through paths), filters and sorts as the query
// language takes them, versions from the ETag, If-Match refusals as SvcError, and deletes.
import { describe, expect, it } from 'vitest';
import { createSvcClient, SvcError } from '../../sdk/src/index.ts';
import type { SiteCollections } from '../../sdk/test/fixtures/siteCollections.ts';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';
import { createSdkModel } from './support.ts';

const service = await startTestServiceForFile();

async function typedSite() {
  const site = await createTestSite(service, 'sdk');
  await createSdkModel(service, site);
  const client = createSvcClient<SiteCollections>({ baseUrl: new URL(service.url).origin, site: site.siteId });
  await client.auth.login(site.adminEmail, site.adminPassword);
  return { site, client };
}

describe('client.items', () => {
  it('lists with a filter, a sort and fields through a relation, and answers only those fields', async () => {
    const { client } = await typedSite();
    const ada = await client.items('authors').create({ name: 'Ada' });
    const bob = await client.items('authors').create({ name: 'Bob' });
    for (const [title, views, author] of [['One', 5, ada], ['Two', 50, ada], ['Three', 20, bob]] as const) {
      await client.items('articles').create({ title, views, author: author.data.id, tags: ['news'] });
    }
    const list = await client.items('articles').list({
      fields: ['title', 'views', 'author.name'],
      filter: { views: { _gte: 10 } },
      sort: ['-views'],
    });
    expect(list.data).toEqual([
      { title: 'Two', views: 50, author: { name: 'Ada' } },
      { title: 'Three', views: 20, author: { name: 'Bob' } },
    ]);
    expect(list.meta).toMatchObject({ total: 2 });
    const byAuthor = await client.items('articles').list({ fields: ['title'], filter: { author: { name: { _eq: 'Bob' } } }, meta: 'none' });
    expect(byAuthor).toEqual({ data: [{ title: 'Three' }], meta: expect.not.objectContaining({ total: expect.anything() }) });
  });

  it('reads an item with its version, updates it with If-Match, and refuses a stale version as PRECONDITION_FAILED', async () => {
    const { client } = await typedSite();
    const created = await client.items('articles').create({ title: 'Draft', views: 1 });
    expect(created.version).toBe(1);
    const read = await client.items('articles').get(created.data.id);
    expect(read).toMatchObject({ version: 1, data: { id: created.data.id, title: 'Draft', author: null } });
    const updated = await client.items('articles').update(created.data.id, { title: 'Final' }, { ifMatch: read.version });
    expect(updated).toMatchObject({ version: 2, data: { title: 'Final' } });
    const stale = await client.items('articles').update(created.data.id, { title: 'Lost' }, { ifMatch: 1 }).catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(SvcError);
    expect(stale).toMatchObject({ status: 412, code: 'PRECONDITION_FAILED', path: ['headers', 'if-match'] });
    expect((await client.items('articles').get(created.data.id, { fields: ['title'] })).data).toEqual({ title: 'Final' });
  });

  it('deletes, and another site’s client sees none of the items', async () => {
    const { client } = await typedSite();
    const other = await typedSite();
    const created = await client.items('articles').create({ title: 'Mine' });
    expect((await other.client.items('articles').list()).data).toEqual([]);
    await expect(other.client.items('articles').get(created.data.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.client.items('articles').delete(created.data.id)).rejects.toMatchObject({ status: 404 });
    await client.items('articles').delete(created.data.id);
    await expect(client.items('articles').get(created.data.id)).rejects.toMatchObject({ status: 404, code: 'RECORD_NOT_FOUND' });
  });
});
