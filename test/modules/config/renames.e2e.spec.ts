// A field renamed in a manifest (same `id`, new `field`) keeps its values: the apply adds the new
// field, moves each item's value (live or soft-deleted) with an `item.updated` through the items'
// write path, and removes the old field, all in the import's one transaction.
import { describe, expect, it } from 'vitest';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { blogSchema, configSite, eventCount, manifest } from './support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();

type Fields = typeof blogSchema.fields;
/** The blog schema with some of its fields renamed (and changed) by id. */
function renamedSchema(renames: Record<string, Record<string, unknown>>) {
  const fields: Fields = blogSchema.fields.map((entry) => {
    const id = `${entry.collection}.${entry.field}`;
    return (renames[id] ? { ...entry, id, ...renames[id] } : entry) as Fields[number];
  });
  return manifest({ ...blogSchema, fields });
}

const titleAndViews = renamedSchema({ 'articles.title': { field: 'headline' }, 'articles.views': { field: 'view_count' } });

/** A site with the blog schema and three articles: two live, one soft-deleted (`gone`); `plain` has no views. */
async function blogSite() {
  const config = await configSite(service);
  await config.apply(manifest(blogSchema));
  const created = await config.call('POST', '/items/articles', [
    { title: 'Live', views: 1 },
    { title: 'Plain' },
    { title: 'Gone', views: 3 },
  ]);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const [live, plain, gone] = (created.body.data as { id: string }[]).map((item) => item.id) as [string, string, string];
  expect((await config.call('DELETE', `/items/articles/${gone}`)).status).toBe(204);
  return { ...config, live, plain, gone };
}

