import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
// The ordered* helpers fill in what a decider would (nulls and defaults), as stored events carry it.
import { orderedField, orderedMeta, orderedRelation, type ContentField, type RelationDefinition } from '../../../domain/content/schemaModel.ts';
import { streamId } from '../../../domain/shared/events.ts';
import { readAll, LOG_START } from '../../../infra/eventstore/eventStore.ts';
import { pruneSiteChangeFeed } from '../../../src/modules/cdc/retention.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { createMember, createRole, grant, withHelpers } from '../access/support.ts';
import { appendEvents, appendItemEvent, frontendToken, feedCaughtUp } from './support.ts';

const service = await startTestServiceForFile();

async function events(site: TestSite, query = '') {
  return service.request('GET', `/cdc/events${query}`, { site: site.siteId, token: site.adminToken });
}

describe('GET /cdc/events', () => {
  it('returns item changes as <resource>.<operation> entries with the item after the change', async () => {
    const site = await createTestSite(service);
    const itemId = await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles', fields: { title: 'Hello' }, actorId: site.adminUserId });
    await appendItemEvent(service, site.siteId, { type: 'item.updated', collection: 'articles', itemId, fields: { title: 'Hello again' }, actorId: site.adminUserId });
    await appendItemEvent(service, site.siteId, { type: 'item.deleted', collection: 'articles', itemId, actorId: site.adminUserId });
    await feedCaughtUp(service);

    const response = await events(site);
    expect(response.status).toBe(200);
    expect(response.body.data.map((entry: { type: string }) => entry.type)).toEqual(['items.create', 'items.update', 'items.delete']);
    const [created, updated, deleted] = response.body.data;
    expect(created).toMatchObject({
      site: site.siteId,
      collection: 'articles',
      itemId,
      actor: { kind: 'user', id: site.adminUserId },
      sourceEvent: 'item.created',
      snapshot: { id: itemId, title: 'Hello' },
    });
    // No global log position: it would count other sites' writes (issue 27, finding 11).
    expect(created).not.toHaveProperty('position');
    expect(new Date(created.occurredAt).toISOString()).toBe(created.occurredAt);
    expect(updated.changedKeys).toEqual(['title']);
    expect(updated.snapshot.title).toBe('Hello again');
    expect(deleted.changedKeys).toEqual(['deletedAt']);
    expect(deleted.snapshot.deletedAt).not.toBeNull();
    expect(created.sequence).toBeLessThan(updated.sequence);
    expect(updated.sequence).toBeLessThan(deleted.sequence);
    expect(response.body.meta).toEqual({ nextCursor: deleted.cursor, hasMore: false });
  });

  it('maps restore, revert, promote and hard delete, and schema events', async () => {
    const site = await createTestSite(service);
    const itemId = await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'pages' });
    for (const type of ['item.reverted', 'item.promoted', 'item.restored', 'item.hard_deleted'] as const) {
      await appendItemEvent(service, site.siteId, { type, collection: 'pages', itemId, fields: { title: type } });
    }
    await appendEvents(service, site.siteId, streamId(site.siteId, 'collection', 'pages'), [
      { type: 'collection.created', data: { collection: 'pages', meta: orderedMeta({ icon: 'article' }) } },
      { type: 'field.added', data: { collection: 'pages', field: orderedField({ field: 'title', type: 'string' } as ContentField) } },
      { type: 'field.removed', data: { collection: 'pages', field: 'title' } },
      { type: 'collection.deleted', data: { collection: 'pages' } },
    ]);
    await appendEvents(service, site.siteId, streamId(site.siteId, 'relation', 'r1'), [
      {
        type: 'relation.created',
        data: { relationId: 'r1', relation: orderedRelation({ id: 'r1', kind: 'm2o', collection: 'pages', field: 'author', relatedCollection: 'authors', onDelete: 'set null' } as RelationDefinition) },
      },
    ]);
    await feedCaughtUp(service);

    const response = await events(site);
    expect(response.body.data.map((entry: { type: string; sourceEvent: string }) => `${entry.sourceEvent}=${entry.type}`)).toEqual([
      'item.created=items.create',
      'item.reverted=items.update',
      'item.promoted=items.update',
      'item.restored=items.create',
      'item.hard_deleted=items.delete',
      'collection.created=collections.create',
      'field.added=fields.create',
      'field.removed=fields.delete',
      'collection.deleted=collections.delete',
      'relation.created=relations.create',
    ]);
    const fieldAdded = response.body.data[6];
    expect(fieldAdded).toMatchObject({ collection: 'pages', itemId: 'title', snapshot: { field: 'title', type: 'string' } });
    expect(response.body.data[9]).toMatchObject({ itemId: 'r1', collection: 'pages' });
  });

  it('pages with an opaque cursor and filters by collection and operation', async () => {
    const site = await createTestSite(service);
    for (let index = 0; index < 5; index += 1) {
      const itemId = await appendItemEvent(service, site.siteId, { type: 'item.created', collection: index % 2 ? 'news' : 'articles', fields: { index } });
      if (index === 4) await appendItemEvent(service, site.siteId, { type: 'item.updated', collection: 'articles', itemId, fields: { index: 40 } });
    }
    await feedCaughtUp(service);

    const first = await events(site, '?limit=2');
    expect(first.body.data).toHaveLength(2);
    expect(first.body.meta.hasMore).toBe(true);
    expect(first.body.meta.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = await events(site, `?limit=2&cursor=${first.body.meta.nextCursor}`);
    const third = await events(site, `?limit=2&cursor=${second.body.meta.nextCursor}`);
    expect(third.body.meta.hasMore).toBe(false);
    const all = [...first.body.data, ...second.body.data, ...third.body.data].map((entry: { snapshot: { index: number } }) => entry.snapshot.index);
    expect(all).toEqual([0, 1, 2, 3, 4, 40]);

    const articles = await events(site, '?collections=articles');
    expect(articles.body.data.map((entry: { snapshot: { index: number } }) => entry.snapshot.index)).toEqual([0, 2, 4, 40]);
    const updates = await events(site, '?operations=update');
    expect(updates.body.data.map((entry: { type: string }) => entry.type)).toEqual(['items.update']);
    const typed = await events(site, '?operations=items.create&collections=news,articles');
    expect(typed.body.data).toHaveLength(5);

    // A filtered page that found nothing more still moves its cursor to the end of the feed.
    const nothing = await events(site, '?collections=missing');
    expect(nothing.body.data).toEqual([]);
    const after = await events(site, `?cursor=${nothing.body.meta.nextCursor}`);
    expect(after.body.data).toEqual([]);
  });

  it('refuses a malformed cursor and out-of-range parameters with 400', async () => {
    const site = await createTestSite(service);
    for (const [query, path] of [
      ['?cursor=not-a-cursor', ['query', 'cursor']],
      [`?cursor=${Buffer.from('f1:-4').toString('base64url')}`, ['query', 'cursor']],
      ['?cursor=%2F%2F%2F', ['query', 'cursor']],
      ['?limit=501', ['query', 'limit']],
      ['?limit=0', ['query', 'limit']],
      ['?wait=26', ['query', 'wait']],
      ['?operations=upsert', ['query', 'operations']],
      ['?collections=bad%20name', ['query', 'collections']],
    ] as const) {
      const response = await events(site, query);
      expect(response.status, query).toBe(400);
      expect(response.body.errors[0], query).toMatchObject({ code: 'VALIDATION_FAILED', path });
    }
  });

  it('is refused to frontend-realm tokens, to anonymous callers, and never shows another site', async () => {
    const site = await createTestSite(service);
    const other = await createTestSite(service);
    await appendItemEvent(service, other.siteId, { type: 'item.created', collection: 'secrets' });
    await feedCaughtUp(service);

    const frontend = await service.request('GET', '/cdc/events', { site: site.siteId, token: await frontendToken(service, site) });
    expect(frontend.status).toBe(403);
    expect(frontend.body.errors[0].code).toBe('PERMISSION_DENIED');
    const anonymous = await service.request('GET', '/cdc/events', { site: site.siteId });
    expect(anonymous.status).toBe(401);
    const mine = await events(site);
    expect(mine.body.data).toEqual([]);
    const crossSite = await service.request('GET', '/cdc/events', { site: other.siteId, token: site.adminToken });
    expect(crossSite.status).toBe(401);
  });

  it('is open to members whose policy grants cdc:subscribe, and to no other member', async () => {
    const site = withHelpers(service, await createTestSite(service));
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
    await feedCaughtUp(service);
    const subscriberRole = await createRole(site);
    await grant(site, { roleId: subscriberRole.id }, [{ action: 'cdc:subscribe' }]);
    const subscriber = await createMember(service, site, { roleId: subscriberRole.id });
    const other = await createMember(service, site, { roleId: (await createRole(site)).id });

    const allowed = await site.as(subscriber.token, 'GET', '/cdc/events');
    expect(allowed.status).toBe(200);
    // The capability opens the feed; what it shows is what the member may read (feedPermissions.e2e.spec.ts): here nothing.
    expect(allowed.body.data).toEqual([]);
    const refused = await site.as(other.token, 'GET', '/cdc/events');
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].code).toBe('PERMISSION_DENIED');
    // Managing subscriptions stays with site administrators.
    expect((await site.as(subscriber.token, 'GET', '/cdc/subscriptions')).status).toBe(403);
  });

  it('long-polls: answers as soon as a matching entry is committed', async () => {
    const site = await createTestSite(service);
    const started = Date.now();
    const pending = events(site, '?wait=20&collections=articles');
    setTimeout(() => {
      void (async () => {
        await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'other' });
        await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles', fields: { title: 'Late' } });
      })();
    }, 300);
    const response = await pending;
    const elapsed = Date.now() - started;
    expect(response.status).toBe(200);
    expect(response.body.data.map((entry: { snapshot: { title?: string } }) => entry.snapshot.title)).toEqual(['Late']);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('long-poll returns an empty page with a usable cursor when nothing arrives in time', async () => {
    const site = await createTestSite(service);
    const started = Date.now();
    const response = await events(site, '?wait=1');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(response.body).toEqual({ data: [], meta: { nextCursor: expect.any(String), hasMore: false } });
  });

  it('answers 410 CURSOR_EXPIRED with earliestCursor once entries after the cursor were pruned', async () => {
    const site = await createTestSite(service);
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
    await feedCaughtUp(service);
    const before = await events(site);
    const oldCursor = Buffer.from('f1:0').toString('base64url');
    expect(before.body.data).toHaveLength(1);

    const pruned = await pruneSiteChangeFeed(service.context, site.siteId, new Date(Date.now() + 8 * 86_400_000));
    expect(pruned.pruned).toBe(1);
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles', fields: { title: 'kept' } });
    await feedCaughtUp(service);

    const expired = await events(site, `?cursor=${oldCursor}`);
    expect(expired.status).toBe(410);
    expect(expired.body.errors[0].code).toBe('CURSOR_EXPIRED');
    const earliest = expired.body.errors[0].extensions.earliestCursor;
    const resumed = await events(site, `?cursor=${earliest}`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.data.map((entry: { snapshot: { title?: string } }) => entry.snapshot.title)).toEqual(['kept']);
    const fromStart = await events(site);
    expect(fromStart.body.data).toHaveLength(1);
  });

  it('gives every event exactly once and in log order under 8 concurrent writers', async () => {
    const site = await createTestSite(service);
    const perWriter = 25;
    const seen: { id: string; position: number; sequence: number }[] = [];
    let cursor: string | undefined;
    let writing = true;
    const consumer = (async () => {
      for (;;) {
        const response = await events(site, `?limit=7&wait=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(response.status).toBe(200);
        seen.push(...response.body.data);
        cursor = response.body.meta.nextCursor;
        if (!writing && response.body.data.length === 0) return;
      }
    })();
    await Promise.all(
      Array.from({ length: 8 }, async (_, writer) => {
        for (let index = 0; index < perWriter; index += 1) {
          await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'load', itemId: `${writer}-${index}-${randomUUID()}` });
        }
      }),
    );
    await feedCaughtUp(service);
    writing = false;
    await consumer;

    expect(seen).toHaveLength(8 * perWriter);
    expect(new Set(seen.map((entry) => entry.id)).size).toBe(8 * perWriter);
    expect(seen.map((entry) => entry.sequence)).toEqual([...seen.map((entry) => entry.sequence)].sort((a, b) => a - b));
    // The log's own order (txId, position) for this site's events is the order the consumer saw.
    const log = (await readAll(service.context.database, LOG_START, 1_000_000)).filter((event) => event.siteId === site.siteId && event.type === 'item.created');
    expect(seen.map((entry) => entry.id)).toEqual(log.map((event) => event.eventId));
  }, 60_000);
});
