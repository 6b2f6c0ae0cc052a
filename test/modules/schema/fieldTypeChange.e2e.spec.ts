// PATCH /fields/:collection/:field changing a field's type over values: destructive (409
// DESTRUCTIVE_BLOCKED without ?allowDestructive=true), converted by the read models with counts in the
// answer, refused outright for some pairs, while the log, history and time travel keep the old values.
import { describe, expect, it } from 'vitest';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { createMember } from '../identity/support/identity.ts';
import { adminCalls, eventCount } from './support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();

/** A site with `notes` (code: string) holding "12", "12.5", "abc" and one note without a code. */
async function siteWithCodes() {
  const site = await createTestSite(service);
  const call = adminCalls(service, site);
  const created = await call('POST', '/collections', {
    name: 'notes',
    fields: [
      { field: 'title', type: 'string' },
      { field: 'code', type: 'string' },
    ],
  });
  expect(created.status).toBe(201);
  const ids: Record<string, string> = {};
  for (const [title, code] of [['twelve', '12'], ['decimal', '12.5'], ['word', 'abc'], ['none', null]] as const) {
    const item = await call('POST', '/items/notes', { title, code });
    expect(item.status, JSON.stringify(item.body)).toBe(201);
    ids[title] = item.body.data.id;
  }
  return { site, call, ids };
}

async function codes(call: ReturnType<typeof adminCalls>): Promise<Record<string, unknown>> {
  const list = await call('GET', '/items/notes?sort=title&limit=10');
  return Object.fromEntries(list.body.data.map((item: { title: string; code: unknown }) => [item.title, item.code]));
}

function graphql(site: TestSite, query: string) {
  return service.request('POST', '/graphql', { site: site.siteId, token: site.adminToken, body: { query } });
}

