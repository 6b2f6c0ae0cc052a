// client.feed.consume against the real service: a pull subscription consumed in pages, a consumer
// that dies mid-page and a new one that resumes from the last acknowledged entry (nothing lost,
// nothing repeated), a store-kept position from the end of the feed; the CURSOR_EXPIRED policies
// against a server of the test's own; and webhook deliveries checked with verifyWebhookSignature.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createSvcClient, verifyWebhookSignature, type CursorStore, type FeedEntry } from '../../sdk/src/index.ts';
import { until } from '../modules/cdc/support.ts';
import { createCollection } from '../support/contentModel.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../support/testService.ts';

const service = await startTestServiceForFile({ SVC_WEBHOOK_ALLOW_PRIVATE: 'true' });
const origin = new URL(service.url).origin;
const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

async function feedSite() {
  const site = await createTestSite(service, 'sdk');
  await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
  await createCollection(service, site, 'notes', [{ field: 'title', type: 'string' }]);
  const client = createSvcClient({ baseUrl: origin, site: site.siteId });
  await client.auth.login(site.adminEmail, site.adminPassword);
  return { site, client };
}

async function createItems(site: TestSite, collection: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const created = await service.request('POST', `/items/${collection}`, { site: site.siteId, token: site.adminToken, body: { title: `${collection} ${index}` } });
    ids.push(created.body.data.id);
  }
  return ids;
}

describe('client.feed.consume', () => {
  it('acknowledges a page only after its handler finished: a consumer that dies mid-page is resumed from its first entry, nothing lost or repeated', { timeout: 60_000 }, async () => {
    const { site, client } = await feedSite();
    const subscription = await client.api.POST('/api/v1/cdc/subscriptions', {
      body: { name: 'sdk-consumer', kind: 'pull', from: 'start', filters: { collections: ['articles'], operations: ['items.create'] } } as never,
    });
    const subscriptionId = (subscription.data!.data as { id: string }).id;
    const ids = await createItems(site, 'articles', 7);
    await createItems(site, 'notes', 2);

    // What the consumer has done for good: a page's entries are kept only once its handler got through it.
    const committed: FeedEntry[] = [];
    let pages = 0;
    const dying = client.feed.consume({
      subscription: subscriptionId,
      batch: 3,
      wait: 1,
      onEntries: (entries) => {
        pages += 1;
        if (pages === 2) throw new Error('killed halfway through the second page');
        committed.push(...entries);
      },
    });
    await expect(dying).rejects.toThrow('killed halfway');
    expect(committed.length).toBeGreaterThan(0);

    const stop = new AbortController();
    await client.feed.consume({
      subscription: subscriptionId,
      batch: 3,
      wait: 1,
      signal: stop.signal,
      onEntries: (entries) => {
        committed.push(...entries);
        if (committed.length >= ids.length) stop.abort();
      },
    });
    expect(committed.map((entry) => entry.itemId)).toEqual(ids);
    expect(committed.every((entry) => entry.type === 'items.create' && entry.collection === 'articles')).toBe(true);
    expect(committed.map((entry) => entry.sequence)).toEqual([...committed.map((entry) => entry.sequence)].sort((a, b) => a - b));
    // The last page was acknowledged before the consumer stopped: nothing of the subscription is left after its cursor.
    const stored = await client.api.GET('/api/v1/cdc/subscriptions/{id}', { params: { path: { id: subscriptionId } } });
    const cursor = (stored.data!.data as { cursor: string }).cursor;
    expect(cursor).not.toBe(subscription.data!.data.cursor);
    const after = await client.api.GET('/api/v1/cdc/events', { params: { query: { cursor, collections: 'articles', operations: 'items.create', wait: '0' } as never } });
    expect(after.data!.data).toEqual([]);
  });

  it('keeps its position in the consumer’s own store, starting from the end of the feed', { timeout: 60_000 }, async () => {
    const { site, client } = await feedSite();
    await createItems(site, 'articles', 2);
    // The feed is an async read model: "the end" is where it stands, so wait until it holds the two.
    const early = { collections: 'articles', operations: 'items.create', wait: '0' };
    await until(async () => ((await client.api.GET('/api/v1/cdc/events', { params: { query: early as never } })).data!.data as unknown[]).length, (count) => count === 2);
    let saved: string | null = null;
    const store: CursorStore = { load: async () => saved, save: async (cursor) => void (saved = cursor) };
    const seen: FeedEntry[] = [];
    const stop = new AbortController();
    const consuming = client.feed.consume({
      from: 'end',
      store,
      wait: 1,
      filters: { collections: ['articles'], operations: ['items.create'] },
      signal: stop.signal,
      onEntries: (entries) => {
        seen.push(...entries);
        if (seen.length >= 3) stop.abort();
      },
    });
    const later = await createItems(site, 'articles', 3);
    await consuming;
    expect(seen.map((entry) => entry.itemId)).toEqual(later);
    expect(saved).toBe(seen.at(-1)!.cursor);
  });
});