async function eventTypes(siteId: string, itemId: string): Promise<string[]> {
  const { rows } = await owner.query<{ type: string }>(`SELECT type FROM events WHERE site_id = $1 AND stream_id = $2 ORDER BY position`, [
    siteId,
    `${siteId}/item/articles/${itemId}`,
  ]);
  return rows.map((row) => row.type);
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const until = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a rename moves the values', () => {
  it('counts the values in the dry-run, moves them in live and soft-deleted items, and then has nothing to do', async () => {
    const { site, call, dryRun, apply, exportConfig, live, plain, gone } = await blogSite();
    const dry = await dryRun(titleAndViews);
    expect(dry.valid).toBe(true);
    expect(dry.diff.risk).toBe('medium');
    expect(dry.diff.fields).toEqual({ create: 0, update: 2, unchanged: 2, delete: 0 });
    expect(dry.diff.changes).toEqual([
      { resource: 'fields', action: 'rename', key: 'articles.headline', from: 'articles.title', moves: 3, path: ['body', 'fields', 0] },
      { resource: 'fields', action: 'rename', key: 'articles.view_count', from: 'articles.views', moves: 2, path: ['body', 'fields', 1] },
    ]);

    const applied = await apply(titleAndViews);
    expect(applied.applied).toEqual({ created: 0, updated: 2, deleted: 0 });
    // A renamed field is declared anew, so it comes after the fields it used to precede.
    const ids = (await exportConfig()).fields.map((field: { id: string }) => field.id);
    expect(ids).toEqual(['articles.author', 'articles.headline', 'articles.view_count', 'authors.name']);

    const listed = await call('GET', '/items/articles?sort=headline');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((item: Record<string, unknown>) => [item.id, item.headline, item.view_count, 'title' in item, 'views' in item])).toEqual([
      [live, 'Live', 1, false, false],
      [plain, 'Plain', null, false, false],
    ]);
    expect((await call('GET', `/items/articles/${gone}`)).status).toBe(404);

    // One item.updated per moved item; the soft-deleted one stays deleted (its deletion restated).
    expect(await eventTypes(site.siteId, live)).toEqual(['item.created', 'item.updated']);
    expect(await eventTypes(site.siteId, plain)).toEqual(['item.created', 'item.updated']);
    expect(await eventTypes(site.siteId, gone)).toEqual(['item.created', 'item.deleted', 'item.updated', 'item.deleted']);
    const revisions = await call('GET', `/items/articles/${live}/revisions`);
    expect(revisions.status).toBe(200);
    expect(revisions.body.data[0]).toMatchObject({ event: 'item.updated', data: { headline: 'Live', view_count: 1 } });
    const audit = await eventually(
      () => call('GET', '/audit?limit=200&filter[action][_eq]=item.updated'),
      (response) => response.body.meta?.total === 3,
      'the audit list',
    );
    expect(audit.body.data.map((entry: { actor: { id: string } }) => entry.actor.id)).toEqual([site.adminUserId, site.adminUserId, site.adminUserId]);

    // The soft-deleted item, restored (reverted to its newest revision), shows its moved values.
    const goneRevisions = await call('GET', `/items/articles/${gone}/revisions`);
    const moved = goneRevisions.body.data.find((revision: { event: string }) => revision.event === 'item.updated');
    expect(moved).toMatchObject({ data: { headline: 'Gone', view_count: 3 } });
    const reverted = await call('POST', `/items/articles/${gone}/revert`, { revisionId: moved.revisionId });
    expect(reverted.status, JSON.stringify(reverted.body)).toBe(200);
    expect((await call('GET', `/items/articles/${gone}`)).body.data).toMatchObject({ headline: 'Gone', view_count: 3 });

    // Idempotent: nothing left to plan or write.
    expect((await dryRun(titleAndViews)).diff.changes).toEqual([]);
    const before = await eventCount(owner, site.siteId);
    expect((await apply(titleAndViews)).applied).toEqual({ created: 0, updated: 0, deleted: 0 });
    expect(await eventCount(owner, site.siteId)).toBe(before);
  });

  it('still refuses a rename that changes the type without the flag; with it, the values are not moved', async () => {
    const { call, dryRun, importManifest, live } = await blogSite();
    const retyped = renamedSchema({ 'articles.views': { field: 'view_count', type: 'bigInteger' } });
    const dry = await dryRun(retyped);
    expect(dry.diff.risk).toBe('high');
    expect(dry.diff.changes[0]).toMatchObject({ action: 'rename', changes: { type: { from: 'integer', to: 'bigInteger' } } });
    expect(dry.diff.changes[0].destructive).toMatch(/^the type changes from integer to bigInteger; 2 items' values are not moved/);
    const refused = await importManifest(retyped);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0]).toMatchObject({ code: 'DESTRUCTIVE_BLOCKED', extensions: { blocked: [{ action: 'rename', key: 'articles.view_count' }] } });
    expect((await importManifest(retyped, 'mode=merge&allowDestructive=true')).status).toBe(200);
    expect((await call('GET', `/items/articles/${live}`)).body.data).toMatchObject({ title: 'Live', view_count: null });
  });

  it('leaves nothing moved when a later change of the same import is refused', async () => {
    const { site, call, importManifest, live } = await blogSite();
    for (let index = 0; index < 49; index += 1) {
      const created = await call('POST', '/cdc/subscriptions', { name: `pull-${index}`, kind: 'pull' });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    const before = await eventCount(owner, site.siteId);
    const webhook = (name: string) => ({ name, url: `https://hooks.example.com/${name}`, secret: 'a signing secret of enough length' });
    // The second webhook is the site's 51st subscription: the change feed refuses it, after the move.
    const failed = await importManifest({ ...titleAndViews, webhooks: [webhook('first'), webhook('second')] });
    expect(failed.status).toBe(403);
    expect(await eventCount(owner, site.siteId)).toBe(before);
    expect((await call('GET', `/items/articles/${live}`)).body.data).toMatchObject({ title: 'Live', views: 1 });
    expect(await eventTypes(site.siteId, live)).toEqual(['item.created']);
  });
});

describe('the move of a collection of many items', () => {
  // Correctness at more than a handful of items; the move rate is measured outside the suite (docs/configuration.md).
  it('moves every value in one apply', async () => {
    const { site, apply, call } = await configSite(service);
    await apply(manifest(blogSchema));
    const items = Array.from({ length: 600 }, (_, index) => ({ title: `Article ${index}`, views: index }));
    expect((await call('POST', '/items/articles', items)).status).toBe(201);
    const applied = await apply(renamedSchema({ 'articles.title': { field: 'headline' } }));
    expect(applied.diff.changes[0].moves).toBe(600);
    const { rows } = await owner.query<{ n: number }>(`SELECT count(*)::int AS n FROM items WHERE site_id = $1 AND data ->> 'headline' LIKE 'Article %' AND data ->> 'title' IS NULL`, [site.siteId]);
    expect(rows[0]!.n).toBe(600);
  });
});
