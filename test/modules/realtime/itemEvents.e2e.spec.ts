// Item event streams for in-process consumers (GraphQL subscriptions): the realtime service's
// `itemEvents`, fed by the same fan-out as the WebSocket sessions, in-process and across instances
// through Redis. The streams are taken from a realtime service the test starts on a running server's
// context (the code the server starts once for itself, unchanged); the server's own service is
// observed from outside, through a WebSocket client and a GraphQL subscription. Items are written
// over HTTP.
import { afterAll, afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { streamId } from '../../../domain/shared/events.ts';
import { MAX_BUFFERED_ITEM_EVENTS, startRealtimeService, type ItemEvent, type RealtimeService } from '../../../src/modules/realtime/realtimeService.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile, type TestService, type TestSite } from '../../support/testService.ts';
import { appendEvents, REDIS_URL } from '../cdc/support.ts';
import { openSubscription } from '../graphql/sse.ts';
import { connect, createCollections, subscribe, ticketFor, type RealtimeClient } from './support.ts';

const service = await startTestServiceForFile();
const database = await createFreshDatabaseForFile();
const clusterEnv = { DATABASE_URL: database.url, REDIS_URL };
const first = await startTestServiceForFile(clusterEnv);
const second = await startTestServiceForFile(clusterEnv);

const controllers: AbortController[] = [];
const clients: RealtimeClient[] = [];
afterEach(() => vi.useRealTimers());
afterAll(() => {
  for (const controller of controllers) controller.abort();
  for (const client of clients) client.close();
});

/** A realtime service on the server's context (its database, notifier and configuration), stopped when the test ends. */
async function realtimeOn(target: TestService): Promise<RealtimeService> {
  const realtime = await startRealtimeService(target.context);
  onTestFinished(() => realtime.close());
  return realtime;
}

async function itemEvents(realtime: RealtimeService, siteId: string, collection: string, controller = new AbortController()) {
  controllers.push(controller);
  return realtime.itemEvents(siteId, collection, controller.signal);
}

/** The next event, or a failure naming what was awaited (never a fixed wait: it settles on arrival). */
async function nextEvent(events: AsyncIterator<ItemEvent>, timeoutMs = 15_000): Promise<IteratorResult<ItemEvent>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`no item event in ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([events.next(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Events up to and including the first `action` of `itemId` (or the first that `last` accepts). */
async function eventsUntil(events: AsyncIterator<ItemEvent>, itemId: string | ((event: ItemEvent) => boolean), action: ItemEvent['action'] = 'create'): Promise<ItemEvent[]> {
  const last = typeof itemId === 'function' ? itemId : (event: ItemEvent) => event.itemId === itemId && event.action === action;
  const seen: ItemEvent[] = [];
  for (;;) {
    const result = await nextEvent(events);
    if (result.done) throw new Error(`the stream ended after ${JSON.stringify(seen)}`);
    seen.push(result.value);
    if (last(result.value)) return seen;
  }
}

function itemCalls(target: TestService, site: TestSite) {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await target.request(method, path, { site: site.siteId, token: site.adminToken, body });
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body?.data as { id: string } | undefined;
  };
  return {
    create: async (collection: string, title: string) => (await call('POST', `/items/${collection}`, { title }))!.id,
    update: (collection: string, id: string, title: string) => call('PATCH', `/items/${collection}/${id}`, { title }),
    remove: (collection: string, id: string) => call('DELETE', `/items/${collection}/${id}`),
  };
}

describe('item event streams (in-process broker)', () => {
  it('keeps the log followed while iterated, past the window an admitted socket gets', async () => {
    const site = await createTestSite(service);
    await createCollections(service, site, ['articles']);
    const items = itemCalls(service, site);
    const events = await itemEvents(await realtimeOn(service), site.siteId, 'articles');
    // The service's first stream and no socket: without a session the tailer stops reading a minute after
    // the last admission. The stream is a session, so a change made later still reaches it.
    vi.setSystemTime(Date.now() + 5 * 60_000);
    const id = await items.create('articles', 'Later');
    expect(await eventsUntil(events, id)).toEqual([{ action: 'create', itemId: id }]);
  });

  it('yields the create, update and delete of an article in order, and nothing of another collection or site', async () => {
    const siteA = await createTestSite(service);
    const siteB = await createTestSite(service);
    await createCollections(service, siteA, ['articles', 'news']);
    await createCollections(service, siteB, ['articles']);
    const inA = itemCalls(service, siteA);
    const inB = itemCalls(service, siteB);
    const realtime = await realtimeOn(service);
    const articlesOfA = await itemEvents(realtime, siteA.siteId, 'articles');
    const articlesOfB = await itemEvents(realtime, siteB.siteId, 'articles');

    const article = await inA.create('articles', 'First');
    await inA.create('news', 'Elsewhere');
    const ofB = await inB.create('articles', 'Other site');
    await inA.update('articles', article, 'Changed');
    await inA.remove('articles', article);
    // Once B's stream has its article, every frame committed before it was delivered to A's stream too.
    expect(await eventsUntil(articlesOfB, ofB)).toEqual([{ action: 'create', itemId: ofB }]);
    const marker = await inA.create('articles', 'Marker');

    expect(await eventsUntil(articlesOfA, marker)).toEqual([
      { action: 'create', itemId: article },
      { action: 'update', itemId: article },
      { action: 'delete', itemId: article },
      { action: 'create', itemId: marker },
    ]);
  });

  it("gives the server's WebSocket sessions and its GraphQL subscriptions (its item event streams) the same change", async () => {
    const site = await createTestSite(service);
    await createCollections(service, site, ['articles']);
    const client = await connect(service, await ticketFor(service, site));
    clients.push(client);
    await subscribe(client, 'articles');
    // The subscription answers once its stream follows the log: every change committed after it is delivered.
    const stream = await openSubscription(service, site.siteId, site.adminToken, 'subscription { articles_events { action itemId } }');
    onTestFinished(() => stream.close());
    const id = await itemCalls(service, site).create('articles', 'Both');
    expect(await stream.received(1)).toEqual([{ data: { articles_events: { action: 'create', itemId: id } } }]);
    await client.next((frame) => frame.itemId === id);
  });

  it('ends when its signal aborts, whether a read is pending or not, and on return()', async () => {
    const site = await createTestSite(service);
    await createCollections(service, site, ['articles']);
    const realtime = await realtimeOn(service);
    const controller = new AbortController();
    const aborted = await itemEvents(realtime, site.siteId, 'articles', controller);
    const pending = aborted.next();
    controller.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(await aborted.next()).toEqual({ done: true, value: undefined });

    const returned = await itemEvents(realtime, site.siteId, 'articles');
    const waiting = returned.next();
    expect(await returned.return!()).toEqual({ done: true, value: undefined });
    expect(await waiting).toEqual({ done: true, value: undefined });

    const before = new AbortController();
    before.abort();
    const neverOpen = await itemEvents(realtime, site.siteId, 'articles', before);
    expect(await neverOpen.next()).toEqual({ done: true, value: undefined });

    // Ended streams are let go of; an open one still gets what follows, and the ended ones nothing.
    const open = await itemEvents(realtime, site.siteId, 'articles');
    const id = await itemCalls(service, site).create('articles', 'After');
    expect(await eventsUntil(open, id)).toEqual([{ action: 'create', itemId: id }]);
    for (const ended of [aborted, returned, neverOpen]) expect(await ended.next()).toEqual({ done: true, value: undefined });
  });

  it('drops the oldest events of a consumer that falls behind past the bound, and goes on', async () => {
    const site = await createTestSite(service);
    await createCollections(service, site, ['articles']);
    const items = itemCalls(service, site);
    const realtime = await realtimeOn(service);
    const behind = await itemEvents(realtime, site.siteId, 'articles');
    const reading = await itemEvents(realtime, site.siteId, 'articles');
    const article = await items.create('articles', 'Busy');
    // A stream that keeps reading: once it has the marker, the one that reads nothing was handed every event too.
    const readingUntilMarker = eventsUntil(reading, (event) => event.action === 'create' && event.itemId !== article);
    const at = new Date().toISOString();
    const snapshot = { id: article, status: 'draft', sort: null, createdAt: at, updatedAt: at, userCreated: null, userUpdated: null, deletedAt: null };
    const updates = Array.from({ length: MAX_BUFFERED_ITEM_EVENTS + 5 }, (_, index) => ({
      type: 'item.updated',
      data: { collection: 'articles', itemId: article, snapshot: { ...snapshot, title: `v${index}` }, delta: { title: `v${index}` } },
    }));
    await appendEvents(service, site.siteId, streamId(site.siteId, 'item', 'articles', article), updates);
    const marker = await items.create('articles', 'Marker');
    expect((await readingUntilMarker).at(-1)).toEqual({ action: 'create', itemId: marker });

    const kept = await eventsUntil(behind, marker);
    expect(kept).toHaveLength(MAX_BUFFERED_ITEM_EVENTS);
    expect(kept.slice(0, -1).every((event) => event.action === 'update' && event.itemId === article)).toBe(true);
    expect(kept.at(-1)).toEqual({ action: 'create', itemId: marker });
    const next = await items.create('articles', 'Still going');
    expect(await eventsUntil(behind, next)).toEqual([{ action: 'create', itemId: next }]);
  });
});

describe('item event streams across instances (Redis)', () => {
  it('yields on one instance the changes written through the other, once each and in order', async () => {
    const [onFirstInstance, onSecondInstance] = [await realtimeOn(first), await realtimeOn(second)];
    expect(onFirstInstance.broker.distributed).toBe(true);
    expect(onSecondInstance.broker.distributed).toBe(true);
    const siteA = await createTestSite(first);
    const siteB = await createTestSite(first);
    await createCollections(first, siteA, ['articles', 'news']);
    await createCollections(first, siteB, ['articles']);
    const onSecond = await itemEvents(onSecondInstance, siteA.siteId, 'articles');
    const onFirst = await itemEvents(onFirstInstance, siteA.siteId, 'articles');
    const ofBOnSecond = await itemEvents(onSecondInstance, siteB.siteId, 'articles');

    const viaFirst = itemCalls(first, siteA);
    const article = await viaFirst.create('articles', 'First');
    await viaFirst.create('news', 'Elsewhere');
    const ofB = await itemCalls(first, siteB).create('articles', 'Other site');
    await itemCalls(second, siteA).update('articles', article, 'Changed');
    await viaFirst.remove('articles', article);
    expect(await eventsUntil(ofBOnSecond, ofB)).toEqual([{ action: 'create', itemId: ofB }]);
    const marker = await viaFirst.create('articles', 'Marker');

    for (const events of [onSecond, onFirst]) {
      expect(await eventsUntil(events, marker)).toEqual([
        { action: 'create', itemId: article },
        { action: 'update', itemId: article },
        { action: 'delete', itemId: article },
        { action: 'create', itemId: marker },
      ]);
    }
  });
});