describe('an expired position', () => {
  /** A feed server of the test's own: 410 CURSOR_EXPIRED for the expired cursor, one entry from the oldest retained. */
  async function expiringFeed() {
    const reads: (string | null)[] = [];
    const server = createServer((request, response) => {
      const cursor = new URL(request.url!, 'http://feed').searchParams.get('cursor');
      reads.push(cursor);
      response.setHeader('content-type', 'application/json');
      if (cursor === 'c-expired') {
        response.writeHead(410).end(JSON.stringify({ errors: [{ code: 'CURSOR_EXPIRED', message: 'past retention', path: ['query', 'cursor'], extensions: { earliestCursor: 'c-oldest' } }] }));
      } else if (cursor === null) {
        response.writeHead(200).end(JSON.stringify({ data: [{ id: 'e1', type: 'items.create', cursor: 'c-oldest', sequence: 9, itemId: 'i1' }], meta: { nextCursor: 'c-oldest', hasMore: false } }));
      } else {
        response.writeHead(200).end(JSON.stringify({ data: [], meta: { nextCursor: cursor, hasMore: false } }));
      }
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
    return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, reads };
  }

  it('fails by default, and with `earliest` reports the gap and goes on from the oldest retained entry', async () => {
    const feed = await expiringFeed();
    const client = createSvcClient({ baseUrl: feed.base, site: 's', apiKey: 'svk_test' });
    const expired: CursorStore = { load: async () => 'c-expired', save: async () => undefined };
    await expect(client.feed.consume({ store: expired, onEntries: () => undefined })).rejects.toMatchObject({ status: 410, code: 'CURSOR_EXPIRED' });

    const gaps: unknown[] = [];
    const seen: FeedEntry[] = [];
    const stop = new AbortController();
    await client.feed.consume({
      store: expired,
      onCursorExpired: 'earliest',
      onGap: (gap) => void gaps.push(gap),
      signal: stop.signal,
      onEntries: (entries) => {
        seen.push(...entries);
        stop.abort();
      },
    });
    expect(gaps).toEqual([{ expiredCursor: 'c-expired', earliestCursor: 'c-oldest' }]);
    expect(seen.map((entry) => entry.id)).toEqual(['e1']);
  });
});

describe('verifyWebhookSignature', () => {
  it('accepts a delivery of the service as it came, and refuses a changed body, another secret or an old signature', { timeout: 60_000 }, async () => {
    const { site, client } = await feedSite();
    const deliveries: { body: string; signature: string }[] = [];
    const arrived = new Promise<void>((resolve) => {
      const server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          deliveries.push({ body: Buffer.concat(chunks).toString('utf8'), signature: String(request.headers['x-svc-signature']) });
          response.writeHead(204).end();
          resolve();
        });
      });
      server.listen(0, '127.0.0.1');
      servers.push(server);
    });
    await once(servers.at(-1)!, 'listening');
    const secret = 'a webhook secret of the test';
    await client.api.POST('/api/v1/cdc/subscriptions', {
      body: { name: 'sdk-webhook', kind: 'webhook', webhook: { url: `http://127.0.0.1:${(servers.at(-1)!.address() as AddressInfo).port}/hook`, secret } } as never,
    });
    await createItems(site, 'articles', 1);
    await arrived;
    const [delivery] = deliveries;
    expect(await verifyWebhookSignature(delivery!.body, delivery!.signature, secret)).toBe(true);
    expect(await verifyWebhookSignature(new TextEncoder().encode(delivery!.body), delivery!.signature, secret)).toBe(true);
    expect(await verifyWebhookSignature(delivery!.body.replace('articles', 'artic1es'), delivery!.signature, secret)).toBe(false);
    expect(await verifyWebhookSignature(delivery!.body, delivery!.signature, 'another secret entirely')).toBe(false);
    expect(await verifyWebhookSignature(delivery!.body, delivery!.signature, secret, { nowSeconds: Math.floor(Date.now() / 1000) + 3_600 })).toBe(false);
    expect(await verifyWebhookSignature(delivery!.body, null, secret)).toBe(false);
  });
});

describe('client.graphql', () => {
  it('answers the data of a query, and throws its errors as SvcError with their codes', async () => {
    const { site, client } = await feedSite();
    await createItems(site, 'articles', 2);
    const data = await client.graphql<{ articles: { title: string }[] }>('query Titles($limit: Int) { articles(sort: ["title"], limit: $limit) { title } }', { limit: 1 });
    expect(data).toEqual({ articles: [{ title: 'articles 0' }] });
    await expect(client.graphql('{ articles(filter: { nope: { _eq: 1 } }) { title } }')).rejects.toMatchObject({ code: 'INVALID_FILTER' });
  });
});
