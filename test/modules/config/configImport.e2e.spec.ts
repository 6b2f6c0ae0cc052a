// POST /config/import: every manifest error reported at its path, dry-runs that write nothing, the
// three modes, and an apply that leaves nothing to do.
import { describe, expect, it } from 'vitest';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { blogSchema, configSite, eventCount, manifest, VERSION } from './support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();

describe('manifest errors', () => {
  it('refuses another version with UNSUPPORTED_MANIFEST_VERSION, on dry-run (200, valid false) and apply (400)', async () => {
    const { site, dryRun, importManifest } = await configSite(service);
    const dry = await dryRun({ ...manifest(blogSchema), version: 'svc.config@v2' });
    expect(dry).toEqual({
      valid: false,
      errors: [{ code: 'UNSUPPORTED_MANIFEST_VERSION', message: expect.stringContaining('svc.config@v1'), path: ['body', 'version'] }],
      diff: null,
    });
    const before = await eventCount(owner, site.siteId);
    const applied = await importManifest({ ...manifest(blogSchema), version: undefined });
    expect(applied.status).toBe(400);
    expect(applied.body.errors[0]).toMatchObject({ code: 'UNSUPPORTED_MANIFEST_VERSION', path: ['body', 'version'] });
    expect(await eventCount(owner, site.siteId)).toBe(before);
  });

  it('reports every error at once: duplicates, dangling references and malformed entries', async () => {
    const { site, dryRun, importManifest } = await configSite(service);
    const body = manifest({
      collections: [{ name: 'articles' }, { name: 'articles', label: 'Again' }, { name: 'tags' }],
      fields: [
        { collection: 'articles', field: 'title', type: 'string' },
        { collection: 'articles', field: 'title', type: 'text' },
        { collection: 'ghosts', field: 'name', type: 'string' },
        { collection: 'tags', field: 'label', type: 'no-such-type' },
      ],
      relations: [
        { kind: 'm2o', collection: 'articles', field: 'tag', relatedCollection: 'nowhere' },
        { kind: 'm2m', collection: 'phantoms', field: 'tags', relatedCollection: 'tags', junctionCollection: 'articles_tags', junctionField: 'a', junctionRelatedField: 'b' },
      ],
      settings: [
        { key: 'theme', value: 'dark' },
        { key: 'theme', value: 'light' },
      ],
    });
    const dry = await dryRun(body);
    expect(dry.valid).toBe(false);
    const found = dry.errors.map((error: { code: string; path: unknown[] }) => [error.code, error.path.join('.')]);
    expect(found).toEqual(
      expect.arrayContaining([
        ['DUPLICATE_KEY', 'body.collections.1.name'],
        ['DUPLICATE_KEY', 'body.fields.1.field'],
        ['DUPLICATE_KEY', 'body.settings.1.key'],
        ['VALIDATION_FAILED', 'body.fields.3.type'],
        ['DANGLING_REFERENCE', 'body.fields.2.collection'],
        ['DANGLING_REFERENCE', 'body.relations.0.relatedCollection'],
        ['DANGLING_REFERENCE', 'body.relations.1.collection'],
        ['DANGLING_REFERENCE', 'body.relations.1.junctionCollection'],
      ]),
    );
    expect(found).toHaveLength(8);
    for (const error of dry.errors) expect(error.message).toEqual(expect.any(String));

    const before = await eventCount(owner, site.siteId);
    const applied = await importManifest(body);
    expect(applied.status).toBe(400);
    expect(applied.body.errors[0].extensions.errors).toEqual(dry.errors);
    expect(await eventCount(owner, site.siteId)).toBe(before);
  });

  it('knows the site: a field of an existing collection is no dangling reference in merge, but is when replace-all deletes it', async () => {
    const { dryRun, apply } = await configSite(service);
    await apply(manifest(blogSchema));
    const fieldOnly = manifest({ collections: [{ name: 'authors', label: 'Authors' }], fields: [{ collection: 'articles', field: 'subtitle', type: 'string' }] });
    expect((await dryRun(fieldOnly, 'merge')).valid).toBe(true);
    const replaced = await dryRun(fieldOnly, 'replace-all');
    expect(replaced.errors).toEqual([{ code: 'DANGLING_REFERENCE', message: expect.stringContaining('deletes'), path: ['body', 'fields', 0, 'collection'] }]);
  });

  it('answers 400 VALIDATION_FAILED with a path for an unknown mode, scope or flag', async () => {
    const { call } = await configSite(service);
    const mode = await call('POST', '/config/import?dryRun=true&mode=overwrite', manifest());
    expect(mode.status).toBe(400);
    expect(mode.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['query', 'mode'] });
    const scope = await call('GET', '/config/export?scope=items');
    expect(scope.status).toBe(400);
    expect(scope.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['query', 'scope'] });
    const flag = await call('POST', '/config/import?dryRun=yes', manifest());
    expect(flag.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['query', 'dryRun'] });
    const notObject = await call('POST', '/config/import?dryRun=true', [1, 2]);
    expect(notObject.body.data).toEqual({ valid: false, errors: [{ code: 'VALIDATION_FAILED', message: expect.any(String), path: ['body'] }], diff: null });
  });
});

