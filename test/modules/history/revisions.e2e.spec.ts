import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createHistorySite, createItem, expectError, patchItem, revisionsOf } from './support.ts';

const service = await startTestServiceForFile();

describe('item revisions', () => {
  it('records one revision per write, newest first, with snapshot, delta, actor and time', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'First', body: 'one', secret: 'pw' });
    await patchItem(service, site, 'articles', article.id, { title: 'Second' });
    await patchItem(service, site, 'articles', article.id, { views: 3 });

    const response = await service.request('GET', `/items/articles/${article.id}/revisions`, site.as);
    expect(response.status).toBe(200);
    expect(response.body.meta).toEqual({ total: 3, page: 1, limit: 25 });
    const [third, second, first] = response.body.data;
    expect([third.version, second.version, first.version]).toEqual([3, 2, 1]);
    expect([third.event, second.event, first.event]).toEqual(['item.updated', 'item.updated', 'item.created']);
    expect(first.data).toMatchObject({ id: article.id, title: 'First', body: 'one' });
    expect(first.data.secret).toBe('**********');
    expect(second.delta).toEqual({ title: 'Second' });
    expect(second.data.title).toBe('Second');
    expect(third.delta).toEqual({ views: 3 });
    expect(first.actor).toEqual({ kind: 'user', id: site.adminUserId });
    expect(first.revisionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(first.timestamp).getTime()).toBeLessThanOrEqual(new Date(third.timestamp).getTime());
    expect(first.staged).toBe(false);
    expect(first.item).toBe(article.id);
    expect(first.collection).toBe('articles');
  });

  it('records a revision and a history row for each item of a bulk create', async () => {
    const site = await createHistorySite(service);
    const created = await service.request('POST', '/items/articles', { ...site.as, body: [{ title: 'One' }, { title: 'Two' }, { title: 'Three' }] });
    expect(created.status).toBe(201);
    for (const item of created.body.data as { id: string; title: string }[]) {
      const [revision, missing] = await revisionsOf(service, site, 'articles', item.id);
      expect(revision).toMatchObject({ event: 'item.created', version: 1, data: { title: item.title } });
      expect(missing).toBeUndefined();
      const then = await service.request('GET', `/items/articles/${item.id}?asOf=${encodeURIComponent(revision.timestamp)}`, site.as);
      expect(then.body.data.title).toBe(item.title);
    }
  });

  it('pages revisions with limit and page', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'v1' });
    for (let n = 2; n <= 5; n += 1) await patchItem(service, site, 'articles', article.id, { title: `v${n}` });
    const page2 = await service.request('GET', `/items/articles/${article.id}/revisions?limit=2&page=2`, site.as);
    expect(page2.status).toBe(200);
    expect(page2.body.meta).toEqual({ total: 5, page: 2, limit: 2 });
    expect(page2.body.data.map((revision: { data: { title: string } }) => revision.data.title)).toEqual(['v3', 'v2']);
  });

  it('marks revisions written by a draft as staged, with the draft', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'Live' });
    await patchItem(service, site, 'articles', article.id, { title: 'Draft title' }, { 'x-svc-draft': 'true' });
    const [staged] = await revisionsOf(service, site, 'articles', article.id);
    expect(staged.staged).toBe(true);
    expect(staged.data.title).toBe('Live');
    expect(staged.draft?.title).toBe('Draft title');
  });

  it('reverts to a revision: content restored, an item.reverted revision written', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'Original', body: 'text', views: 1 });
    await patchItem(service, site, 'articles', article.id, { title: 'Changed', views: 9 });
    const [, created] = await revisionsOf(service, site, 'articles', article.id);

    const reverted = await service.request('POST', `/items/articles/${article.id}/revert`, { ...site.as, body: { revisionId: created.revisionId } });
    expect(reverted.status).toBe(200);
    expect(reverted.body.data).toMatchObject({ id: article.id, title: 'Original', body: 'text', views: 1 });

    const read = await service.request('GET', `/items/articles/${article.id}`, site.as);
    expect(read.body.data).toMatchObject({ title: 'Original', views: 1 });
    const [latest] = await revisionsOf(service, site, 'articles', article.id);
    expect(latest.event).toBe('item.reverted');
    expect(latest.cause).toEqual({ revisionId: created.revisionId });
    expect(latest.delta).toEqual({ title: 'Original', views: 1 });
    expect(latest.version).toBe(3);
  });

  it('brings a soft-deleted item back with a revert: item.restored, then item.reverted, in one append', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'Original', views: 1 });
    await patchItem(service, site, 'articles', article.id, { title: 'Changed' });
    const total = async () => (await service.request('GET', '/items/articles?limit=1', site.as)).body.meta.total;
    expect((await service.request('DELETE', `/items/articles/${article.id}`, site.as)).status).toBe(204);
    expect(await total()).toBe(0);
    const [deleted, changed, created] = await revisionsOf(service, site, 'articles', article.id);
    expect(deleted.event).toBe('item.deleted');

    const reverted = await service.request('POST', `/items/articles/${article.id}/revert`, { ...site.as, body: { revisionId: created.revisionId } });
    expect(reverted.status, JSON.stringify(reverted.body)).toBe(200);
    expect(reverted.body.data).toMatchObject({ id: article.id, title: 'Original', views: 1 });
    expect((await service.request('GET', `/items/articles/${article.id}`, site.as)).body.data).toMatchObject({ title: 'Original' });
    expect(await total()).toBe(1);
    await service.context.daemon.drain();
    const found = await service.request('GET', '/search?q=original', site.as);
    expect(found.body.data.map((hit: { id: string }) => hit.id)).toEqual([article.id]);
    const feed = await service.request('GET', '/cdc/events?collections=articles&limit=500', site.as);
    const itemEntries = (feed.body.data as { type: string; sourceEvent: string }[]).filter((entry) => entry.type.startsWith('items.'));
    expect(itemEntries.map((entry) => `${entry.type} ${entry.sourceEvent}`)).toEqual([
      'items.create item.created',
      'items.update item.updated',
      'items.delete item.deleted',
      'items.create item.restored',
      'items.update item.reverted',
    ]);
    const [revert, restore] = await revisionsOf(service, site, 'articles', article.id);
    expect([restore.event, restore.version, restore.delta, restore.data.title]).toEqual(['item.restored', 4, { deletedAt: null }, 'Changed']);
    expect([revert.event, revert.version, revert.cause, revert.delta]).toEqual(['item.reverted', 5, { revisionId: created.revisionId }, { title: 'Original' }]);
    const events = await service.context.database.withSite(site.siteId, (tx) =>
      tx.query<{ tx_id: string }>({ text: 'SELECT DISTINCT tx_id::text FROM events WHERE stream_id = $1 AND stream_position IN (4, 5)', values: [`${site.siteId}/item/articles/${article.id}`] }),
    );
    expect(events).toHaveLength(1);

    // Reverting to the revision the item had when it was deleted restores it as it was.
    expect((await service.request('DELETE', `/items/articles/${article.id}`, site.as)).status).toBe(204);
    const again = await service.request('POST', `/items/articles/${article.id}/revert`, { ...site.as, body: { revisionId: changed.revisionId } });
    expect(again.body.data).toMatchObject({ title: 'Changed', views: 1 });
  });

  it('keeps a hash field through a revert (the stored hash is restored, not hashed again)', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'With secret', secret: 'first password' });
    await patchItem(service, site, 'articles', article.id, { secret: 'second password' });
    const [, created] = await revisionsOf(service, site, 'articles', article.id);
    const reverted = await service.request('POST', `/items/articles/${article.id}/revert`, { ...site.as, body: { revisionId: created.revisionId } });
    expect(reverted.status).toBe(200);
    const stored = await service.context.database.withSite(site.siteId, (tx) =>
      tx.query<{ secret: string }>({ text: `SELECT data->>'secret' AS secret FROM items WHERE site_id = $1 AND id = $2`, values: [site.siteId, article.id] }),
    );
    const original = await service.context.database.withSite(site.siteId, (tx) =>
      tx.query<{ secret: string }>({
        text: `SELECT data->'snapshot'->>'secret' AS secret FROM events WHERE site_id = $1 AND event_id = $2::uuid`,
        values: [site.siteId, created.revisionId],
      }),
    );
    expect(stored[0]!.secret).toMatch(/^\$argon2/);
    expect(stored[0]!.secret).toBe(original[0]!.secret);
  });

  it('answers 404 for an unknown revision, another item’s revision, and another site’s revision', async () => {
    const site = await createHistorySite(service);
    const other = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'A' });
    const sibling = await createItem(service, site, 'articles', { title: 'B' });
    const foreign = await createItem(service, other, 'articles', { title: 'C' });
    const [siblingRevision] = await revisionsOf(service, site, 'articles', sibling.id);
    const [foreignRevision] = await revisionsOf(service, other, 'articles', foreign.id);

    for (const revisionId of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', siblingRevision.revisionId, foreignRevision.revisionId]) {
      const response = await service.request('POST', `/items/articles/${article.id}/revert`, { ...site.as, body: { revisionId } });
      expectError(response, 404, 'RECORD_NOT_FOUND', ['body', 'revisionId']);
    }
    const [onlyRevision] = await revisionsOf(service, site, 'articles', article.id);
    expect(onlyRevision.version).toBe(1);
  });

  it('refuses bad input and unknown targets with the spec envelope', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'A' });
    expectError(await service.request('POST', `/items/articles/${article.id}/revert`, { ...site.as, body: {} }), 400, 'VALIDATION_FAILED', ['body', 'revisionId']);
    expectError(await service.request('GET', `/items/articles/${article.id}/revisions?limit=0`, site.as), 400, 'VALIDATION_FAILED', ['query', 'limit']);
    expectError(await service.request('GET', `/items/articles/${article.id}/revisions?page=0`, site.as), 400, 'VALIDATION_FAILED', ['query', 'page']);
    expectError(await service.request('GET', `/items/nowhere/${article.id}/revisions`, site.as), 404, 'NOT_FOUND');
    expectError(await service.request('GET', `/items/articles/missing-item/revisions`, site.as), 404, 'RECORD_NOT_FOUND');
    expectError(await service.request('GET', `/items/articles/${article.id}/revisions`, { site: site.siteId }), 401, 'UNAUTHENTICATED');
  });

  it('logs reads of pii fields that revisions show', async () => {
    const site = await createHistorySite(service);
    const added = await service.request('POST', '/fields/articles', { ...site.as, body: { field: 'email', type: 'string', sensitivity: 'pii' } });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const article = await createItem(service, site, 'articles', { title: 'A', email: 'a@example.test' });
    const response = await service.request('GET', `/items/articles/${article.id}/revisions`, site.as);
    expect(response.body.data[0].data.email).toBe('a@example.test');
    const logged = await service.context.database.withSite(site.siteId, (tx) =>
      tx.query<{ data: { reads: unknown[] } }>({ text: `SELECT data FROM events WHERE site_id = $1 AND type = 'item.sensitive_read'`, values: [site.siteId] }),
    );
    expect(logged.map((row) => row.data.reads)).toEqual([[{ collection: 'articles', itemId: article.id, fields: [{ field: 'email', sensitivity: 'pii' }] }]]);
  });

  it('never shows another site’s revisions', async () => {
    const site = await createHistorySite(service);
    const other = await createHistorySite(service);
    const foreign = await createItem(service, other, 'articles', { title: 'Foreign' });
    expectError(await service.request('GET', `/items/articles/${foreign.id}/revisions`, site.as), 404, 'RECORD_NOT_FOUND');
  });
});
