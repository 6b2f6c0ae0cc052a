// Destructive changes (refused with 409 DESTRUCTIVE_BLOCKED unless allowDestructive=true), renames by
// a field's stable id, and an apply that fails midway leaving nothing behind.
import { describe, expect, it } from 'vitest';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { blogSchema, configSite, eventCount, manifest } from './support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();

/** A site with the blog schema and, unless `empty`, an article with a title and views. */
async function blogSite(options: { empty?: boolean } = {}) {
  const config = await configSite(service);
  await config.apply(manifest(blogSchema));
  if (!options.empty) {
    const created = await config.call('POST', '/items/articles', { title: 'Hello', views: 3 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
  return config;
}

const withoutViews = manifest({ ...blogSchema, fields: blogSchema.fields.filter((field) => field.field !== 'views') });

describe('the destructive guard', () => {
  it('refuses to drop a field that holds values, lists the change, and writes nothing; allowDestructive applies it', async () => {
    const { site, importManifest, dryRun, exportConfig } = await blogSite();
    const dry = await dryRun(withoutViews, 'replace-all');
    expect(dry.valid).toBe(true);
    expect(dry.diff.risk).toBe('high');
    expect(dry.diff.changes).toEqual([
      { resource: 'fields', action: 'delete', key: 'articles.views', destructive: 'items hold values in the field', path: null },
    ]);
    const before = await eventCount(owner, site.siteId);
    const refused = await importManifest(withoutViews, 'mode=replace-all');
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0]).toMatchObject({ code: 'DESTRUCTIVE_BLOCKED', extensions: { blocked: [{ resource: 'fields', action: 'delete', key: 'articles.views' }] } });
    expect(await eventCount(owner, site.siteId)).toBe(before);

    const allowed = await importManifest(withoutViews, 'mode=replace-all&allowDestructive=true');
    expect(allowed.status).toBe(200);
    expect(allowed.body.data.applied).toEqual({ created: 0, updated: 0, deleted: 1 });
    expect((await exportConfig()).fields.map((field: { id: string }) => field.id)).not.toContain('articles.views');
  });

  it('lets an empty field or collection go without the flag', async () => {
    const { apply, exportConfig } = await blogSite({ empty: true });
    const articlesOnly = manifest({
      collections: [blogSchema.collections[0]],
      fields: blogSchema.fields.filter((field) => field.collection === 'articles' && field.field !== 'views'),
    });
    const applied = await apply(articlesOnly, 'mode=replace-all');
    // The field, the collection and its relation (a deleted collection's fields go with it, uncounted).
    expect(applied.applied).toEqual({ created: 0, updated: 0, deleted: 3 });
    expect(applied.diff.risk).toBe('high');
    expect((await exportConfig()).collections.map((c: { name: string }) => c.name)).toEqual(['articles']);
  });

  it('refuses to drop a collection that holds items', async () => {
    const { importManifest } = await blogSite();
    const withoutArticles = manifest({ collections: [blogSchema.collections[1]], fields: [blogSchema.fields[3]] });
    const refused = await importManifest(withoutArticles, 'mode=replace-all');
    expect(refused.status).toBe(409);
    const blocked = refused.body.errors[0].extensions.blocked;
    expect(blocked).toEqual([{ resource: 'collections', action: 'delete', key: 'articles', destructive: 'the collection holds items', path: null }]);
    // The relation declared on it goes with it, as DELETE /collections/:name takes it.
    expect(refused.body.errors[0].extensions.diff.changes).toContainEqual(
      expect.objectContaining({ resource: 'relations', action: 'delete', key: 'articles.author', reason: 'collection "articles" is deleted' }),
    );
    expect((await importManifest(withoutArticles, 'mode=replace-all&allowDestructive=true')).status).toBe(200);
  });

  it("refuses a field's type change without the flag; with it, values are converted (docs/configuration.md)", async () => {
    const { importManifest } = await blogSite();
    const retyped = (field: string, type: string) =>
      manifest({ ...blogSchema, fields: blogSchema.fields.map((entry) => (entry.field === field ? { ...entry, type } : entry)) });
    const emptyField = await importManifest(retyped('author', 'string'));
    expect(emptyField.status).toBe(409);
    expect(emptyField.body.errors[0].extensions.blocked[0]).toMatchObject({ key: 'articles.author', destructive: 'the type changes from uuid to string' });
    expect((await importManifest(retyped('author', 'string'), 'mode=merge&allowDestructive=true')).status).toBe(200);

    const blocked = await importManifest(retyped('views', 'string'));
    expect([blocked.status, blocked.body.errors[0].code]).toEqual([409, 'DESTRUCTIVE_BLOCKED']);
    const withValues = await importManifest(retyped('views', 'string'), 'mode=merge&allowDestructive=true');
    expect(withValues.status, JSON.stringify(withValues.body)).toBe(200);
    expect(withValues.body.data.applied).toMatchObject({ converted: 1, nulled: 0 });
  });

  it("refuses widening a relation's onDelete to cascade, not narrowing it", async () => {
    const { importManifest } = await blogSite();
    const onDelete = (value: string) => manifest({ ...blogSchema, relations: [{ ...blogSchema.relations[0], onDelete: value }] });
    const widened = await importManifest(onDelete('cascade'));
    expect(widened.status).toBe(409);
    expect(widened.body.errors[0].extensions.blocked[0]).toMatchObject({ resource: 'relations', key: 'articles.author', destructive: 'onDelete widens from set null to cascade' });
    expect((await importManifest(onDelete('cascade'), 'mode=merge&allowDestructive=true')).status).toBe(200);
    const narrowed = await importManifest(onDelete('restrict'));
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.data.diff.risk).toBe('medium');
  });
});