describe('dry-run and apply', () => {
  it('plans without writing, applies the plan in one go, and then has nothing left to do', async () => {
    const { site, dryRun, apply, call } = await configSite(service);
    const before = await eventCount(owner, site.siteId);
    const dry = await dryRun(manifest(blogSchema));
    expect(dry.valid).toBe(true);
    expect(dry.errors).toEqual([]);
    expect(dry.diff).toMatchObject({
      risk: 'low',
      collections: { create: 2, update: 0, unchanged: 0, delete: 0 },
      fields: { create: 4, update: 0, unchanged: 0, delete: 0 },
      relations: { create: 1, update: 0, unchanged: 0, delete: 0 },
      webhooks: { create: 0, update: 0, unchanged: 0, delete: 0 },
      settings: { create: 0, update: 0, unchanged: 0, delete: 0 },
    });
    expect(dry.diff.changes).toContainEqual({ resource: 'fields', action: 'create', key: 'articles.title', path: ['body', 'fields', 0] });
    expect(await eventCount(owner, site.siteId)).toBe(before);
    expect((await call('GET', '/collections')).body.data).toEqual([]);

    const applied = await apply(manifest(blogSchema));
    expect(applied).toMatchObject({ valid: true, errors: [], applied: { created: 7, updated: 0, deleted: 0 } });
    const collections = (await call('GET', '/collections')).body.data;
    expect(collections.map((collection: { name: string }) => collection.name)).toEqual(['articles', 'authors']);
    expect((await call('GET', '/relations/article-author')).body.data).toMatchObject({ kind: 'm2o', relatedCollection: 'authors' });
    // The same events a REST call appends, with the importer as actor.
    const { rows } = await owner.query<{ type: string; actor: { kind: string; id: string } }>(
      `SELECT type, metadata->'actor' AS actor FROM events WHERE site_id = $1 AND stream_id LIKE $2 ORDER BY position`,
      [site.siteId, `${site.siteId}/collection/%`],
    );
    expect(rows.map((row) => row.type)).toEqual(['collection.created', 'field.added', 'field.added', 'field.added', 'collection.created', 'field.added']);
    expect(rows.every((row) => row.actor.id === site.adminUserId)).toBe(true);

    const after = await eventCount(owner, site.siteId);
    const again = await dryRun(manifest(blogSchema));
    expect(again.diff.changes).toEqual([]);
    expect(again.diff).toMatchObject({ risk: 'low', collections: { unchanged: 2 }, fields: { unchanged: 4 }, relations: { unchanged: 1 } });
    expect((await apply(manifest(blogSchema))).applied).toEqual({ created: 0, updated: 0, deleted: 0 });
    expect(await eventCount(owner, site.siteId)).toBe(after);
  });

  it('takes an export as it comes, in its { data } envelope, with error paths under data', async () => {
    const source = await configSite(service);
    await source.apply(manifest(blogSchema));
    const exported = await source.call('GET', '/config/export');
    const target = await configSite(service);
    expect((await target.apply(exported.body)).applied).toEqual({ created: 7, updated: 0, deleted: 0 });
    const wrong = await target.dryRun({ data: { ...exported.body.data, version: 'v0' } });
    expect(wrong.errors[0].path).toEqual(['body', 'data', 'version']);
  });
});