describe('changing a field type over values', () => {
  it('is 409 DESTRUCTIVE_BLOCKED without allowDestructive, with the counts it would have, and writes nothing', async () => {
    const { site, call } = await siteWithCodes();
    const before = await eventCount(owner, site.siteId);
    for (const path of ['/fields/notes/code', '/fields/notes/code?allowDestructive=false']) {
      const refused = await call('PATCH', path, { type: 'integer' });
      expect([refused.status, refused.body.errors[0].code, refused.body.errors[0].path]).toEqual([409, 'DESTRUCTIVE_BLOCKED', ['body', 'type']]);
      expect(refused.body.errors[0].extensions).toMatchObject({ from: 'string', to: 'integer', converted: 1, nulled: 2 });
    }
    expect(await eventCount(owner, site.siteId)).toBe(before);
    expect((await call('GET', '/fields/notes/code')).body.data.type).toBe('string');
    expect(await codes(call)).toEqual({ decimal: '12.5', none: null, twelve: '12', word: 'abc' });
  });

  it('converts what parses, nulls the rest, counts both, and every read shows the new type', async () => {
    const { site, call } = await siteWithCodes();
    const changed = await call('PATCH', '/fields/notes/code?allowDestructive=true', { type: 'integer' });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.data).toMatchObject({ field: 'code', type: 'integer' });
    expect(changed.body.meta).toEqual({ converted: 1, nulled: 2 });
    expect(await codes(call)).toEqual({ decimal: null, none: null, twelve: 12, word: null });
    // Filters and sorts read the field as a number now.
    const filtered = await call('GET', '/items/notes?filter[code][_gt]=11');
    expect(filtered.body.data.map((item: { title: string }) => item.title)).toEqual(['twelve']);
    // New writes are validated with the new type.
    const text = await call('POST', '/items/notes', { title: 'late', code: 'abc' });
    expect([text.status, text.body.errors[0].code, text.body.errors[0].path]).toEqual([400, 'VALIDATION_FAILED', ['body', 'code']]);
    expect((await call('POST', '/items/notes', { title: 'late', code: 7 })).status).toBe(201);
    const answer = await graphql(site, '{ notes(sort: ["title"]) { title code } }');
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.notes).toEqual([
      { title: 'decimal', code: null },
      { title: 'late', code: 7 },
      { title: 'none', code: null },
      { title: 'twelve', code: 12 },
      { title: 'word', code: null },
    ]);
    // The event says what changed; the items' events stay as they were.
    const { rows } = await owner.query<{ data: { typeChange?: unknown } }>(
      `SELECT data FROM events WHERE site_id = $1 AND type = 'field.updated' ORDER BY position DESC LIMIT 1`,
      [site.siteId],
    );
    expect(rows[0]!.data.typeChange).toEqual({ from: 'string', to: 'integer' });
  });

  it('converts back and forth by the table: numbers to text, text to booleans and dates', async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    await call('POST', '/collections', { name: 'notes', fields: [{ field: 'title', type: 'string' }, { field: 'code', type: 'float' }, { field: 'flag', type: 'string' }] });
    await call('POST', '/items/notes', { title: 'a', code: 12.5, flag: 'TRUE' });
    await call('POST', '/items/notes', { title: 'b', code: 3, flag: 'yes' });
    const toText = await call('PATCH', '/fields/notes/code?allowDestructive=true', { type: 'string' });
    expect(toText.body.meta).toEqual({ converted: 2, nulled: 0 });
    const toBoolean = await call('PATCH', '/fields/notes/flag?allowDestructive=true', { type: 'boolean' });
    expect(toBoolean.body.meta).toEqual({ converted: 1, nulled: 1 });
    const list = (await call('GET', '/items/notes?sort=title')).body.data;
    expect(list.map((item: Record<string, unknown>) => [item.code, item.flag])).toEqual([['12.5', true], ['3', null]]);
    const toInteger = await call('PATCH', '/fields/notes/code?allowDestructive=true', { type: 'integer' });
    expect(toInteger.body.meta).toEqual({ converted: 1, nulled: 1 });
  });

  it('keeps the old values in the log: revisions and time travel before the change show them', async () => {
    const { site, call, ids } = await siteWithCodes();
    expect((await call('PATCH', '/fields/notes/code?allowDestructive=true', { type: 'integer' })).status).toBe(200);
    expect((await call('GET', `/items/notes/${ids.word}`)).body.data.code).toBeNull();
    // A moment after the items' writes and before the change: its event's time, less a millisecond.
    const { rows } = await owner.query<{ before: Date }>(
      `SELECT recorded_at - interval '1 millisecond' AS before FROM events WHERE site_id = $1 AND type = 'field.updated' ORDER BY position DESC LIMIT 1`,
      [site.siteId],
    );
    const asOf = await call('GET', `/items/notes/${ids.word}?asOf=${encodeURIComponent(rows[0]!.before.toISOString())}`);
    expect(asOf.status, JSON.stringify(asOf.body)).toBe(200);
    expect(asOf.body.data.code).toBe('abc');
    const revisions = await call('GET', `/items/notes/${ids.twelve}/revisions`);
    expect(revisions.status).toBe(200);
    expect(JSON.stringify(revisions.body.data)).toContain('"code":"12"');
    // A list at that moment compares the field as the integer it is now: the old "abc" cannot be one.
    const moment = encodeURIComponent(rows[0]!.before.toISOString());
    for (const query of [`filter[code][_gt]=11&asOf=${moment}`, `sort=-code&asOf=${moment}`]) {
      const compared = await call('GET', `/items/notes?${query}`);
      expect([compared.status, compared.body.errors?.[0]?.code, compared.body.errors?.[0]?.path], query).toEqual([400, 'VALIDATION_FAILED', ['query', 'asOf']]);
    }
    expect((await call('GET', `/items/notes?filter[title][_eq]=word&asOf=${moment}`)).body.data.map((item: { code: unknown }) => item.code)).toEqual(['abc']);
  });

  it('refuses with 409 CONFLICT and a reason the changes it cannot convert, even with allowDestructive', async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    await call('POST', '/collections', { name: 'authors', fields: [{ field: 'name', type: 'string' }] });
    await call('POST', '/collections', {
      name: 'notes',
      fields: [
        { field: 'secret', type: 'hash' },
        { field: 'views', type: 'integer', indexed: true },
        { field: 'author', type: 'uuid' },
        { field: 'tags', type: 'json', options: { translatable: true } },
      ],
    });
    expect((await call('POST', '/relations', { id: 'note-author', kind: 'm2o', collection: 'notes', field: 'author', relatedCollection: 'authors' })).status).toBe(201);
    const author = (await call('POST', '/items/authors', { name: 'Ann' })).body.data;
    expect((await call('POST', '/items/notes', { secret: 'pw', views: 3, author: author.id, tags: { en: ['a'] } })).status).toBe(201);
    const before = await eventCount(owner, site.siteId);
    for (const [field, type, reason] of [
      ['secret', 'string', 'hash'],
      ['views', 'string', 'index'],
      ['author', 'string', 'relation'],
      ['tags', 'string', 'translatable'],
    ] as const) {
      const refused = await call('PATCH', `/fields/notes/${field}?allowDestructive=true`, { type });
      expect([refused.status, refused.body.errors[0].code, refused.body.errors[0].path, refused.body.errors[0].extensions.reason], field).toEqual([
        409,
        'CONFLICT',
        ['body', 'type'],
        reason,
      ]);
    }
    expect(await eventCount(owner, site.siteId)).toBe(before);
    // A change within the index's kind converts (integer to float: both numeric); a new index that casts waits for the type.
    expect((await call('PATCH', '/fields/notes/views?allowDestructive=true', { type: 'float' })).body.meta).toEqual({ converted: 1, nulled: 0 });
    await call('POST', '/fields/notes', { field: 'code', type: 'string' });
    await call('POST', '/items/notes', { code: '4' });
    const indexedAtOnce = await call('PATCH', '/fields/notes/code?allowDestructive=true', { type: 'integer', indexed: true });
    expect([indexedAtOnce.status, indexedAtOnce.body.errors[0].extensions.reason]).toEqual([409, 'index']);
  });

  it('is for site administrators only, and never reaches another site', async () => {
    const { site, call } = await siteWithCodes();
    const member = await createMember(service, site);
    const before = await eventCount(owner, site.siteId);
    const forbidden = await service.request('PATCH', '/fields/notes/code?allowDestructive=true', { site: site.siteId, token: member.token, body: { type: 'integer' } });
    expect([forbidden.status, forbidden.body.errors[0].code]).toEqual([403, 'PERMISSION_DENIED']);
    const other = await createTestSite(service);
    const elsewhere = await adminCalls(service, other)('PATCH', '/fields/notes/code?allowDestructive=true', { type: 'integer' });
    expect([elsewhere.status, elsewhere.body.errors[0].code]).toEqual([404, 'NOT_FOUND']);
    expect(await eventCount(owner, site.siteId)).toBe(before);
    expect(await codes(call)).toEqual({ decimal: '12.5', none: null, twelve: '12', word: 'abc' });
    const badFlag = await call('PATCH', '/fields/notes/code?allowDestructive=yes', { type: 'integer' });
    expect([badFlag.status, badFlag.body.errors[0].code, badFlag.body.errors[0].path]).toEqual([400, 'VALIDATION_FAILED', ['query', 'allowDestructive']]);
  });
});