describe('renames by stable id', () => {
  const renamed = (id: string, field: string) =>
    manifest({ ...blogSchema, fields: blogSchema.fields.map((entry) => (`${entry.collection}.${entry.field}` === id ? { ...entry, id, field } : entry)) });

  it('applies a field whose id names another field as a rename, even in merge mode, and then has nothing to do', async () => {
    const { site, dryRun, apply, exportConfig } = await blogSite({ empty: true });
    const body = renamed('articles.title', 'headline');
    const dry = await dryRun(body);
    expect(dry.diff.changes).toEqual([{ resource: 'fields', action: 'rename', key: 'articles.headline', from: 'articles.title', moves: 0, path: ['body', 'fields', 0] }]);
    expect(dry.diff).toMatchObject({ risk: 'medium', fields: { create: 0, update: 1, unchanged: 3, delete: 0 } });
    expect((await apply(body)).applied).toEqual({ created: 0, updated: 1, deleted: 0 });
    const ids = (await exportConfig()).fields.map((field: { id: string }) => field.id);
    expect(ids).toContain('articles.headline');
    expect(ids).not.toContain('articles.title');
    const { rows } = await owner.query<{ type: string }>(
      `SELECT type FROM events WHERE stream_id = $1 ORDER BY position DESC LIMIT 2`,
      [`${site.siteId}/collection/articles`],
    );
    expect(rows.map((row) => row.type).sort()).toEqual(['field.added', 'field.removed']);
    expect((await dryRun(body)).diff.changes).toEqual([]);
  });

  it('refuses a rename that changes the type without the flag, as a type change (renames.e2e.spec.ts: renames that move values)', async () => {
    const { importManifest } = await blogSite({ empty: true });
    const body = manifest({ ...blogSchema, fields: blogSchema.fields.map((entry) => (entry.field === 'views' ? { ...entry, id: 'articles.views', field: 'view_count', type: 'bigInteger' } : entry)) });
    const refused = await importManifest(body);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].extensions.blocked[0]).toMatchObject({ action: 'rename', key: 'articles.view_count', from: 'articles.views', destructive: 'the type changes from integer to bigInteger' });
  });

  it('refuses an id of another collection', async () => {
    const { dryRun } = await blogSite({ empty: true });
    const moved = manifest({ ...blogSchema, fields: [...blogSchema.fields.slice(0, 3), { id: 'articles.title', collection: 'authors', field: 'name', type: 'string' }] });
    expect((await dryRun(moved)).errors).toEqual([{ code: 'VALIDATION_FAILED', message: expect.stringContaining('stays in its collection'), path: ['body', 'fields', 3, 'id'] }]);
  });
});

describe('one transaction', () => {
  it('leaves nothing applied when the apply fails midway (the 50th subscription of the site)', async () => {
    const { site, call, importManifest, exportConfig } = await configSite(service);
    for (let index = 0; index < 49; index += 1) {
      const created = await call('POST', '/cdc/subscriptions', { name: `pull-${index}`, kind: 'pull' });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    const before = await eventCount(owner, site.siteId);
    const exportedBefore = await exportConfig();
    const webhook = (name: string) => ({ name, url: `https://hooks.example.com/${name}`, secret: 'a signing secret of enough length' });
    // Valid as a plan: the limit is the change feed's own rule, met by the second webhook, after the schema is written.
    const body = manifest({ ...blogSchema, webhooks: [webhook('first'), webhook('second')] });
    expect((await call('POST', '/config/import?dryRun=true', body)).body.data.valid).toBe(true);
    const failed = await importManifest(body);
    expect(failed.status).toBe(403);
    expect(await eventCount(owner, site.siteId)).toBe(before);
    const exportedAfter = await exportConfig();
    expect({ ...exportedAfter, exportedAt: null }).toEqual({ ...exportedBefore, exportedAt: null });
    expect((await call('GET', '/collections')).body.data).toEqual([]);
  });
});

describe("the site's own rules, in the dry-run as in the apply", () => {
  it("reports a deleted collection's name and a deleted relation's id, which their history reserves", async () => {
    const { call, dryRun, importManifest } = await blogSite({ empty: true });
    expect((await call('DELETE', '/relations/article-author')).status).toBe(204);
    expect((await call('DELETE', '/collections/authors')).status).toBe(204);
    const dry = await dryRun(manifest(blogSchema));
    expect(dry.valid).toBe(false);
    expect(dry.errors.map((error: { code: string; path: unknown[] }) => [error.code, error.path.join('.')])).toEqual([
      ['CONFLICT', 'body.collections.1.name'],
      ['CONFLICT', 'body.relations.0.id'],
    ]);
    const applied = await importManifest(manifest(blogSchema));
    expect(applied.status).toBe(409);
    expect(applied.body.errors[0].extensions.errors).toEqual(dry.errors);
  });
});