describe('modes', () => {
  async function siteWithExtras() {
    const config = await configSite(service);
    await config.apply(
      manifest({
        collections: [...blogSchema.collections, { name: 'drafts' }, { name: 'legacy' }],
        fields: [...blogSchema.fields, { collection: 'articles', field: 'old_note', type: 'text' }, { collection: 'drafts', field: 'body', type: 'text' }],
        relations: blogSchema.relations,
        settings: [{ key: 'theme', value: 'dark' }, { key: 'legacy_flag', value: true }],
      }),
    );
    return config;
  }
  const target = manifest({ ...blogSchema, collections: [{ name: 'articles', label: 'Posts', versioning: true }, blogSchema.collections[1]], settings: [{ key: 'theme', value: 'light' }] });

  it('merge creates and updates, and deletes nothing', async () => {
    const { dryRun, apply, exportConfig } = await siteWithExtras();
    const dry = await dryRun(target, 'merge');
    expect(dry.diff.changes).toEqual([
      { resource: 'collections', action: 'update', key: 'articles', changes: { label: { from: 'Articles', to: 'Posts' } }, path: ['body', 'collections', 0] },
      { resource: 'settings', action: 'update', key: 'theme', changes: { value: { from: 'dark', to: 'light' } }, path: ['body', 'settings', 0] },
    ]);
    expect(dry.diff.risk).toBe('low');
    await apply(target);
    const exported = await exportConfig();
    expect(exported.collections.map((c: { name: string }) => c.name)).toEqual(['articles', 'authors', 'drafts', 'legacy']);
    expect(exported.settings).toEqual([{ key: 'legacy_flag', value: true }, { key: 'theme', value: 'light' }]);
  });

  it('replace-managed deletes only within managedScopes', async () => {
    const { dryRun, apply, exportConfig } = await siteWithExtras();
    const scoped = { ...target, managedScopes: ['collection:articles', 'collection:leg*', 'setting:legacy_flag'] };
    const dry = await dryRun(scoped, 'replace-managed');
    const keys = dry.diff.changes.filter((change: { action: string }) => change.action === 'delete').map((change: { key: string }) => change.key);
    expect(keys.sort()).toEqual(['articles.old_note', 'legacy', 'legacy_flag']);
    expect(dry.diff.risk).toBe('high');
    await apply(scoped, 'mode=replace-managed');
    const exported = await exportConfig();
    expect(exported.collections.map((c: { name: string }) => c.name)).toEqual(['articles', 'authors', 'drafts']);
    expect(exported.fields.map((f: { id: string }) => f.id)).toEqual(['articles.title', 'articles.views', 'articles.author', 'authors.name', 'drafts.body']);
    expect(exported.settings).toEqual([{ key: 'theme', value: 'light' }]);
    expect((await dryRun(scoped, 'replace-managed')).diff.changes).toEqual([]);
  });

  it('replace-all deletes whatever is absent; a section left out is left alone', async () => {
    const { dryRun, apply, exportConfig } = await siteWithExtras();
    const { settings: _settings, ...withoutSettings } = target;
    const dry = await dryRun(withoutSettings, 'replace-all');
    const deleted = dry.diff.changes.filter((change: { action: string }) => change.action === 'delete').map((change: { resource: string; key: string }) => `${change.resource}:${change.key}`);
    expect(deleted.sort()).toEqual(['collections:drafts', 'collections:legacy', 'fields:articles.old_note']);
    await apply(withoutSettings, 'mode=replace-all');
    const exported = await exportConfig();
    expect(exported.collections.map((c: { name: string }) => c.name)).toEqual(['articles', 'authors']);
    expect(exported.settings).toEqual([{ key: 'legacy_flag', value: true }, { key: 'theme', value: 'dark' }]);
    await apply(target, 'mode=replace-all');
    expect((await exportConfig()).settings).toEqual([{ key: 'theme', value: 'light' }]);
    expect((await dryRun(target, 'replace-all')).diff.changes).toEqual([]);
    expect(VERSION).toBe('svc.config@v1');
  });
});