describe('applying a collection schema that changes a field type over values', () => {
  /** The exported bundle of `notes` with `code` declared as `type`. */
  async function bundleWithCode(call: ReturnType<typeof adminCalls>, type: string) {
    const bundle = (await call('GET', '/collections/notes/schema')).body.data;
    const index = bundle.fields.findIndex((field: { field: string }) => field.field === 'code');
    bundle.fields[index] = { ...bundle.fields[index], type };
    return { bundle, index };
  }

  it('is 409 DESTRUCTIVE_BLOCKED without allowDestructive, at the field of the bundle, with the counts, and writes nothing', async () => {
    const { site, call } = await siteWithCodes();
    const { bundle, index } = await bundleWithCode(call, 'integer');
    const before = await eventCount(owner, site.siteId);
    for (const path of ['/collections/notes/schema', '/collections/notes/schema?allowDestructive=false']) {
      const refused = await call('PUT', path, bundle);
      expect([refused.status, refused.body.errors[0].code, refused.body.errors[0].path]).toEqual([409, 'DESTRUCTIVE_BLOCKED', ['body', 'fields', index, 'type']]);
      expect(refused.body.errors[0].extensions).toMatchObject({ from: 'string', to: 'integer', converted: 1, nulled: 2 });
    }
    expect(await eventCount(owner, site.siteId)).toBe(before);
    expect((await call('GET', '/fields/notes/code')).body.data.type).toBe('string');
    expect(await codes(call)).toEqual({ decimal: '12.5', none: null, twelve: '12', word: 'abc' });
  });

  it('converts with allowDestructive=true as PATCH /fields does, counts it per field, and applying again changes nothing', async () => {
    const { site, call, ids } = await siteWithCodes();
    const { bundle } = await bundleWithCode(call, 'integer');
    const applied = await call('PUT', '/collections/notes/schema?allowDestructive=true', bundle);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body.meta).toMatchObject({ applied: true, events: 1, conversions: { code: { converted: 1, nulled: 2 } } });
    expect(applied.body.data.fields.find((field: { field: string }) => field.field === 'code').type).toBe('integer');
    expect(await codes(call)).toEqual({ decimal: null, none: null, twelve: 12, word: null });
    // The next write of an item starts from its converted value.
    expect((await call('PATCH', `/items/notes/${ids.twelve}`, { title: 'twelve' })).body.data.code).toBe(12);
    const before = await eventCount(owner, site.siteId);
    const again = await call('PUT', '/collections/notes/schema?allowDestructive=true', bundle);
    expect(again.body.meta).toMatchObject({ applied: false, events: 0 });
    expect(again.body.meta.conversions).toBeUndefined();
    expect(await eventCount(owner, site.siteId)).toBe(before);
  });

  it('refuses what it cannot convert with 409 CONFLICT and a reason, and a bad flag with 400 at the query', async () => {
    const site = await createTestSite(service);
    const call = adminCalls(service, site);
    await call('POST', '/collections', { name: 'notes', fields: [{ field: 'code', type: 'hash' }] });
    await call('POST', '/items/notes', { code: 'pw' });
    const { bundle, index } = await bundleWithCode(call, 'string');
    const before = await eventCount(owner, site.siteId);
    const refused = await call('PUT', '/collections/notes/schema?allowDestructive=true', bundle);
    expect([refused.status, refused.body.errors[0].code, refused.body.errors[0].path, refused.body.errors[0].extensions.reason]).toEqual([
      409,
      'CONFLICT',
      ['body', 'fields', index, 'type'],
      'hash',
    ]);
    const badFlag = await call('PUT', '/collections/notes/schema?allowDestructive=1', bundle);
    expect([badFlag.status, badFlag.body.errors[0].code, badFlag.body.errors[0].path]).toEqual([400, 'VALIDATION_FAILED', ['query', 'allowDestructive']]);
    expect(await eventCount(owner, site.siteId)).toBe(before);
  });

  it('is for site administrators only, and another site applying the same bundle changes only its own collection', async () => {
    const { site, call } = await siteWithCodes();
    const { bundle } = await bundleWithCode(call, 'integer');
    const member = await createMember(service, site);
    const before = await eventCount(owner, site.siteId);
    const forbidden = await service.request('PUT', '/collections/notes/schema?allowDestructive=true', { site: site.siteId, token: member.token, body: bundle });
    expect([forbidden.status, forbidden.body.errors[0].code]).toEqual([403, 'PERMISSION_DENIED']);
    const other = await createTestSite(service);
    const elsewhere = await adminCalls(service, other)('PUT', '/collections/notes/schema?allowDestructive=true', bundle);
    expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(200);
    expect(elsewhere.body.meta.conversions).toBeUndefined();
    expect(await eventCount(owner, site.siteId)).toBe(before);
    expect((await call('GET', '/fields/notes/code')).body.data.type).toBe('string');
    expect(await codes(call)).toEqual({ decimal: '12.5', none: null, twelve: '12', word: 'abc' });
  });
});
