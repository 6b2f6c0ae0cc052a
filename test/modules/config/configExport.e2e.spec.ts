// GET /config/export and the round trip between sites; webhooks (never with their secret) and
// settings in manifests; the routes are for site administrators and keep sites apart.
import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createMember } from '../identity/support/identity.ts';
import { blogSchema, configSite, manifest, withoutTime } from './support.ts';

const service = await startTestServiceForFile();

/** A schema with the kinds of fields and relations a real site has. */
const richSchema = {
  collections: [
    { name: 'articles', label: 'Articles', icon: 'article', note: 'News', versioning: true, status_field: 'status', editorialWorkflow: true },
    { name: 'authors', label: 'Authors', singleton: false },
    { name: 'tags', label: null },
    { name: 'articles_tags' },
    { name: 'blocks' },
    { name: 'hero' },
  ],
  fields: [
    { collection: 'articles', field: 'status', type: 'string', options: { choices: ['draft', 'published'] } },
    { collection: 'articles', field: 'title', type: 'string', required: true, indexed: true, options: { maxLength: 200, translatable: false }, note: 'Headline' },
    { collection: 'articles', field: 'body', type: 'text', interface: 'markdown', options: { translatable: true } },
    { collection: 'articles', field: 'price', type: 'decimal', options: { precision: 10, scale: 2 }, sensitivity: 'pii', sort: 4 },
    { collection: 'articles', field: 'author', type: 'uuid' },
    { collection: 'authors', field: 'name', type: 'string' },
    { collection: 'tags', field: 'label', type: 'string' },
    { collection: 'articles_tags', field: 'article', type: 'uuid' },
    { collection: 'articles_tags', field: 'tag', type: 'uuid' },
    { collection: 'blocks', field: 'article', type: 'uuid' },
    { collection: 'blocks', field: 'item', type: 'string' },
    { collection: 'blocks', field: 'kind', type: 'string' },
    { collection: 'hero', field: 'headline', type: 'string' },
  ],
  relations: [
    { id: 'by', kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors', relatedField: 'articles', onDelete: 'restrict' },
    { id: 'tagged', kind: 'm2m', collection: 'articles', field: 'tags', relatedCollection: 'tags', junctionCollection: 'articles_tags', junctionField: 'article', junctionRelatedField: 'tag' },
    {
      id: 'layout',
      kind: 'm2a',
      collection: 'articles',
      field: 'blocks',
      junctionCollection: 'blocks',
      junctionField: 'article',
      junctionItemField: 'item',
      junctionCollectionField: 'kind',
      allowedCollections: ['hero'],
    },
  ],
};

describe('GET /config/export', () => {
  it('exports the schema, webhooks without their secret, and stored settings; no items, secrets or access control', async () => {
    const { call, apply, exportConfig } = await configSite(service);
    await apply(manifest({ ...blogSchema, settings: [{ key: 'theme', value: { mode: 'dark' } }] }));
    await call('POST', '/items/articles', { title: 'Not configuration' });
    const hook = await call('POST', '/cdc/subscriptions', {
      name: 'search-indexer',
      kind: 'webhook',
      webhook: { url: 'https://hooks.example.com/index', secret: 'the webhook signing secret' },
      filters: { collections: ['articles'], operations: ['create', 'update'] },
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    await call('POST', '/cdc/subscriptions', { name: 'warehouse', kind: 'pull' });

    const exported = await exportConfig();
    expect(Object.keys(exported)).toEqual(['version', 'exportedAt', 'collections', 'fields', 'relations', 'webhooks', 'settings', 'managedScopes']);
    expect(exported.version).toBe('svc.config@v1');
    expect(Date.parse(exported.exportedAt)).not.toBeNaN();
    expect(exported.collections[0]).toEqual({
      name: 'articles',
      label: 'Articles',
      icon: null,
      note: null,
      singleton: false,
      versioning: true,
      status_field: null,
      sort_field: null,
      editorialWorkflow: false,
      requireSeparateReviewer: false,
    });
    expect(exported.fields[0]).toEqual({
      id: 'articles.title',
      collection: 'articles',
      field: 'title',
      type: 'string',
      interface: null,
      display: null,
      options: {},
      required: true,
      sort: null,
      sensitivity: null,
      indexed: false,
      note: null,
    });
    expect(exported.webhooks).toEqual([
      { name: 'search-indexer', url: 'https://hooks.example.com/index', filters: { collections: ['articles'], operations: ['create', 'update'] } },
    ]);
    expect(exported.settings).toEqual([{ key: 'theme', value: { mode: 'dark' } }]);
    expect(exported.managedScopes).toEqual(['schema', 'webhooks', 'settings']);
    const text = JSON.stringify(exported);
    expect(text).not.toContain('Not configuration');
    expect(text).not.toContain('signing secret');
    expect(text).not.toMatch(/secretCiphertext|roles|policies|permissions/);

    const schemaOnly = await exportConfig('schema');
    expect(schemaOnly).toMatchObject({ webhooks: [], settings: [], managedScopes: ['schema'] });
    expect(schemaOnly.fields).toEqual(exported.fields);
    expect(await exportConfig('webhooks')).toMatchObject({ collections: [], fields: [], relations: [], settings: [], managedScopes: ['webhooks'] });
    expect(await exportConfig('settings')).toMatchObject({ collections: [], webhooks: [], settings: exported.settings, managedScopes: ['settings'] });
  });

  it('round-trips: an export of site A imported into an empty site B gives identical exports', async () => {
    const a = await configSite(service);
    const applied = await a.apply(manifest({ ...richSchema, settings: [{ key: 'erasureDualControl', value: false }, { key: 'feature.flags', value: [1, 'two'] }] }));
    expect(applied.errors).toEqual([]);
    const fromA = await a.exportConfig();
    const b = await configSite(service);
    const intoB = await b.apply(fromA);
    expect(intoB.applied).toEqual({ created: 6 + 13 + 3 + 2, updated: 0, deleted: 0 });
    expect(withoutTime(await b.exportConfig())).toEqual(withoutTime(fromA));
    expect((await b.dryRun(fromA, 'replace-all')).diff.changes).toEqual([]);
  });
});

describe('webhooks and settings in a manifest', () => {
  const webhook = { name: 'notify', url: 'https://hooks.example.com/notify', filters: { collections: ['articles'], operations: null } };

  it('creates a webhook with the secret its entry gives, keeps the secret after, updates and deletes by name', async () => {
    const { call, dryRun, apply, exportConfig } = await configSite(service);
    const missing = await dryRun(manifest({ webhooks: [webhook] }));
    expect(missing.errors).toEqual([{ code: 'VALIDATION_FAILED', message: expect.stringContaining('secret'), path: ['body', 'webhooks', 0, 'secret'] }]);
    const withSecret = manifest({ webhooks: [{ ...webhook, secret: 'a secret of sixteen or more' }] });
    expect((await apply(withSecret)).applied).toEqual({ created: 1, updated: 0, deleted: 0 });
    const listed = (await call('GET', '/cdc/subscriptions')).body.data;
    expect(listed).toEqual([expect.objectContaining({ name: 'notify', kind: 'webhook', webhook: { url: webhook.url, hasSecret: true } })]);
    // The secret is write-only: an existing webhook keeps its own, and the same manifest has nothing to do.
    expect((await dryRun(withSecret)).diff.changes).toEqual([]);
    expect((await exportConfig()).webhooks).toEqual([webhook]);

    const moved = manifest({ webhooks: [{ ...webhook, url: 'https://hooks.example.com/v2', filters: { operations: ['delete'] } }] });
    const update = await dryRun(moved);
    expect(update.diff.changes).toEqual([
      {
        resource: 'webhooks',
        action: 'update',
        key: 'notify',
        changes: { url: { from: webhook.url, to: 'https://hooks.example.com/v2' }, collections: { from: ['articles'], to: null }, operations: { from: null, to: ['delete'] } },
        path: ['body', 'webhooks', 0],
      },
    ]);
    expect(update.diff.risk).toBe('medium');
    await apply(moved);
    expect((await exportConfig()).webhooks[0].url).toBe('https://hooks.example.com/v2');
    expect((await apply(manifest({ webhooks: [] }), 'mode=replace-all')).applied).toEqual({ created: 0, updated: 0, deleted: 1 });
    expect((await call('GET', '/cdc/subscriptions')).body.data).toEqual([]);
  });

  it("refuses a pull subscription's name, a refused URL, and settings the settings area refuses", async () => {
    const { call, dryRun } = await configSite(service);
    await call('POST', '/cdc/subscriptions', { name: 'warehouse', kind: 'pull' });
    const dry = await dryRun(
      manifest({
        webhooks: [
          { ...webhook, name: 'warehouse', secret: 'a secret of sixteen or more' },
          { ...webhook, url: 'http://127.0.0.1:9/private', secret: 'a secret of sixteen or more' },
        ],
        settings: [
          { key: 'smtp_password', value: 'hunter2' },
          { key: 'erasureDualControl', value: 'yes' },
        ],
      }),
    );
    expect(dry.errors.map((error: { code: string; path: unknown[] }) => [error.code, error.path.join('.')]).sort()).toEqual(
      [
        ['CONFLICT', 'body.webhooks.0.name'],
        ['VALIDATION_FAILED', 'body.webhooks.1.url'],
        ['VALIDATION_FAILED', 'body.settings.0.key'],
        ['VALIDATION_FAILED', 'body.settings.1.value'],
      ].sort(),
    );
  });
});

describe('access', () => {
  it('is for site administrators: a member gets 403, no token 401', async () => {
    const { site } = await configSite(service);
    const member = await createMember(service, site);
    for (const [method, path] of [
      ['GET', '/config/export'],
      ['POST', '/config/import?dryRun=true'],
      ['POST', '/config/import?mode=merge'],
    ] as const) {
      const body = method === 'POST' ? manifest(blogSchema) : undefined;
      expect((await service.request(method, path, { site: site.siteId, token: member.token, body })).status).toBe(403);
      expect((await service.request(method, path, { site: site.siteId, body })).status).toBe(401);
    }
    expect((await service.request('GET', '/collections', { site: site.siteId, token: site.adminToken })).body.data).toEqual([]);
  });

  it('keeps sites apart: an import changes only its own site, and an export shows only its own', async () => {
    const a = await configSite(service);
    const b = await configSite(service);
    await a.apply(manifest({ ...blogSchema, settings: [{ key: 'theme', value: 'a' }] }));
    await b.apply(manifest({ collections: [{ name: 'pages' }], settings: [{ key: 'theme', value: 'b' }] }));
    const fromB = await b.exportConfig();
    expect(fromB.collections.map((c: { name: string }) => c.name)).toEqual(['pages']);
    expect(fromB.relations).toEqual([]);
    expect(fromB.settings).toEqual([{ key: 'theme', value: 'b' }]);
    // replace-all on B deletes only B's configuration.
    await b.apply(manifest(), 'mode=replace-all');
    expect((await b.exportConfig()).collections).toEqual([]);
    expect((await a.exportConfig()).collections.map((c: { name: string }) => c.name)).toEqual(['articles', 'authors']);
    expect((await a.exportConfig()).settings).toEqual([{ key: 'theme', value: 'a' }]);
    // A's token is no administrator of B.
    const crossed = await service.request('GET', '/config/export', { site: b.site.siteId, token: a.site.adminToken });
    expect([crossed.status, crossed.body.errors[0].code]).toEqual([401, 'UNAUTHENTICATED']);
  });
});
