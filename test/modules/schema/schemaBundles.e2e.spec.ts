// Collection schema bundles: export and idempotent apply, POST /collections/diff in every form it
// takes, and the property that any bundle applies, exports and diffs back to itself.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createMember } from '../identity/support/identity.ts';
import { adminCalls, articles, eventCount, siteWithArticlesAndAuthors } from './support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();

describe('collection schema bundles', () => {
  it('exports a collection and applies it idempotently: the same schema twice appends no events', async () => {
    const { site, call } = await siteWithArticlesAndAuthors(service);
    await call('POST', '/relations', { kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors', onDelete: 'restrict' });
    const exported = await call('GET', '/collections/articles/schema');
    expect(exported.status).toBe(200);
    expect(exported.body.data.collection).toBe('articles');
    expect(exported.body.data.fields.map((f: { field: string }) => f.field)).toEqual(['title', 'views', 'author']);
    expect(exported.body.data.relations).toHaveLength(1);

    const before = await eventCount(owner, site.siteId);
    const same = await call('PUT', '/collections/articles/schema', exported.body.data);
    expect(same.status).toBe(200);
    expect(same.body.meta).toMatchObject({ applied: false, events: 0, diff: { status: 'unchanged' } });
    expect(await eventCount(owner, site.siteId)).toBe(before);
    const { relations: _relations, ...withoutIds } = exported.body.data;
    const handWritten = {
      ...withoutIds,
      relations: [{ kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors', onDelete: 'restrict' }],
    };
    expect((await call('PUT', '/collections/articles/schema', handWritten)).body.meta.events).toBe(0);

    const changed = {
      ...exported.body.data,
      meta: { ...exported.body.data.meta, note: 'changed' },
      fields: [...exported.body.data.fields.filter((f: { field: string }) => f.field !== 'views'), { field: 'slug', type: 'slug' }],
    };
    const diff = await call('POST', '/collections/diff', { collections: [changed] });
    expect(diff.status).toBe(200);
    expect(diff.body.data.hasChanges).toBe(true);
    expect(diff.body.data.collections[0]).toMatchObject({
      collection: 'articles',
      status: 'update',
      meta: { note: { from: null, to: 'changed' } },
      fields: { added: [{ field: 'slug', type: 'slug' }], updated: [], removed: ['views'] },
      relations: { added: [], updated: [], removed: [] },
    });
    expect(await eventCount(owner, site.siteId)).toBe(before);
    const applied = await call('PUT', '/collections/articles/schema', changed);
    expect(applied.body.meta).toMatchObject({ applied: true, events: 3 });
    expect(applied.body.data.fields.map((f: { field: string }) => f.field)).toEqual(['title', 'author', 'slug']);
    expect((await call('PUT', '/collections/articles/schema', changed)).body.meta.events).toBe(0);
    expect((await call('POST', '/collections/diff', { collections: [changed] })).body.data.hasChanges).toBe(false);
  });

  it('creates a missing collection from a bundle, and refuses a bundle of another collection', async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    const created = await call('PUT', '/collections/pages/schema', { fields: [{ field: 'title', type: 'string' }] });
    expect(created.status).toBe(200);
    expect(created.body.meta.diff.status).toBe('create');
    expect((await call('GET', '/collections/pages')).status).toBe(200);
    const mismatch = await call('PUT', '/collections/pages/schema', { collection: 'posts', fields: [] });
    expect([mismatch.status, mismatch.body.errors[0].path]).toEqual([400, ['body', 'collection']]);
    const badRelation = await call('PUT', '/collections/pages/schema', {
      fields: [{ field: 'title', type: 'string' }],
      relations: [{ kind: 'm2o', collection: 'posts', field: 'x', relatedCollection: 'pages' }],
    });
    expect(badRelation.body.errors[0].path).toEqual(['body', 'relations', 0, 'collection']);
    const noName = await call('POST', '/collections/diff', { collections: [{ fields: [] }] });
    expect(noName.body.errors[0].path).toEqual(['body', 'collections', 0, 'collection']);
  });
});

describe('POST /collections/diff', () => {
  it("takes one collection's export as GET /collections/:name/schema answers it, bare or in its data envelope, and a set", async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    await call('POST', '/collections', articles);
    const exported = await call('GET', '/collections/articles/schema');
    expect(exported.status).toBe(200);
    const before = await eventCount(owner, site.siteId);
    const unchanged = { collections: [{ collection: 'articles', status: 'unchanged' }], hasChanges: false };
    for (const body of [exported.body.data, exported.body, { collections: [exported.body.data] }, { data: { collections: [exported.body.data] } }]) {
      const diff = await call('POST', '/collections/diff', body);
      expect(diff.status, JSON.stringify(diff.body)).toBe(200);
      expect(diff.body.data).toMatchObject(unchanged);
    }

    const changed = { ...exported.body.data, fields: [...exported.body.data.fields, { field: 'slug', type: 'slug' }] };
    for (const body of [changed, { data: changed }]) {
      const diff = await call('POST', '/collections/diff', body);
      expect(diff.status, JSON.stringify(diff.body)).toBe(200);
      expect(diff.body.data.hasChanges).toBe(true);
      expect(diff.body.data.collections).toHaveLength(1);
      expect(diff.body.data.collections[0]).toMatchObject({
        collection: 'articles',
        status: 'update',
        fields: { added: [{ field: 'slug', type: 'slug' }], updated: [], removed: [] },
      });
    }
    expect(await eventCount(owner, site.siteId)).toBe(before);
  });

  it('refuses a bad body at its path in the form that was sent, and writes nothing', async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    await call('POST', '/collections', articles);
    const exported = (await call('GET', '/collections/articles/schema')).body.data;
    const member = await createMember(service, site);
    const before = await eventCount(owner, site.siteId);
    const badType = { ...exported, fields: [{ field: 'title', type: 'no-such-type' }] };
    const { collection: _collection, ...unnamed } = exported;
    const cases: [unknown, (string | number)[]][] = [
      [badType, ['body', 'fields', 0, 'type']],
      [{ data: badType }, ['body', 'data', 'fields', 0, 'type']],
      [{ collections: [exported, badType] }, ['body', 'collections', 1, 'fields', 0, 'type']],
      [unnamed, ['body', 'collection']],
      [{ data: unnamed }, ['body', 'data', 'collection']],
      [{ collections: [unnamed] }, ['body', 'collections', 0, 'collection']],
      [{ ...exported, relations: [{ kind: 'm2o', collection: 'authors', field: 'x', relatedCollection: 'articles' }] }, ['body', 'relations', 0, 'collection']],
      [{ collections: [] }, ['body', 'collections']],
      [{ ...exported, unknownKey: 1 }, ['body']],
      [{ data: 42 }, ['body', 'data']],
      [[exported], ['body']],
    ];
    for (const [body, path] of cases) {
      const response = await call('POST', '/collections/diff', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body, JSON.stringify(body)).toEqual({ errors: [{ code: 'VALIDATION_FAILED', message: expect.any(String), path, extensions: {} }] });
    }
    const denied = await service.request('POST', '/collections/diff', { site: site.siteId, token: member.token, body: exported });
    expect(denied.status).toBe(403);
    expect(await eventCount(owner, site.siteId)).toBe(before);
  });
});

describe('collection schema bundles, property', () => {
  // Random declarations the service accepts: every type, with the options that fit it.
  const plainTypes = ['string', 'text', 'integer', 'bigInteger', 'float', 'decimal', 'boolean', 'dateTime', 'date', 'time', 'timestamp', 'uuid', 'hash', 'slug', 'code', 'color', 'json', 'csv', 'geometry', 'files'] as const;
  const optionsFor = (type: string) => {
    const pools: Record<string, Record<string, unknown>[]> = {
      string: [{ maxLength: 80 }, { choices: ['a', 'b'] }, { translatable: true }, { choices: [{ value: 'x', text: 'X' }] }],
      text: [{ maxLength: 5000 }, { translatable: true }],
      integer: [{ min: 0, max: 10 }, { min: -5 }],
      float: [{ min: 0.5 }],
      decimal: [{ precision: 10, scale: 2 }, { precision: 5, scale: 0 }],
    };
    return fc.constantFrom<Record<string, unknown> | null | undefined>(undefined, null, {}, ...(pools[type] ?? []));
  };
  const field = fc.constantFrom(...plainTypes).chain((type) =>
    fc.record(
      {
        type: fc.constant(type),
        required: fc.boolean(),
        indexed: fc.boolean(),
        options: optionsFor(type),
        sensitivity: fc.constantFrom(null, 'pii', 'phi'),
        interface: fc.constantFrom(null, 'input', 'wysiwyg'),
        display: fc.constantFrom(null, 'raw'),
        note: fc.constantFrom(null, 'a note', 'Tiếng Việt'),
        sort: fc.constantFrom(null, 1, 2, -3),
      },
      { requiredKeys: ['type'] },
    ).map((declaration) => {
      // Long values cannot be indexed (docs/content.md); such a declaration is refused, not this property's subject.
      const long = ['text', 'code', 'json', 'geometry', 'files', 'csv', 'hash'].includes(type) || declaration.options?.translatable === true || Number(declaration.options?.maxLength) > 2000;
      const declared = long ? { ...declaration, indexed: false } : declaration;
      // A pii/phi field is never translatable (docs/privacy.md): such a declaration is refused, not this property's subject.
      return declared.options?.translatable === true ? { ...declared, sensitivity: null } : declared;
    }),
  );
  const bundle = fc
    .uniqueArray(fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/), { minLength: 1, maxLength: 6 })
    .filter((names) => names.every((name) => !['added', 'id', 'status', 'sort', 'created_at', 'updated_at', 'user_created', 'user_updated', 'deleted_at'].includes(name)))
    .chain((names) => fc.tuple(...names.map((name) => field.map((declaration) => ({ field: `f_${name}`, ...declaration })))))
    .chain((fields) =>
      fc.record({
        meta: fc.record({ displayName: fc.constantFrom(null, 'Things'), icon: fc.constantFrom(null, 'box'), note: fc.constantFrom(null, 'n'), versioning: fc.boolean() }, { requiredKeys: [] }),
        fields: fc.constant(fields),
      }),
    );
  // A second bundle from the first: fields dropped, one added, properties changed.
  const mutation = fc.record({ drop: fc.nat(), add: field, flipRequired: fc.nat(), note: fc.constantFrom(null, 'changed') });

  it('applies any bundle idempotently, exports what it applied, and diffs to nothing against itself', async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(bundle, mutation, async ({ meta, fields }, change) => {
        const name = `things_${(run += 1)}`;
        const created = await call('PUT', `/collections/${name}/schema`, { meta, fields });
        expect(created.status, JSON.stringify(created.body)).toBe(200);
        const exported = (await call('GET', `/collections/${name}/schema`)).body.data;
        expect(exported.fields.map((f: { field: string }) => f.field).sort()).toEqual(fields.map((f) => f.field).sort());

        const before = await eventCount(owner, site.siteId);
        const again = await call('PUT', `/collections/${name}/schema`, exported);
        expect(again.body.meta, JSON.stringify(again.body)).toMatchObject({ applied: false, events: 0 });
        expect((await call('POST', '/collections/diff', { collections: [exported] })).body.data.hasChanges).toBe(false);
        expect(await eventCount(owner, site.siteId)).toBe(before);

        const kept = exported.fields.filter((_: unknown, index: number) => fields.length === 1 || index !== change.drop % fields.length);
        const flipped = kept.map((declared: { required?: boolean }, index: number) =>
          index === change.flipRequired % kept.length ? { ...declared, required: !declared.required } : declared,
        );
        const changed = { ...exported, meta: { ...exported.meta, note: change.note }, fields: [...flipped, { field: 'f_added', ...change.add }] };
        const diff = await call('POST', '/collections/diff', { collections: [changed] });
        expect(diff.status, JSON.stringify(diff.body)).toBe(200);
        expect(diff.body.data.hasChanges).toBe(true);
        const applied = await call('PUT', `/collections/${name}/schema`, changed);
        expect(applied.status, JSON.stringify(applied.body)).toBe(200);
        expect(applied.body.meta.events).toBeGreaterThan(0);
        const after = (await call('GET', `/collections/${name}/schema`)).body.data;
        const twice = await call('PUT', `/collections/${name}/schema`, after);
        expect(twice.body.meta, JSON.stringify({ after, twice: twice.body })).toMatchObject({ applied: false, events: 0 });
        expect(after.fields.map((f: { field: string }) => f.field).sort()).toEqual(changed.fields.map((f: { field: string }) => f.field).sort());
      }),
      { numRuns: 25 },
    );
  });
});

