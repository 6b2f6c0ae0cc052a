// GraphQL subscriptions over real HTTP (Server-Sent Events): `<collection>_events` yields the
// realtime fan-out's item changes of the site and collection, each with the item as the subscriber
// may read it, filtered by its read permission; the cost and depth limits apply to subscriptions too.
import { describe, expect, it } from 'vitest';
import { createCollection } from '../../support/contentModel.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { createMember, grant, withHelpers } from '../access/support.ts';

const service = await startTestServiceForFile();

interface Stream {
  /** The next `data:` payload of the stream, parsed. */
  next(): Promise<any>;
  close(): void;
}

/** Opens a subscription over SSE and resolves once the server has answered with the stream's headers. */
async function subscribe(site: TestSite, query: string, token = site.adminToken): Promise<Stream> {
  const controller = new AbortController();
  const response = await fetch(`${service.url}/api/v1/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-svc-site': site.siteId, authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  return {
    async next() {
      for (;;) {
        const end = buffered.indexOf('\n\n');
        if (end >= 0) {
          const event = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const data = event.split('\n').find((line) => line.startsWith('data:'));
          if (data) return JSON.parse(data.slice(5));
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffered += decoder.decode(value, { stream: true });
      }
    },
    close: () => controller.abort(),
  };
}

async function contentSite() {
  const site = withHelpers(service, await createTestSite(service));
  await createCollection(service, site, 'articles', [
    { field: 'title', type: 'string' },
    { field: 'secret', type: 'string' },
  ]);
  await createCollection(service, site, 'news', [{ field: 'title', type: 'string' }]);
  return site;
}

describe('GraphQL subscriptions', () => {
  it('streams create, update and delete of the collection with the item, and nothing of another collection or site', async () => {
    const site = await contentSite();
    const other = await contentSite();
    const stream = await subscribe(site, 'subscription { articles_events { action itemId item } }');
    // The stream follows the log once it is open: a write of another collection, then ours.
    await site.admin('POST', '/items/news', { title: 'Not this' });
    await other.admin('POST', '/items/articles', { title: 'Not this either' });
    const created = (await site.admin('POST', '/items/articles', { title: 'Hello' })).body.data;
    expect(await stream.next()).toEqual({ data: { articles_events: { action: 'create', itemId: created.id, item: expect.objectContaining({ id: created.id, title: 'Hello' }) } } });
    await site.admin('PATCH', `/items/articles/${created.id}`, { title: 'Changed' });
    expect((await stream.next()).data.articles_events).toMatchObject({ action: 'update', itemId: created.id, item: { title: 'Changed' } });
    await site.admin('DELETE', `/items/articles/${created.id}`);
    expect((await stream.next()).data.articles_events).toEqual({ action: 'delete', itemId: created.id, item: null });
    stream.close();
  });

  it("filters by the subscriber's read rules: rows outside its conditions are left out, masked fields stay masked", async () => {
    const site = await contentSite();
    const member = await createMember(service, site);
    await grant(site, { userId: member.userId }, [{ collection: 'articles', action: 'read', fields: ['id', 'title'], conditions: { title: { _starts_with: 'Public' } } }]);
    const stream = await subscribe(site, 'subscription { articles_events { action itemId item } }', member.token);
    await site.admin('POST', '/items/articles', { title: 'Hidden', secret: 's' });
    const shown = (await site.admin('POST', '/items/articles', { title: 'Public one', secret: 's' })).body.data;
    const event = (await stream.next()).data.articles_events;
    expect(event).toMatchObject({ action: 'create', itemId: shown.id, item: { id: shown.id, title: 'Public one' } });
    expect(event.item.secret).toBeUndefined();
    stream.close();
  });

  it('refuses a subscription over the limits or to a collection the subscriber cannot read, at 200 with errors', async () => {
    const site = await contentSite();
    const member = await createMember(service, site);
    const refused = await site.as(member.token, 'POST', '/graphql', { query: 'subscription { articles_events { action } }' });
    expect(refused.status).toBe(200);
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION', status: 400 });
    const aliases = Array.from({ length: 1001 }, (_, index) => `a${index}: articles_events { action }`).join(' ');
    const costly = await site.admin('POST', '/graphql', { query: `subscription { ${aliases} }` });
    expect(costly.body.errors.map((error: { message: string }) => error.message)).toContain('Query exceeds the maximum cost of 1000');
  });
});
