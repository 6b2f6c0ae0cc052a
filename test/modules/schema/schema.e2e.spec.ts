import { describe, expect, it } from 'vitest';
import { settledIndexes } from '../../support/fieldIndexes.ts';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { createTestSite, startTestService, startTestServiceForFile } from '../../support/testService.ts';
import { createMember } from '../identity/support/identity.ts';
import { adminCalls, articles, eventCount, siteWithArticlesAndAuthors } from './support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();

describe('collections', () => {
  it('creates, lists, reads, updates the meta of and soft-deletes a collection', async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    const created = await call('POST', '/collections', articles);
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'articles', displayName: 'Articles', icon: 'article', singleton: false, note: null });
    expect((await call('GET', '/collections')).body.data.map((c: { name: string }) => c.name)).toEqual(['articles']);
    expect((await call('GET', '/collections/articles')).body.data.displayName).toBe('Articles');
    const patched = await call('PATCH', '/collections/articles', { note: 'News', editorialWorkflow: true });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ note: 'News', editorialWorkflow: true, icon: 'article' });

    const item = await call('POST', '/items/articles', { title: 'Kept in history' });
    expect(item.status).toBe(201);
    expect((await call('DELETE', '/collections/articles')).status).toBe(204);
    expect((await call('GET', '/collections/articles')).body.errors[0].code).toBe('NOT_FOUND');
    expect((await call('GET', '/collections')).body.data).toEqual([]);
    const items = await call('GET', '/items/articles');
    expect([items.status, items.body.errors[0].code]).toEqual([404, 'NOT_FOUND']);
    const { rows } = await owner.query('SELECT type FROM events WHERE stream_id = $1', [`${site.siteId}/item/articles/${item.body.data.id}`]);
    expect(rows.map((row) => row.type)).toEqual(['item.created']);
    const again = await call('POST', '/collections', { name: 'articles' });
    expect([again.status, again.body.errors[0].code, again.body.errors[0].path]).toEqual([409, 'CONFLICT', ['body', 'name']]);
  });

  it('refuses a bad body with VALIDATION_FAILED and its path, and writes nothing', async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    const before = await eventCount(owner, site.siteId);
    const badName = await call('POST', '/collections', { name: '1 bad' });
    expect([badName.status, badName.body.errors[0].code, badName.body.errors[0].path]).toEqual([400, 'VALIDATION_FAILED', ['body', 'name']]);
    const badField = await call('POST', '/collections', { name: 'ok', fields: [{ field: 'a', type: 'varchar' }] });
    expect(badField.body.errors[0].path).toEqual(['body', 'fields', 0, 'type']);
    const unknownKey = await call('POST', '/collections', { name: 'ok', colour: 'red' });
    expect(unknownKey.status).toBe(400);
    const badIndex = await call('POST', '/collections', { name: 'ok', fields: [{ field: 'body', type: 'text', indexed: true }] });
    expect([badIndex.status, badIndex.body.errors[0].path]).toEqual([400, ['body', 'fields', 0, 'indexed']]);
    expect(await eventCount(owner, site.siteId)).toBe(before);
    expect((await call('GET', '/collections')).body.data).toEqual([]);
  });

  it('answers 409 CONFLICT for a duplicate and 404 NOT_FOUND for unknown collections', async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    await call('POST', '/collections', articles);
    const duplicate = await call('POST', '/collections', articles);
    expect([duplicate.status, duplicate.body.errors[0].code]).toEqual([409, 'CONFLICT']);
    for (const [method, path, body] of [
      ['GET', '/collections/nope'],
      ['PATCH', '/collections/nope', { note: 'x' }],
      ['DELETE', '/collections/nope'],
      ['GET', '/collections/nope/schema'],
      ['GET', '/fields/nope'],
      ['POST', '/fields/nope', { field: 'a', type: 'string' }],
    ] as [string, string, unknown?][]) {
      const response = await call(method, path, body);
      expect([method, path, response.status, response.body.errors[0].code]).toEqual([method, path, 404, 'NOT_FOUND']);
    }
  });

  it('changes only for site administrators; others see no collection they have no permission for', async () => {
    const site = await createTestSite(service);
    await adminCalls(service, site)('POST', '/collections', articles);
    const member = await createMember(service, site);
    const asMember = await service.request('GET', '/collections', { site: site.siteId, token: member.token });
    expect([asMember.status, asMember.body.data]).toEqual([200, []]);
    for (const [method, path, body] of [
      ['POST', '/collections', { name: 'x' }],
      ['PATCH', '/collections/articles', { note: 'x' }],
      ['DELETE', '/collections/articles'],
      ['POST', '/fields/articles', { field: 'x', type: 'string' }],
      ['PUT', '/collections/articles/schema', { fields: [] }],
      ['POST', '/relations', { kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'articles' }],
    ] as [string, string, unknown?][]) {
      const response = await service.request(method, path, { site: site.siteId, token: member.token, ...(body === undefined ? {} : { body }) });
      expect([method, path, response.status, response.body.errors[0].code]).toEqual([method, path, 403, 'PERMISSION_DENIED']);
    }
    expect((await adminCalls(service, site)('GET', '/fields/articles')).body.data).toHaveLength(3);
    const anonymous = await service.request('GET', '/collections', { site: site.siteId });
    expect(anonymous.status).toBe(401);
  });

  it("never shows one site's schema or items to another site", async () => {
    const siteA = await createTestSite(service);
    const siteB = await createTestSite(service);
    await adminCalls(service, siteA)('POST', '/collections', articles);
    const item = await adminCalls(service, siteA)('POST', '/items/articles', { title: 'Secret' });
    const callB = adminCalls(service, siteB);
    expect((await callB('GET', '/collections')).body.data).toEqual([]);
    expect((await callB('GET', '/collections/articles')).status).toBe(404);
    expect((await callB('GET', '/fields/articles')).status).toBe(404);
    expect((await callB('GET', '/relations')).body.data).toEqual([]);
    expect((await callB('GET', '/items/articles')).status).toBe(404);
    expect((await callB('GET', `/items/articles/${item.body.data.id}`)).status).toBe(404);
    await callB('POST', '/collections', articles);
    expect((await callB('GET', '/items/articles')).body.data).toEqual([]);
    expect((await callB('GET', `/items/articles/${item.body.data.id}`)).body.errors[0].code).toBe('RECORD_NOT_FOUND');
    // a token of site A is refused on site B
    const crossToken = await service.request('GET', '/collections', { site: siteB.siteId, token: siteA.adminToken });
    expect(crossToken.status).toBe(401);
  });
});

