// The change feed and realtime driven by the real content routes (collections, fields, items).
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { connect, subscribe, ticketFor } from '../realtime/support.ts';
import { feedCaughtUp } from './support.ts';

const service = await startTestServiceForFile();

function call(site: TestSite, method: string, path: string, body?: unknown) {
  return service.request(method, path, { site: site.siteId, token: site.adminToken, body });
}

describe('change feed over the content routes', () => {
  it('records schema and item writes as feed entries with the acting user', async () => {
    const site = await createTestSite(service);
    expect((await call(site, 'POST', '/collections', { name: 'articles', fields: [{ field: 'title', type: 'string' }] })).status).toBe(201);
    const created = await call(site, 'POST', '/items/articles', { title: 'Hello' });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect((await call(site, 'PATCH', `/items/articles/${id}`, { title: 'Hello again' })).status).toBe(200);
    expect((await call(site, 'DELETE', `/items/articles/${id}`)).status).toBe(204);
    await feedCaughtUp(service);

    const feed = await call(site, 'GET', '/cdc/events');
    const types = feed.body.data.map((entry: { type: string }) => entry.type);
    expect(types.filter((type: string) => type.startsWith('collections.') || type.startsWith('fields.'))).toContain('collections.create');
    const items = feed.body.data.filter((entry: { type: string }) => entry.type.startsWith('items.'));
    expect(items.map((entry: { type: string }) => entry.type)).toEqual(['items.create', 'items.update', 'items.delete']);
    expect(items[0]).toMatchObject({ collection: 'articles', itemId: id, actor: { kind: 'user', id: site.adminUserId }, snapshot: { id, title: 'Hello' } });
    expect(items[1].changedKeys).toContain('title');
    expect(items[1].snapshot.title).toBe('Hello again');
    expect(items[2].snapshot.deletedAt).not.toBeNull();
    expect(items.every((entry: { requestId: string | null }) => typeof entry.requestId === 'string')).toBe(true);
  });

  it('sends realtime event frames for item writes made through the routes', async () => {
    const site = await createTestSite(service);
    await call(site, 'POST', '/collections', { name: 'news', fields: [{ field: 'title', type: 'string' }] });
    const client = await connect(service, await ticketFor(service, site));
    try {
      await subscribe(client, 'news');
      const created = await call(site, 'POST', '/items/news', { title: 'Breaking' });
      const frame = await client.next((candidate) => candidate.type === 'event');
      expect(frame).toEqual({ type: 'event', collection: 'news', action: 'create', itemId: created.body.data.id, payload: null });
    } finally {
      client.close();
    }
  });
});
