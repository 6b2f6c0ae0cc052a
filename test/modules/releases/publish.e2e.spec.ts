// Publishing and reverting releases over real HTTP and PostgreSQL: both atomicity modes and their
// outcomes, pinned revisions, the publisher's rules and the editorial gate as outcome reasons, a
// failed release published again, one release.published event and one change-feed entry, revert
// with and without force, every refusal with its code, and another site's releases out of reach.
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { createCollection } from '../../support/contentModel.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createMember, grant, withHelpers, type AccessSite } from '../access/support.ts';

const service = await startTestServiceForFile();
const owner = openOwnerDatabaseForFile();

interface Site extends AccessSite {
  articles: string[];
}

async function contentSite(count = 3, meta: Record<string, unknown> | null = null): Promise<Site> {
  const site = withHelpers(service, await createTestSite(service));
  await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
  if (meta) expect((await site.admin('PATCH', '/collections/articles', meta)).status).toBe(200);
  const articles: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const created = await site.admin('POST', '/items/articles', { title: `Article ${index}`, status: 'draft' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    articles.push(created.body.data.id);
  }
  return { ...site, articles };
}

const entry = (itemId: string, extra: Record<string, unknown> = {}) => ({ collection: 'articles', itemId, targetStatus: 'published', ...extra });

async function createRelease(site: Site, body: Record<string, unknown>): Promise<string> {
  const created = await site.admin('POST', '/releases', { name: 'Launch', ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data.id;
}

async function item(site: Site, id: string, collection = 'articles') {
  return (await site.admin('GET', `/items/${collection}/${id}`)).body.data;
}

async function versionOf(site: Site, id: string): Promise<number> {
  const [row] = await owner.query<{ version: number }>(sql`SELECT version FROM items WHERE site_id = ${site.siteId} AND id = ${id}`);
  return row!.version;
}

async function eventCount(site: Site, type: string): Promise<number> {
  const [row] = await owner.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM events WHERE site_id = ${site.siteId} AND type = ${type}`);
  return row!.n;
}

function expectError(response: { status: number; body: any }, status: number, code: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.errors[0].code).toBe(code);
}

describe('POST /releases/:id/publish', () => {
  it('publishes every item all or nothing, answers the outcomes, records one event and one feed entry, and refuses a second publish', async () => {
    const site = await contentSite();
    const [a, b] = site.articles as [string, string];
    const id = await createRelease(site, { addItems: [entry(a), entry(b, { targetStatus: 'archived' })] });

    const published = await site.admin('POST', `/releases/${id}/publish`);
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect(published.body.data.status).toBe('published');
    expect(published.body.data.release).toMatchObject({ id, status: 'published' });
    expect(published.body.data.release.publishedAt).toEqual(expect.any(String));
    expect(published.body.data.outcomes).toEqual(
      expect.arrayContaining([
        { collection: 'articles', itemId: a, outcome: 'published', fromVersion: 1, toVersion: 2 },
        { collection: 'articles', itemId: b, outcome: 'published', fromVersion: 1, toVersion: 2 },
      ]),
    );
    expect((await item(site, a)).status).toBe('published');
    expect((await item(site, b)).status).toBe('archived');
    const detail = (await site.admin('GET', `/releases/${id}`)).body.data;
    expect(detail.items.map((i: { outcome: string }) => i.outcome)).toEqual(['published', 'published']);

    expect(await eventCount(site, 'release.published')).toBe(1);
    // The item writes name the release as their cause.
    const causes = await owner.query<{ cause: unknown }>(sql`
      SELECT data->'cause' AS cause FROM events WHERE site_id = ${site.siteId} AND type = 'item.updated'`);
    expect(causes.map((row) => row.cause)).toEqual([{ releaseId: id }, { releaseId: id }]);
    await service.context.daemon.drain();
    const feed = await site.admin('GET', '/cdc/events?operations=releases.publish');
    expect(feed.status, JSON.stringify(feed.body)).toBe(200);
    expect(feed.body.data).toHaveLength(1);
    expect(feed.body.data[0]).toMatchObject({ type: 'releases.publish', snapshot: { releaseId: id, status: 'published', trigger: 'manual' } });
    const itemEntries = await site.admin('GET', '/cdc/events?operations=update&collections=articles');
    expect(itemEntries.body.data).toHaveLength(2);

    expectError(await site.admin('POST', `/releases/${id}/publish`), 409, 'ALREADY_PUBLISHED');
    expect(await eventCount(site, 'release.published')).toBe(1);
  });

  it('writes nothing in all_or_nothing when one item is blocked, then publishes what is publishable when published again', async () => {
    const site = await contentSite();
    const [a, b, c] = site.articles as [string, string, string];
    const id = await createRelease(site, { addItems: [entry(a), entry(b), entry(c)] });
    expect((await site.admin('DELETE', `/items/articles/${b}`)).status).toBe(204);

    const failed = await site.admin('POST', `/releases/${id}/publish`);
    expect(failed.status, JSON.stringify(failed.body)).toBe(200);
    expect(failed.body.data.status).toBe('failed');
    const byItem = Object.fromEntries(failed.body.data.outcomes.map((o: { itemId: string }) => [o.itemId, o]));
    expect(byItem[a]).toEqual({ collection: 'articles', itemId: a, outcome: 'skipped' });
    expect(byItem[b]).toMatchObject({ outcome: 'failed', reason: 'ITEM_DELETED' });
    expect(byItem[c]).toEqual({ collection: 'articles', itemId: c, outcome: 'skipped' });
    expect(await versionOf(site, a)).toBe(1);
    expect(await versionOf(site, c)).toBe(1);
    expect(await eventCount(site, 'item.updated')).toBe(0);
    expect((await site.admin('GET', `/releases/${id}`)).body.data.status).toBe('failed');

    // A failed release may be edited and published again: it publishes what is publishable now.
    expect((await site.admin('PATCH', `/releases/${id}`, { removeItems: [{ collection: 'articles', itemId: b }] })).status).toBe(200);
    const again = await site.admin('POST', `/releases/${id}/publish`);
    expect(again.body.data.status).toBe('published');
    expect((await item(site, a)).status).toBe('published');
    expect((await item(site, c)).status).toBe('published');
  });

  it('publishes each item on its own in best_effort: partially_failed, then published once the blocker is gone', async () => {
    const site = await contentSite(2, { editorialWorkflow: true });
    const [gated, deleted] = site.articles as [string, string];
    await createCollection(service, site, 'pages', [{ field: 'title', type: 'string' }]);
    const page = (await site.admin('POST', '/items/pages', { title: 'About', status: 'draft' })).body.data.id;
    const id = await createRelease(site, {
      atomicityMode: 'best_effort',
      addItems: [entry(gated), entry(deleted), { collection: 'pages', itemId: page, targetStatus: 'published' }],
    });
    expect((await site.admin('DELETE', `/items/articles/${deleted}`)).status).toBe(204);

    const partial = await site.admin('POST', `/releases/${id}/publish`);
    expect(partial.status, JSON.stringify(partial.body)).toBe(200);
    expect(partial.body.data.status).toBe('partially_failed');
    const byItem = Object.fromEntries(partial.body.data.outcomes.map((o: { itemId: string }) => [o.itemId, o]));
    expect(byItem[gated]).toMatchObject({ outcome: 'failed', reason: 'EDITORIAL_GATE_REQUIRED' });
    expect(byItem[deleted]).toMatchObject({ outcome: 'failed', reason: 'ITEM_DELETED' });
    expect(byItem[page]).toMatchObject({ outcome: 'published', fromVersion: 1, toVersion: 2 });
    expect((await item(site, page, 'pages')).status).toBe('published');
    expect((await item(site, gated)).status).toBe('draft');

    // Approved (which publishes it), the gated item is publishable; the deleted one leaves the release.
    const reviewer = await createMember(service, site);
    await grant(site, { userId: reviewer.userId }, [{ collection: null, action: 'review:editorial' }, { collection: 'articles', action: 'update' }]);
    expect((await site.admin('POST', `/editorial/articles/${gated}/submit-review`)).status).toBe(200);
    expect((await site.as(reviewer.token, 'POST', `/editorial/articles/${gated}/approve`)).status).toBe(200);
    await site.admin('PATCH', `/releases/${id}`, { removeItems: [{ collection: 'articles', itemId: deleted }] });
    const done = await site.admin('POST', `/releases/${id}/publish`);
    expect(done.body.data.status).toBe('published');
    expect(done.body.data.outcomes.every((o: { outcome: string }) => o.outcome === 'published')).toBe(true);
    expect(await eventCount(site, 'release.published')).toBe(2);
  });

  it("holds each item to the publisher's update rules, and refuses the route without the capability", async () => {
    const site = await contentSite(1);
    await createCollection(service, site, 'pages', [{ field: 'title', type: 'string' }]);
    const page = (await site.admin('POST', '/items/pages', { title: 'About', status: 'draft' })).body.data.id;
    const [article] = site.articles as [string];
    const id = await createRelease(site, { atomicityMode: 'best_effort', addItems: [entry(article), { collection: 'pages', itemId: page, targetStatus: 'published' }] });

    const member = await createMember(service, site);
    expectError(await site.as(member.token, 'POST', `/releases/${id}/publish`), 403, 'PERMISSION_DENIED');
    await grant(site, { userId: member.userId }, [
      { collection: null, action: 'releases:publish' },
      { collection: 'articles', action: 'read' },
      { collection: 'articles', action: 'update' },
    ]);
    const published = await site.as(member.token, 'POST', `/releases/${id}/publish`);
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect(published.body.data.status).toBe('partially_failed');
    const byItem = Object.fromEntries(published.body.data.outcomes.map((o: { itemId: string }) => [o.itemId, o]));
    expect(byItem[article]).toMatchObject({ outcome: 'published' });
    expect(byItem[page]).toMatchObject({ outcome: 'failed', reason: 'PERMISSION_DENIED' });
    expect((await item(site, page, 'pages')).status).toBe('draft');
    // The release routes themselves stay with site administrators.
    expectError(await site.as(member.token, 'GET', `/releases/${id}`), 403, 'PERMISSION_DENIED');
  });

  it("publishes a pinned revision's content with the target status, and reports a value the collection refuses", async () => {
    const site = withHelpers(service, await createTestSite(service));
    await createCollection(service, site, 'articles', [
      { field: 'title', type: 'string' },
      { field: 'code', type: 'string' },
    ]);
    const revisionOf = async (itemId: string) => (await site.admin('GET', `/items/articles/${itemId}/revisions`)).body.data[0].revisionId as string;
    const id = (await site.admin('POST', '/items/articles', { title: 'First title', code: 'x', status: 'draft' })).body.data.id;
    const firstRevision = await revisionOf(id);
    expect((await site.admin('PATCH', `/items/articles/${id}`, { title: 'Second title' })).status).toBe(200);
    // `code` becomes required after `other` lost its value: publishing that revision (a full replace) fails validation.
    const other = (await site.admin('POST', '/items/articles', { title: 'Other', code: 'y', status: 'draft' })).body.data.id;
    expect((await site.admin('PATCH', `/items/articles/${other}`, { code: null })).status).toBe(200);
    const withoutCode = await revisionOf(other);
    expect((await site.admin('PATCH', '/fields/articles/code', { required: true })).status).toBe(200);
    const contentSite = { ...site, articles: [] };
    const releaseId = await createRelease(contentSite, {
      atomicityMode: 'best_effort',
      addItems: [entry(id, { revisionId: firstRevision }), entry(other, { revisionId: withoutCode })],
    });

    const published = await site.admin('POST', `/releases/${releaseId}/publish`);
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const byItem = Object.fromEntries(published.body.data.outcomes.map((o: { itemId: string }) => [o.itemId, o]));
    expect(byItem[id]).toEqual({ collection: 'articles', itemId: id, outcome: 'published', fromVersion: 2, toVersion: 3 });
    expect(byItem[other]).toMatchObject({ outcome: 'failed', reason: 'VALIDATION_FAILED', message: 'Field "code" is required' });
    expect(await item(contentSite, id)).toMatchObject({ title: 'First title', code: 'x', status: 'published' });
    expect(await versionOf(contentSite, other)).toBe(2);
    const [event] = await owner.query<{ cause: unknown }>(sql`
      SELECT data->'cause' AS cause FROM events WHERE site_id = ${site.siteId} AND type = 'item.updated' ORDER BY position DESC LIMIT 1`);
    expect(event!.cause).toEqual({ releaseId, revisionId: firstRevision });
  });

  it('refuses an empty release (422), unknown or foreign ids (404), and members (403)', async () => {
    const site = await contentSite(1);
    const empty = await createRelease(site, {});
    expectError(await site.admin('POST', `/releases/${empty}/publish`), 422, 'EMPTY_RELEASE');
    expect(await eventCount(site, 'release.published')).toBe(0);
    expectError(await site.admin('POST', '/releases/not-a-uuid/publish'), 404, 'NOT_FOUND');
    expectError(await site.admin('POST', '/releases/0190d6a0-0000-7000-8000-00000000000a/publish'), 404, 'NOT_FOUND');
    expectError(await site.admin('POST', `/releases/${empty}/publish`, { extra: true }), 422, 'VALIDATION_FAILED');

    const id = await createRelease(site, { addItems: [entry(site.articles[0]!)] });
    const other = await contentSite(0);
    expectError(await other.admin('POST', `/releases/${id}/publish`), 404, 'NOT_FOUND');
    expectError(await other.admin('POST', `/releases/${id}/revert`), 404, 'NOT_FOUND');
    expect((await item(site, site.articles[0]!)).status).toBe('draft');
  });
});

describe('POST /releases/:id/revert', () => {
  it('brings every published item back to its revision before the publish, refusing items changed since unless forced', async () => {
    const site = await contentSite();
    const [a, b, c] = site.articles as [string, string, string];
    expect((await site.admin('PATCH', `/items/articles/${c}`, { status: 'published' })).status).toBe(200);
    const id = await createRelease(site, { addItems: [entry(a), entry(b, { targetStatus: 'archived' }), entry(c)] });
    expectError(await site.admin('POST', `/releases/${id}/revert`), 409, 'CONFLICT');
    expect((await site.admin('POST', `/releases/${id}/publish`)).body.data.status).toBe('published');

    expect((await site.admin('PATCH', `/items/articles/${b}`, { title: 'Edited after the release' })).status).toBe(200);
    const refused = await site.admin('POST', `/releases/${id}/revert`);
    expectError(refused, 409, 'CONFLICT');
    expect(refused.body.errors[0].extensions.items).toEqual([{ collection: 'articles', itemId: b, publishedVersion: 2, version: 3 }]);
    expect((await item(site, a)).status).toBe('published');

    const reverted = await site.admin('POST', `/releases/${id}/revert`, { force: true });
    expect(reverted.status, JSON.stringify(reverted.body)).toBe(200);
    // c already stood published: the release did not move it, and the revert leaves it.
    expect(reverted.body.data.items).toEqual([
      { collection: 'articles', itemId: a, fromVersion: 2, toVersion: 3, restoredVersion: 1 },
      { collection: 'articles', itemId: b, fromVersion: 3, toVersion: 4, restoredVersion: 1 },
    ]);
    expect(reverted.body.data.release.revertedAt).toEqual(expect.any(String));
    expect(await item(site, a)).toMatchObject({ status: 'draft', title: 'Article 0' });
    expect(await item(site, b)).toMatchObject({ status: 'draft', title: 'Article 1' });
    expect((await item(site, c)).status).toBe('published');
    expect(await eventCount(site, 'item.reverted')).toBe(2);
    expect(await eventCount(site, 'release.reverted')).toBe(1);
    expectError(await site.admin('POST', `/releases/${id}/revert`, { force: true }), 409, 'CONFLICT');
    expectError(await site.admin('POST', `/releases/${id}/revert`, { force: 'yes' }), 422, 'VALIDATION_FAILED');
  });
});
