// Item updates decided from this instance's cached stream head (src/runtime/streamHeads.ts,
// src/modules/items/itemStreams.ts `fromCachedHead`) against the real service and database, with a
// second instance on the same database to make this one's heads stale: no lost update, no stale
// answer, If-Match still judged on the log, a head that is not the log's refused, a type change
// after the cached head converted, and heads kept apart per site.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { createCollection } from '../../support/contentModel.ts';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { createTestSite, startTestService, startTestServiceForFile, type TestService } from '../../support/testService.ts';
import { itemStreamId } from '../../../src/modules/items/itemStreams.ts';
import { createContentSite, createItem, withCall, type ContentSite, type Json } from './support.ts';

// Two instances on one database: `service` (A) caches heads, `other` (B) writes behind its back.
const service = await startTestServiceForFile();
const other = await startTestService();
afterAll(() => other.close());
const owner = await connectOwnerClientForFile();

interface LoggedEvent {
  type: string;
  event_id: string;
  stream_position: number;
  data: { snapshot: Json; delta: Json };
}

async function itemEvents(siteId: string, collection: string, id: string): Promise<LoggedEvent[]> {
  const { rows } = await owner.query<LoggedEvent>('SELECT type, event_id, stream_position, data FROM events WHERE stream_id = $1 ORDER BY stream_position', [
    itemStreamId(siteId, collection, id),
  ]);
  return rows;
}

/** The same site, called through instance B. */
const onOther = (site: ContentSite): ContentSite => withCall(other, site);

/** A PATCH that must succeed: its item and its version (ETag). */
async function patch(site: ContentSite, path: string, body: Record<string, unknown>, headers?: Record<string, string>): Promise<{ data: Json; version: number }> {
  const response = await site.call('PATCH', path, body, headers);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return { data: response.body.data, version: Number(JSON.parse(response.headers.get('etag')!)) };
}

/** The head instance A holds for the item, if any. */
function cachedHead(instance: TestService, siteId: string, collection: string, id: string): StoredEvent | undefined {
  return instance.context.streamHeads.get(itemStreamId(siteId, collection, id));
}

/** The statements A sends in site transactions while `work` runs (deferred ones included). */
async function siteStatements(work: () => Promise<unknown>): Promise<number> {
  const { stats } = service.context.database;
  const before = stats.siteQueries;
  await work();
  return stats.siteQueries - before;
}

async function siteWithArticle(prefix = 'heads', body: Record<string, unknown> = { title: 'Hello', views: 1 }) {
  const site = await createContentSite(service, prefix);
  const article = await createItem(site, 'articles', body);
  return { site, id: article.id as string, path: `/items/articles/${article.id}` };
}

/** A site with one collection, `notes` (title, code: strings), none of its fields indexed. */
async function notesSite(): Promise<ContentSite> {
  const site = withCall(service, await createTestSite(service, 'heads-notes'));
  await createCollection(service, site, 'notes', [
    { field: 'title', type: 'string' },
    { field: 'code', type: 'string' },
  ]);
  return site;
}

/** Puts `head` into A's cache as if A had appended it in a transaction that committed. */
function plant(head: StoredEvent): void {
  const heads = service.context.streamHeads;
  const tx = {} as Queryable;
  heads.collect(tx);
  heads.appended(tx, head.streamId, head);
  heads.committed(tx);
}

/** A copy of A's cached head of the item with other snapshot values (and, unless kept, another event id). */
function alteredHead(site: ContentSite, id: string, values: Record<string, unknown>, options: { keepEventId?: boolean } = {}): StoredEvent {
  const real = cachedHead(service, site.siteId, 'articles', id);
  expect(real, 'A caches the head it appended').toBeDefined();
  const data = real!.data as { snapshot: Record<string, unknown> };
  return { ...real!, ...(options.keepEventId ? {} : { eventId: randomUUID() }), data: { ...data, snapshot: { ...data.snapshot, ...values } } } as StoredEvent;
}