describe('fields', () => {
  it('adds, lists, reads, updates and removes fields', async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    await call('POST', '/collections', articles);
    const added = await call('POST', '/fields/articles', { field: 'summary', type: 'text', interface: 'textarea', options: { placeholder: 'Say it' }, sort: 4 });
    expect(added.status).toBe(201);
    expect(added.body.data).toEqual({
      collection: 'articles',
      field: 'summary',
      type: 'text',
      interface: 'textarea',
      display: null,
      options: { placeholder: 'Say it' },
      required: false,
      sort: 4,
      sensitivity: null,
      indexed: false,
      note: null,
    });
    expect((await call('GET', '/fields/articles')).body.data.map((f: { field: string }) => f.field)).toEqual(['title', 'views', 'author', 'summary']);
    expect((await call('GET', '/fields/articles/summary')).body.data.interface).toBe('textarea');
    const patched = await call('PATCH', '/fields/articles/summary', { required: true, sensitivity: 'pii', display: 'formatted' });
    expect(patched.body.data).toMatchObject({ required: true, sensitivity: 'pii', display: 'formatted', interface: 'textarea' });
    expect((await call('DELETE', '/fields/articles/summary')).status).toBe(204);
    expect((await call('GET', '/fields/articles/summary')).status).toBe(404);
    expect((await call('DELETE', '/fields/articles/summary')).body.errors[0].code).toBe('NOT_FOUND');
  });

  it('refuses duplicates (409), bad declarations (400 with path) and a type change its index cannot follow (409)', async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    await call('POST', '/collections', articles);
    const duplicate = await call('POST', '/fields/articles', { field: 'title', type: 'string' });
    expect([duplicate.status, duplicate.body.errors[0].code, duplicate.body.errors[0].path]).toEqual([409, 'CONFLICT', ['body', 'field']]);
    const badType = await call('POST', '/fields/articles', { field: 'x', type: 'varchar' });
    expect([badType.status, badType.body.errors[0].path]).toEqual([400, ['body', 'type']]);
    const badOption = await call('POST', '/fields/articles', { field: 'x', type: 'integer', options: { maxLength: 3 } });
    expect(badOption.body.errors[0].path).toEqual(['body', 'options', 'maxLength']);
    const badPatch = await call('PATCH', '/fields/articles/views', { sensitivity: 'secret' });
    expect(badPatch.body.errors[0].path).toEqual(['body', 'sensitivity']);
    expect((await call('PATCH', '/fields/articles/nope', { note: 'x' })).status).toBe(404);

    expect((await call('PATCH', '/fields/articles/views', { type: 'float' })).status).toBe(200);
    await call('POST', '/items/articles', { title: 'T', views: 2.5 });
    const retype = await call('PATCH', '/fields/articles/views?allowDestructive=true', { type: 'string' });
    expect([retype.status, retype.body.errors[0].code, retype.body.errors[0].path]).toEqual([409, 'CONFLICT', ['body', 'type']]);
    expect(retype.body.errors[0].extensions.reason).toBe('index');
  });

  it('keeps a field\'s storage while any item holds or held a value in it, and a removed name for its old storage', async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    await call('POST', '/collections', { name: 'notes', fields: [{ field: 'title', type: 'string' }, { field: 'code', type: 'string' }, { field: 'n', type: 'integer' }] });
    const item = (await call('POST', '/items/notes', { title: 'T', code: 'abc', n: 1 })).body.data;
    const expect409 = (response: { status: number; body: { errors: { code: string; path: unknown[] }[] } }, path: unknown[]) =>
      expect([response.status, response.body.errors?.[0]?.code, response.body.errors?.[0]?.path]).toEqual([409, 'CONFLICT', path]);

    // A removed field comes back only as it was: its values are still in the items and their history.
    expect((await call('DELETE', '/fields/notes/code')).status).toBe(204);
    expect409(await call('POST', '/fields/notes', { field: 'code', type: 'integer' }), ['body', 'type']);
    expect409(await call('POST', '/fields/notes', { field: 'code', type: 'string', options: { translatable: true } }), ['body', 'options']);
    const bundle = (await call('GET', '/collections/notes/schema')).body.data;
    const reshapedBundle = { ...bundle, fields: [...bundle.fields, { field: 'code', type: 'integer' }] };
    expect409(await call('PUT', '/collections/notes/schema', reshapedBundle), ['body', 'fields', bundle.fields.length, 'type']);
    expect((await call('GET', '/items/notes?filter[code][_gt]=1')).status).toBe(400);
    expect((await call('POST', '/fields/notes', { field: 'code', type: 'string' })).status).toBe(201);
    expect((await call('GET', `/items/notes/${item.id}`)).body.data.code).toBe('abc');

    // A value cleared, or an item deleted, still leaves values in the history that time travel reads.
    // A type change over them is destructive (fieldTypeChange.e2e.spec.ts: what allowDestructive=true does).
    const blocked = (response: { status: number; body: { errors: { code: string; path: unknown[] }[] } }) =>
      expect([response.status, response.body.errors?.[0]?.code, response.body.errors?.[0]?.path]).toEqual([409, 'DESTRUCTIVE_BLOCKED', ['body', 'type']]);
    expect((await call('PATCH', `/items/notes/${item.id}`, { n: null })).status).toBe(200);
    blocked(await call('PATCH', '/fields/notes/n', { type: 'boolean' }));
    expect((await call('DELETE', `/items/notes/${item.id}`)).status).toBe(204);
    blocked(await call('PATCH', '/fields/notes/code', { type: 'integer' }));
    const putBundle = (await call('GET', '/collections/notes/schema')).body.data;
    const index = putBundle.fields.findIndex((field: { field: string }) => field.field === 'n');
    putBundle.fields[index] = { ...putBundle.fields[index], type: 'boolean' };
    const applied = await call('PUT', '/collections/notes/schema', putBundle);
    expect([applied.status, applied.body.errors?.[0]?.code, applied.body.errors?.[0]?.path]).toEqual([409, 'DESTRUCTIVE_BLOCKED', ['body', 'fields', index, 'type']]);
    // A field no item ever had a value in may change freely.
    expect((await call('POST', '/fields/notes', { field: 'fresh', type: 'string' })).status).toBe(201);
    expect((await call('PATCH', '/fields/notes/fresh', { type: 'integer' })).status).toBe(200);
  });

  it("never shows again what a removed field left in an item: not in new events, revisions or search", async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    await call('POST', '/collections', { name: 'notes', fields: [{ field: 'title', type: 'string' }, { field: 'secret', type: 'hash' }] });
    const item = (await call('POST', '/items/notes', { title: 'Kept', secret: 'pw' })).body.data;
    expect((await call('DELETE', '/fields/notes/secret')).status).toBe(204);
    expect((await call('PATCH', `/items/notes/${item.id}`, { title: 'Kept again' })).status).toBe(200);
    const { rows } = await owner.query<{ snapshot: Record<string, unknown> }>(
      `SELECT data->'snapshot' AS snapshot FROM events WHERE stream_id = $1 ORDER BY stream_position`,
      [`${site.siteId}/item/notes/${item.id}`],
    );
    expect(rows.map((row) => 'secret' in row.snapshot)).toEqual([true, false]);
    const revisions = (await call('GET', `/items/notes/${item.id}/revisions`)).body.data as { data: Record<string, unknown>; delta: Record<string, unknown> }[];
    expect(revisions.flatMap((revision) => [...Object.keys(revision.data), ...Object.keys(revision.delta)]).filter((key) => key === 'secret')).toEqual([]);
    await service.context.daemon.drain();
    expect((await call('GET', '/search?q=argon2id')).body.data).toEqual([]);
    expect((await call('GET', '/search?q=kept')).body.data.map((hit: { id: string }) => hit.id)).toEqual([item.id]);
  });

  it('keeps an expression index on indexed fields and relation id fields, and drops it when no longer needed', async () => {
    const { site, call } = await siteWithArticlesAndAuthors(service);
    const indexes = async () =>
      (
        await owner.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE tablename = 'items' AND indexdef LIKE $1 ORDER BY indexdef`, [
          `%site_id = '${site.siteId}'::text%`,
        ])
      ).rows.map((row) => row.indexdef);
    // Indexes are built after the schema command returns: wait until the site's index rows settle.
    const settled = () => settledIndexes(service, owner, site.siteId);
    await settled();
    // The field's index and its DESC NULLS LAST twin (sort=-views with empty values last).
    const viewsIndex = expect.stringMatching(/\(\(\(data ->> 'views'::text\)\)::numeric\).*collection = 'articles'::text.*deleted_at IS NULL/);
    expect(await indexes()).toEqual([viewsIndex, viewsIndex]);
    expect((await indexes()).filter((definition) => definition.includes('DESC NULLS LAST'))).toHaveLength(1);
    const views = await call('GET', '/fields/articles/views');
    expect(views.body.meta.indexStatus).toEqual({ state: 'ready', error: null, index: expect.stringMatching(/^items_f_[0-9a-f]{24}$/) });
    expect((await call('GET', '/fields/articles')).body.meta.indexStatus).toEqual({ title: null, views: views.body.meta.indexStatus, author: null });
    await call('POST', '/relations', { kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors' });
    await settled();
    expect(await indexes()).toHaveLength(4);
    expect((await indexes()).some((definition) => definition.includes("(data ->> 'author'::text)"))).toBe(true);
    expect((await call('GET', '/fields/articles/author')).body.meta.indexStatus.state).toBe('ready');
    await call('PATCH', '/fields/articles/views', { indexed: false });
    await settled();
    expect(await indexes()).toHaveLength(2);
    expect((await call('GET', '/fields/articles/views')).body.meta.indexStatus).toBeNull();
    await call('DELETE', '/collections/articles');
    expect(await settled()).toEqual([]);
    expect(await indexes()).toEqual([]);
  });
});

describe('relations', () => {
  it('creates, lists, updates and deletes relations of every kind, refusing bad ones with the path at fault', async () => {
    const { call } = await siteWithArticlesAndAuthors(service);
    await call('POST', '/collections', { name: 'tags', fields: [{ field: 'label', type: 'string' }] });
    await call('POST', '/collections', { name: 'articles_tags', fields: [{ field: 'article', type: 'uuid' }, { field: 'tag', type: 'uuid' }] });
    await call('POST', '/collections', { name: 'comments', fields: [{ field: 'article', type: 'uuid' }, { field: 'text', type: 'text' }] });
    await call('POST', '/collections', { name: 'headings', fields: [{ field: 'text', type: 'string' }] });
    await call('POST', '/collections', {
      name: 'articles_blocks',
      fields: [{ field: 'article', type: 'uuid' }, { field: 'item', type: 'string' }, { field: 'collection', type: 'string' }],
    });

    const m2o = await call('POST', '/relations', { id: 'article-author', kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors', relatedField: 'articles' });
    expect(m2o.status).toBe(201);
    expect(m2o.body.data).toMatchObject({ id: 'article-author', kind: 'm2o', onDelete: 'set null', relatedField: 'articles' });
    const o2m = await call('POST', '/relations', { kind: 'o2m', collection: 'articles', field: 'comments', relatedCollection: 'comments', relatedField: 'article', onDelete: 'cascade' });
    expect(o2m.status).toBe(201);
    const m2m = await call('POST', '/relations', {
      kind: 'm2m',
      collection: 'articles',
      field: 'tags',
      relatedCollection: 'tags',
      junctionCollection: 'articles_tags',
      junctionField: 'article',
      junctionRelatedField: 'tag',
    });
    expect(m2m.status).toBe(201);
    const m2a = await call('POST', '/relations', {
      kind: 'm2a',
      collection: 'articles',
      field: 'blocks',
      junctionCollection: 'articles_blocks',
      junctionField: 'article',
      junctionItemField: 'item',
      junctionCollectionField: 'collection',
      allowedCollections: ['headings'],
    });
    expect(m2a.status, JSON.stringify(m2a.body)).toBe(201);
    expect((await call('GET', '/relations')).body.data).toHaveLength(4);
    expect((await call('GET', '/relations?collection=tags')).body.data.map((r: { kind: string }) => r.kind)).toEqual(['m2m']);

    const unknown = await call('POST', '/relations', { kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'nope' });
    expect([unknown.status, unknown.body.errors[0].code, unknown.body.errors[0].path]).toEqual([400, 'VALIDATION_FAILED', ['body', 'relatedCollection']]);
    const taken = await call('POST', '/relations', { kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors' });
    expect(taken.body.errors[0].path).toEqual(['body', 'field']);
    const missingKind = await call('POST', '/relations', { collection: 'articles', field: 'author' });
    expect(missingKind.body.errors[0].path).toEqual(['body', 'kind']);
    const aliasOnStored = await call('POST', '/fields/articles', { field: 'comments', type: 'string' });
    expect(aliasOnStored.status).toBe(409);
    const removeUsed = await call('DELETE', '/fields/comments/article');
    expect([removeUsed.status, removeUsed.body.errors[0].code]).toEqual([409, 'CONFLICT']);

    const patched = await call('PATCH', '/relations/article-author', { onDelete: 'restrict' });
    expect(patched.body.data.onDelete).toBe('restrict');
    expect((await call('PATCH', '/relations/nope', { onDelete: 'restrict' })).status).toBe(404);
    expect((await call('DELETE', '/relations/article-author')).status).toBe(204);
    expect((await call('GET', '/relations/article-author')).status).toBe(404);
    expect((await call('DELETE', '/fields/articles/author')).status).toBe(204);
  });
});

describe('schema cache', () => {
  it('another instance sees a schema change as soon as it is committed', async () => {
    const other = await startTestService();
    try {
      const site = await createTestSite(service);
      await adminCalls(service, site)('POST', '/collections', articles);
      const viaOther = (method: string, path: string, body?: unknown) =>
        other.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }) });
      expect((await viaOther('GET', '/items/articles')).status).toBe(200);
      const unknown = await viaOther('POST', '/items/articles', { title: 'T', extra: 'x' });
      expect(unknown.body.errors[0].path).toEqual(['body', 'extra']);

      const heard = new Promise<void>((resolve) => {
        const stop = other.context.notifier.on('svc_schema', (siteId) => {
          if (siteId === site.siteId) {
            stop();
            resolve();
          }
        });
      });
      expect((await adminCalls(service, site)('POST', '/fields/articles', { field: 'extra', type: 'string' })).status).toBe(201);
      await heard;
      const created = await viaOther('POST', '/items/articles', { title: 'T', extra: 'x' });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.data.extra).toBe('x');
    } finally {
      await other.close();
    }
  });
});
