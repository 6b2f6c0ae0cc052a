import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createHistorySite, createItem, expectError, patchItem, revisionsOf, type HistorySite } from './support.ts';

const service = await startTestServiceForFile();

async function createVersion(site: HistorySite, id: string, key = 'draft', name = 'Draft') {
  const response = await service.request('POST', `/items/articles/${id}/versions`, { ...site.as, body: { key, name } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data;
}

describe('named versions', () => {
  it('creates a version as a snapshot of main, lists it, reads it', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'Main', body: 'text', secret: 'pw' });
    const version = await createVersion(site, article.id, 'spring-edit', 'Spring edit');
    expect(version).toMatchObject({ key: 'spring-edit', name: 'Spring edit', item: article.id, collection: 'articles', baseVersion: 1, mainChanged: false });
    expect(version.data).toEqual({ title: 'Main', body: 'text', secret: '**********' });
    expect(version.userCreated).toBe(site.adminUserId);

    const list = await service.request('GET', `/items/articles/${article.id}/versions`, site.as);
    expect(list.status).toBe(200);
    expect(list.body.data.map((entry: { key: string; mainChanged: boolean }) => [entry.key, entry.mainChanged])).toEqual([['spring-edit', false]]);
    const one = await service.request('GET', `/items/articles/${article.id}/versions/spring-edit`, site.as);
    expect(one.status).toBe(200);
    expect(one.body.data.name).toBe('Spring edit');
  });

  it('edits a version without touching main, and compares the two', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'Main', body: 'text', views: 1 });
    await createVersion(site, article.id);
    const patched = await service.request('PATCH', `/items/articles/${article.id}/versions/draft`, {
      ...site.as,
      body: { name: 'Renamed', data: { title: 'Draft title', views: 2 } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ name: 'Renamed', data: { title: 'Draft title', body: 'text', views: 2 }, mainChanged: false });

    const main = await service.request('GET', `/items/articles/${article.id}`, site.as);
    expect(main.body.data).toMatchObject({ title: 'Main', views: 1 });
    expect(await revisionsOf(service, site, 'articles', article.id)).toHaveLength(1);

    const compare = await service.request('GET', `/items/articles/${article.id}/versions/draft/compare`, site.as);
    expect(compare.status).toBe(200);
    expect(compare.body.data.main).toMatchObject({ id: article.id, title: 'Main', views: 1 });
    expect(compare.body.data.version).toMatchObject({ key: 'draft', title: 'Draft title', views: 2, body: 'text' });
    expect(compare.body.data.changes).toEqual({ title: 'Draft title', views: 2 });
  });

  it('flags mainChanged once main moves on, and promotes with mainDiverged, keeping main’s other edits', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'Main', body: 'text', views: 1 });
    await createVersion(site, article.id);
    await service.request('PATCH', `/items/articles/${article.id}/versions/draft`, { ...site.as, body: { data: { title: 'From version' } } });
    await patchItem(service, site, 'articles', article.id, { body: 'edited on main' });

    const list = await service.request('GET', `/items/articles/${article.id}/versions`, site.as);
    expect(list.body.data[0].mainChanged).toBe(true);

    const promoted = await service.request('POST', `/items/articles/${article.id}/versions/draft/promote`, site.as);
    expect(promoted.status).toBe(200);
    expect(promoted.body.meta.mainDiverged).toBe(true);
    expect(promoted.body.data).toMatchObject({ title: 'From version', body: 'edited on main', views: 1 });

    const [latest] = await revisionsOf(service, site, 'articles', article.id);
    expect(latest.event).toBe('item.promoted');
    expect(latest.cause).toEqual({ versionKey: 'draft' });
    expect(latest.delta).toEqual({ title: 'From version' });
    expect(promoted.body.meta.revisionId).toBe(latest.revisionId);

    const after = await service.request('GET', `/items/articles/${article.id}/versions/draft`, site.as);
    expect(after.body.data).toMatchObject({ mainChanged: false, baseVersion: 3, data: { title: 'From version', body: 'edited on main' } });
    expect(after.body.data.promotedAt).not.toBeNull();
  });

  it('promotes without divergence when main did not change', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'Main' });
    await createVersion(site, article.id);
    await service.request('PATCH', `/items/articles/${article.id}/versions/draft`, { ...site.as, body: { data: { title: 'Better' } } });
    const promoted = await service.request('POST', `/items/articles/${article.id}/versions/draft/promote`, site.as);
    expect(promoted.status).toBe(200);
    expect(promoted.body.meta.mainDiverged).toBe(false);
    const main = await service.request('GET', `/items/articles/${article.id}`, site.as);
    expect(main.body.data.title).toBe('Better');
  });

  it('refuses a duplicate key with 409, and frees the key once deleted', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'Main' });
    await createVersion(site, article.id);
    const duplicate = await service.request('POST', `/items/articles/${article.id}/versions`, { ...site.as, body: { key: 'draft', name: 'Again' } });
    expectError(duplicate, 409, 'CONFLICT', ['body', 'key']);

    const deleted = await service.request('DELETE', `/items/articles/${article.id}/versions/draft`, site.as);
    expect(deleted.status).toBe(204);
    expectError(await service.request('GET', `/items/articles/${article.id}/versions/draft`, site.as), 404, 'NOT_FOUND');
    expectError(await service.request('DELETE', `/items/articles/${article.id}/versions/draft`, site.as), 404, 'NOT_FOUND');
    const list = await service.request('GET', `/items/articles/${article.id}/versions`, site.as);
    expect(list.body.data).toEqual([]);
    await createVersion(site, article.id, 'draft', 'Reused');
  });

  it('keeps versions per item: the same key on two items is two versions', async () => {
    const site = await createHistorySite(service);
    const first = await createItem(service, site, 'articles', { title: 'One' });
    const second = await createItem(service, site, 'articles', { title: 'Two' });
    await createVersion(site, first.id);
    await createVersion(site, second.id);
    const read = await service.request('GET', `/items/articles/${second.id}/versions/draft`, site.as);
    expect(read.body.data.data.title).toBe('Two');
  });

  it('validates keys, names and data', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'Main' });
    const post = (body: unknown) => service.request('POST', `/items/articles/${article.id}/versions`, { ...site.as, body });
    expectError(await post({ key: 'Bad Key', name: 'x' }), 400, 'VALIDATION_FAILED', ['body', 'key']);
    expectError(await post({ key: 'a'.repeat(65), name: 'x' }), 400, 'VALIDATION_FAILED', ['body', 'key']);
    expectError(await post({ key: 'ok' }), 400, 'VALIDATION_FAILED', ['body', 'name']);
    expectError(await service.request('GET', `/items/articles/${article.id}/versions/BAD!`, site.as), 400, 'VALIDATION_FAILED', ['params', 'key']);
    await createVersion(site, article.id);
    const patch = (body: unknown) => service.request('PATCH', `/items/articles/${article.id}/versions/draft`, { ...site.as, body });
    expectError(await patch({ data: { nope: 1 } }), 400, 'VALIDATION_FAILED', ['body', 'data', 'nope']);
    expectError(await patch({ data: { id: 'x' } }), 400, 'VALIDATION_FAILED', ['body', 'data', 'id']);
    expectError(await patch({}), 400, 'VALIDATION_FAILED', ['body']);
    // Values follow the item's own rules, as in a PATCH of the item (promote replays them as one).
    expectError(await patch({ data: { views: 'many' } }), 400, 'VALIDATION_FAILED', ['body', 'data', 'views']);
    expectError(await patch({ data: { views: 2 ** 31 } }), 400, 'VALIDATION_FAILED', ['body', 'data', 'views']);
    expectError(await patch({ data: { title: null } }), 400, 'VALIDATION_FAILED', ['body', 'data', 'title']);
    expectError(await patch({ data: { title: 7 } }), 400, 'VALIDATION_FAILED', ['body', 'data', 'title']);
    const unchanged = await service.request('GET', `/items/articles/${article.id}/versions/draft`, site.as);
    expect(unchanged.body.data.data).toEqual({ title: 'Main' });
  });

  it('stores a hash field of a version hashed, in its events too, and promotes the hash', async () => {
    const site = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'Main', secret: 'first secret' });
    await createVersion(site, article.id);
    const patched = await service.request('PATCH', `/items/articles/${article.id}/versions/draft`, { ...site.as, body: { data: { secret: 'second secret' } } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data.data.secret).toBe('**********');
    // Sending the mask back keeps the version's hash; a name change alone writes no data.
    const masked = await service.request('PATCH', `/items/articles/${article.id}/versions/draft`, { ...site.as, body: { data: { secret: '**********', title: 'Edited' } } });
    expect(masked.status, JSON.stringify(masked.body)).toBe(200);

    const owner = new pg.Client({ connectionString: inject('databaseUrl') });
    await owner.connect();
    try {
      const log = await owner.query<{ data: string }>(`SELECT data::text FROM events WHERE site_id = $1 AND type LIKE 'version.%'`, [site.siteId]);
      expect(log.rows.length).toBeGreaterThan(1);
      for (const row of log.rows) expect(row.data).not.toContain('second secret');
      const promoted = await service.request('POST', `/items/articles/${article.id}/versions/draft/promote`, { ...site.as, body: {} });
      expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
      const stored = await owner.query<{ secret: string }>(`SELECT data->>'secret' AS secret FROM items WHERE site_id = $1 AND id = $2`, [site.siteId, article.id]);
      expect(stored.rows[0]!.secret).toMatch(/^\$argon2id\$/);
      const versionEvents = await owner.query<{ secret: string }>(
        `SELECT data->'data'->>'secret' AS secret FROM events WHERE site_id = $1 AND type = 'version.updated' ORDER BY position`,
        [site.siteId],
      );
      // The hash the version holds is the one main now has: promote copies it, it does not hash it again.
      expect(versionEvents.rows.at(-1)!.secret).toBe(stored.rows[0]!.secret);
      expect(versionEvents.rows[0]!.secret).toBe(stored.rows[0]!.secret);
    } finally {
      await owner.end();
    }
  });

  it('answers 404 for unknown versions, items, collections, and another site’s items', async () => {
    const site = await createHistorySite(service);
    const other = await createHistorySite(service);
    const article = await createItem(service, site, 'articles', { title: 'Main' });
    const foreign = await createItem(service, other, 'articles', { title: 'Foreign' });
    await service.request('POST', `/items/articles/${foreign.id}/versions`, { ...other.as, body: { key: 'draft', name: 'x' } });

    expectError(await service.request('GET', `/items/articles/${article.id}/versions/none`, site.as), 404, 'NOT_FOUND');
    expectError(await service.request('GET', `/items/articles/${article.id}/versions/none/compare`, site.as), 404, 'NOT_FOUND');
    expectError(await service.request('POST', `/items/articles/${article.id}/versions/none/promote`, site.as), 404, 'NOT_FOUND');
    expectError(await service.request('PATCH', `/items/articles/${article.id}/versions/none`, { ...site.as, body: { name: 'x' } }), 404, 'NOT_FOUND');
    expectError(await service.request('POST', `/items/articles/missing/versions`, { ...site.as, body: { key: 'a', name: 'b' } }), 404, 'RECORD_NOT_FOUND');
    expectError(await service.request('GET', `/items/articles/missing/versions`, site.as), 404, 'RECORD_NOT_FOUND');
    expectError(await service.request('GET', `/items/nowhere/${article.id}/versions`, site.as), 404, 'NOT_FOUND');
    expectError(await service.request('GET', `/items/articles/${foreign.id}/versions`, site.as), 404, 'RECORD_NOT_FOUND');
    expectError(await service.request('GET', `/items/articles/${foreign.id}/versions/draft`, site.as), 404, 'NOT_FOUND');
  });
});