describe('consecutive updates on one instance', () => {
  it('answers each PATCH with the right item and version (1→2→3→4), logs them in order, and caches each appended event', async () => {
    const { site, id, path } = await siteWithArticle();
    for (const [index, title] of ['Two', 'Three', 'Four'].entries()) {
      const answer = await patch(site, path, { title, views: index + 10 });
      expect(answer.version).toBe(index + 2);
      expect(answer.data).toMatchObject({ id, title, views: index + 10 });
      // The head A remembers is the event it just appended, as the log holds it.
      const logged = await itemEvents(site.siteId, 'articles', id);
      const head = cachedHead(service, site.siteId, 'articles', id);
      expect([head?.eventId, head?.streamPosition]).toEqual([logged.at(-1)!.event_id, index + 2]);
      expect((head?.data as { snapshot: Json }).snapshot).toEqual(logged.at(-1)!.data.snapshot);
    }
    const logged = await itemEvents(site.siteId, 'articles', id);
    expect(logged.map((event) => [event.stream_position, event.type, event.data.snapshot.title, event.data.snapshot.views])).toEqual([
      [1, 'item.created', 'Hello', 1],
      [2, 'item.updated', 'Two', 10],
      [3, 'item.updated', 'Three', 11],
      [4, 'item.updated', 'Four', 12],
    ]);
    const read = await site.call('GET', path);
    expect(read.headers.get('etag')).toBe('"4"');
    expect(read.body.data).toMatchObject({ title: 'Four', views: 12 });
    // The other instance, which cached nothing, reads the same.
    expect((await onOther(site).call('GET', path)).body.data).toMatchObject({ title: 'Four', views: 12 });
  });

  it('decides a later update from the cached event itself, not from a read of the log', async () => {
    const { site, id, path } = await siteWithArticle();
    await patch(site, path, { views: 2 });
    // The log's event id and position, with a title the log never held: the checks sent with the
    // append (event id at that position, nothing after it) pass, so what A writes shows the cache was read.
    plant(alteredHead(site, id, { title: 'Only in the cache' }, { keepEventId: true }));
    const answer = await patch(site, path, { views: 3 });
    expect([answer.version, answer.data.title, answer.data.views]).toEqual([3, 'Only in the cache', 3]);
    expect((await itemEvents(site.siteId, 'articles', id)).at(-1)!.data.snapshot.title).toBe('Only in the cache');
  });

  it('sends the head checks with the append instead of reading the head: one statement more, no read of the head', async () => {
    // A collection without indexed fields: no field index is built in the background, whose readiness
    // would drop the instance's cached schema (a reload of it is statements of the site too).
    const site = await notesSite();
    const note = await createItem(site, 'notes', { title: 'one', code: '1' });
    const path = `/items/notes/${note.id}`;
    await patch(site, path, { code: '2' });
    const stream = itemStreamId(site.siteId, 'notes', note.id);
    // Other work of the instance (a schema reload after a notification) only adds to a count: the
    // least of a few of each kind is the write's own.
    const cached: number[] = [];
    const fromLog: number[] = [];
    for (const round of [1, 2, 3, 4]) {
      service.context.streamHeads.forget(stream);
      fromLog.push(await siteStatements(() => patch(site, path, { code: `log ${round}` })));
      expect(cachedHead(service, site.siteId, 'notes', note.id)).toBeDefined();
      cached.push(await siteStatements(() => patch(site, path, { code: `cache ${round}` })));
    }
    // From the cache: the statements of a write from the log without the head read, plus
    // svc_assert_stream_head and svc_assert_no_type_change_after, deferred to travel with the append.
    // One more statement, but one round trip less (the head read was a round trip of its own).
    expect(Math.min(...cached) - Math.min(...fromLog), JSON.stringify({ cached, fromLog })).toBe(1);
    expect((await itemEvents(site.siteId, 'notes', note.id)).map((event) => event.stream_position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});

describe('a head made stale by another instance', () => {
  it('loses no update: A updates another field after B changed the title', async () => {
    const { site, id, path } = await siteWithArticle();
    expect((await patch(site, path, { title: 'From A' })).version).toBe(2);
    expect(cachedHead(service, site.siteId, 'articles', id)?.streamPosition).toBe(2);
    expect((await patch(onOther(site), path, { title: 'X' })).version).toBe(3);
    const answer = await patch(site, path, { views: 42 });
    expect(answer.version).toBe(4);
    expect(answer.data).toMatchObject({ id, title: 'X', views: 42 });
    const read = await site.call('GET', path);
    expect(read.headers.get('etag')).toBe('"4"');
    expect(read.body.data).toMatchObject({ title: 'X', views: 42 });
    const logged = await itemEvents(site.siteId, 'articles', id);
    expect(logged.map((event) => [event.stream_position, event.data.snapshot.title, event.data.snapshot.views])).toEqual([
      [1, 'Hello', 1],
      [2, 'From A', 1],
      [3, 'X', 1],
      [4, 'X', 42],
    ]);
    expect(logged[3]!.data.delta).toEqual({ views: 42 });
    // A's cache was corrected by the retry: it holds the log's head again.
    expect(cachedHead(service, site.siteId, 'articles', id)?.eventId).toBe(logged[3]!.event_id);
  });

  it('writes a change that is a no-op only against the stale head (A sets title Y again after B set X)', async () => {
    const { site, id, path } = await siteWithArticle();
    await patch(site, path, { title: 'Y' });
    expect((cachedHead(service, site.siteId, 'articles', id)?.data as { snapshot: Json }).snapshot.title).toBe('Y');
    await patch(onOther(site), path, { title: 'X' });
    const answer = await patch(site, path, { title: 'Y' });
    expect([answer.version, answer.data.title]).toEqual([4, 'Y']);
    expect((await site.call('GET', path)).body.data.title).toBe('Y');
    const logged = await itemEvents(site.siteId, 'articles', id);
    expect(logged.map((event) => [event.stream_position, event.type, event.data.snapshot.title])).toEqual([
      [1, 'item.created', 'Hello'],
      [2, 'item.updated', 'Y'],
      [3, 'item.updated', 'X'],
      [4, 'item.updated', 'Y'],
    ]);
    expect(logged[3]!.data.delta).toEqual({ title: 'Y' });
  });

  it('answers a no-op against a head that is still the log\'s without writing, with its version', async () => {
    const { site, id, path } = await siteWithArticle();
    await patch(site, path, { title: 'Y' });
    const answer = await patch(site, path, { title: 'Y' });
    expect([answer.version, answer.data.title]).toEqual([2, 'Y']);
    expect(await itemEvents(site.siteId, 'articles', id)).toHaveLength(2);
    expect(cachedHead(service, site.siteId, 'articles', id)?.streamPosition).toBe(2);
  });

  it('confirms a refusal against the log: a PATCH on A of an item A deleted and B restored is no 404', async () => {
    const { site, id, path } = await siteWithArticle();
    await patch(site, path, { title: 'Two' });
    expect((await site.call('DELETE', path)).status).toBe(204);
    expect(cachedHead(service, site.siteId, 'articles', id)?.type).toBe('item.deleted');
    const revisions = await onOther(site).call('GET', `${path}/revisions`);
    const revision = revisions.body.data.find((entry: Json) => entry.data?.title === 'Two');
    expect((await onOther(site).call('POST', `${path}/revert`, { revisionId: revision.revisionId })).status).toBe(200);
    for (const views of [10, 11]) {
      const answer = await site.call('PATCH', path, { views });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.data).toMatchObject({ title: 'Two', views });
    }
    // A refusal that is the log's own stays one: the item deleted again, on A.
    expect((await site.call('DELETE', path)).status).toBe(204);
    expect((await site.call('PATCH', path, { views: 12 })).status).toBe(404);
  });

  it('judges If-Match on the log, not on the stale head: "2" is 412 once B wrote 3, "3" passes', async () => {
    const { site, id, path } = await siteWithArticle();
    await patch(site, path, { title: 'From A' });
    expect(cachedHead(service, site.siteId, 'articles', id)?.streamPosition).toBe(2);
    await patch(onOther(site), path, { title: 'X' });
    const stale = await site.call('PATCH', path, { views: 7 }, { 'if-match': '"2"' });
    expect([stale.status, stale.body.errors?.[0]?.code]).toEqual([412, 'PRECONDITION_FAILED']);
    expect(stale.body.errors[0].extensions).toMatchObject({ expectedVersion: 2, currentVersion: 3 });
    expect(await itemEvents(site.siteId, 'articles', id)).toHaveLength(3);
    const current = await patch(site, path, { views: 7 }, { 'if-match': '"3"' });
    expect(current.version).toBe(4);
    expect(current.data).toMatchObject({ title: 'X', views: 7 });
    // An If-Match write is remembered like any other: the next one decides from it.
    expect(cachedHead(service, site.siteId, 'articles', id)?.streamPosition).toBe(4);
    const again = await site.call('PATCH', path, { views: 8 }, { 'if-match': '"3"' });
    expect([again.status, again.body.errors?.[0]?.code]).toEqual([412, 'PRECONDITION_FAILED']);
    expect((await itemEvents(site.siteId, 'articles', id)).map((event) => event.data.snapshot.views)).toEqual([1, 1, 1, 7]);
  });
});

describe('a cached head that is not the log\'s', () => {
  it('refuses a phantom head at the append and answers from the log: its values never appear', async () => {
    const { site, id, path } = await siteWithArticle();
    await patch(site, path, { title: 'Real' });
    const phantom = alteredHead(site, id, { title: 'Phantom' });
    plant(phantom);
    expect(cachedHead(service, site.siteId, 'articles', id)?.eventId).toBe(phantom.eventId);
    const answer = await patch(site, path, { views: 5 });
    expect([answer.version, answer.data.title, answer.data.views]).toEqual([3, 'Real', 5]);
    const logged = await itemEvents(site.siteId, 'articles', id);
    expect(logged.map((event) => [event.stream_position, event.data.snapshot.title])).toEqual([
      [1, 'Hello'],
      [2, 'Real'],
      [3, 'Real'],
    ]);
    expect(logged[2]!.data.delta).toEqual({ views: 5 });
    expect(cachedHead(service, site.siteId, 'articles', id)?.eventId).toBe(logged[2]!.event_id);
    expect((await site.call('GET', path)).body.data).toMatchObject({ title: 'Real', views: 5 });
  });

  it('writes nothing for a change the phantom makes but the log already holds', async () => {
    const { site, id, path } = await siteWithArticle();
    await patch(site, path, { title: 'Real' });
    plant(alteredHead(site, id, { title: 'Phantom' }));
    const answer = await patch(site, path, { title: 'Real' });
    expect([answer.version, answer.data.title]).toEqual([2, 'Real']);
    expect(await itemEvents(site.siteId, 'articles', id)).toHaveLength(2);
  });

  it('writes a change that is a no-op only against the phantom', async () => {
    const { site, id, path } = await siteWithArticle();
    await patch(site, path, { title: 'Real' });
    plant(alteredHead(site, id, { title: 'Phantom', views: 777 }));
    const answer = await patch(site, path, { views: 777 });
    expect([answer.version, answer.data.title, answer.data.views]).toEqual([3, 'Real', 777]);
    const logged = await itemEvents(site.siteId, 'articles', id);
    expect(logged.map((event) => [event.data.snapshot.title, event.data.snapshot.views])).toEqual([
      ['Hello', 1],
      ['Real', 1],
      ['Real', 777],
    ]);
  });

  it('refuses a head ahead of the log', async () => {
    const { site, id, path } = await siteWithArticle();
    await patch(site, path, { title: 'Real' });
    const ahead = alteredHead(site, id, { title: 'Ahead' });
    plant({ ...ahead, streamPosition: ahead.streamPosition + 1 } as StoredEvent);
    const answer = await patch(site, path, { views: 9 });
    expect([answer.version, answer.data.title, answer.data.views]).toEqual([3, 'Real', 9]);
    expect((await itemEvents(site.siteId, 'articles', id)).map((event) => event.stream_position)).toEqual([1, 2, 3]);
  });
});

describe('a field type change after the head was cached', () => {
  it('writes the converted value, not the cached head\'s old-typed one', async () => {
    const site = await notesSite();
    const note = await createItem(site, 'notes', { title: 'one', code: '12' });
    const path = `/items/notes/${note.id}`;
    expect((await patch(site, path, { title: 'two' })).data.code).toBe('12');
    expect(cachedHead(service, site.siteId, 'notes', note.id)?.streamPosition).toBe(2);
    const changed = await site.call('PATCH', '/fields/notes/code?allowDestructive=true', { type: 'integer' });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const answer = await patch(site, path, { title: 'three' });
    expect(answer.version).toBe(3);
    expect(answer.data).toMatchObject({ title: 'three', code: 12 });
    expect((await site.call('GET', path)).body.data).toMatchObject({ title: 'three', code: 12 });
    const logged = await itemEvents(site.siteId, 'notes', note.id);
    expect(logged.map((event) => [event.stream_position, event.data.snapshot.code])).toEqual([
      [1, '12'],
      [2, '12'],
      [3, 12],
    ]);
    expect(logged[2]!.data.delta).toEqual({ title: 'three' });
    // And the next write decides from the converted head it cached.
    expect(cachedHead(service, site.siteId, 'notes', note.id)?.eventId).toBe(logged[2]!.event_id);
    const next = await patch(site, path, { title: 'four' });
    expect([next.version, next.data.code]).toEqual([4, 12]);
    expect((await itemEvents(site.siteId, 'notes', note.id)).at(-1)!.data.snapshot.code).toBe(12);
  });
});

describe('tenancy', () => {
  it('keeps the heads of the same collection and item id in two sites apart', async () => {
    const [first, second] = [await createContentSite(service, 'heads-a'), await createContentSite(service, 'heads-b')];
    const id = `shared-${randomUUID()}`;
    const path = `/items/articles/${id}`;
    await createItem(first, 'articles', { id, title: 'A0', views: 100 });
    await createItem(second, 'articles', { id, title: 'B0', views: 200 });
    const expected = { first: { title: 'A0', views: 100, version: 1 }, second: { title: 'B0', views: 200, version: 1 } };
    for (const round of [1, 2, 3]) {
      for (const [name, site] of [['second', second], ['first', first]] as const) {
        const mine = expected[name];
        // Alternate the fields: one round the title, the next the views, so an answer from the other site's head would show.
        const change = round % 2 === 1 ? { views: mine.views + round } : { title: `${mine.title}${round}` };
        Object.assign(mine, change, { version: mine.version + 1 });
        const answer = await patch(site, path, change);
        expect([answer.version, answer.data.title, answer.data.views], `${name}, round ${round}`).toEqual([mine.version, mine.title, mine.views]);
      }
    }
    for (const [name, site] of [['first', first], ['second', second]] as const) {
      const mine = expected[name];
      const read = await site.call('GET', path);
      expect([read.headers.get('etag'), read.body.data.title, read.body.data.views]).toEqual([`"${mine.version}"`, mine.title, mine.views]);
      const logged = await itemEvents(site.siteId, 'articles', id);
      expect(logged.map((event) => event.stream_position)).toEqual([1, 2, 3, 4]);
      expect(logged.every((event) => String(event.data.snapshot.title).startsWith(name === 'first' ? 'A' : 'B'))).toBe(true);
      const head = cachedHead(service, site.siteId, 'articles', id);
      expect([head?.siteId, head?.eventId]).toEqual([site.siteId, logged.at(-1)!.event_id]);
    }
    expect(itemStreamId(first.siteId, 'articles', id)).not.toBe(itemStreamId(second.siteId, 'articles', id));
  });
});
