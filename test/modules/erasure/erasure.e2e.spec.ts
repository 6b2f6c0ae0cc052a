// Erasure under dual control (/admin/erasure): a request keeps its subject as a keyed hash only; a
// second site administrator confirms it while `erasureDualControl` is on; execution hard-deletes the
// matching records and destroys their sealed pii/phi values, so that no copy of them is readable
// anywhere (the database holds none in plaintext, before or after); the signed receipt verifies
// offline; another site never sees nor reaches the erasure.
import { createPublicKey, randomBytes, randomUUID, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../../infra/postgres/database.ts';
import { identifier, sql } from '../../../infra/postgres/sql.ts';
import { createCollection } from '../../support/contentModel.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile, type TestResponse } from '../../support/testService.ts';
import { createItem, createMember, withHelpers, type AccessSite, type Member } from '../access/support.ts';
import { createRole } from '../identity/support/identity.ts';

const service = await startTestServiceForFile();
const owner = openOwnerDatabaseForFile();

interface ErasureSite {
  site: AccessSite;
  /** A second site administrator (admin role), the one who confirms. */
  second: Member;
}

/** A site with `patients` (name, city; email pii, diagnosis phi), `notes` (text; contact pii) and a second administrator. */
async function erasureSite(prefix = 'erase'): Promise<ErasureSite> {
  const site = withHelpers(service, await createTestSite(service, prefix));
  await createCollection(service, site, 'patients', [
    { field: 'name', type: 'string' },
    { field: 'city', type: 'string' },
    { field: 'email', type: 'string', sensitivity: 'pii' },
    { field: 'diagnosis', type: 'text', sensitivity: 'phi' },
  ]);
  await createCollection(service, site, 'notes', [
    { field: 'text', type: 'string' },
    { field: 'contact', type: 'string', sensitivity: 'pii' },
  ]);
  const second = await createMember(service, site, { roleId: await createRole(service, site.siteId, { admin: true }) });
  return { site, second };
}

/** A value no other test writes (hex and dashes only: nothing LIKE would read as a wildcard). */
function unique(label: string): string {
  return `${label}-${randomBytes(6).toString('hex')}`;
}

function expectError(response: TestResponse, status: number, code: string): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.errors[0].code, JSON.stringify(response.body)).toBe(code);
}

async function requestErasure(site: AccessSite, body: Record<string, unknown>, token = site.adminToken) {
  const response = await site.as(token, 'POST', '/admin/erasure', { reason: 'Art. 17 request', ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data;
}

async function ok(response: Promise<TestResponse>, status = 200) {
  const result = await response;
  expect(result.status, JSON.stringify(result.body)).toBe(status);
  return result.body.data;
}

/**
 * Every place of the database that holds one of `values` in plaintext: each table of schema public,
 * each column of a text-like type searched as text (ILIKE), each bytea column searched for the
 * value's UTF-8 bytes. The owner connection is not bound by row-level security.
 */
async function plaintextHits(database: Database, values: readonly string[]): Promise<string[]> {
  const columns = await database.query<{ table_name: string; column_name: string; data_type: string }>(sql`
    SELECT c.table_name, c.column_name, c.data_type
      FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
     WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
       AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'tsvector', 'USER-DEFINED', 'xml', 'bytea')
     ORDER BY c.table_name, c.column_name`);
  const searched = new Set(columns.map((column) => `${column.table_name}.${column.column_name}`));
  // The search covers the places a value would be: the log, the read models, the sealed store.
  for (const place of ['events.data', 'events.metadata', 'items.data', 'erasure_requests.subject_hash', 'sensitive_values.sealed']) {
    expect(searched, place).toContain(place);
  }
  const hits: string[] = [];
  for (const { table_name: table, column_name: column, data_type: type } of columns) {
    const found = (value: ReturnType<typeof sql>) =>
      type === 'bytea'
        ? sql`position(convert_to(${value}, 'UTF8') in t.${identifier(column)}) > 0`
        : sql`t.${identifier(column)}::text ILIKE '%' || ${value} || '%'`;
    const rows = await database.query<{ value: string }>(sql`
      SELECT v.value FROM unnest(${[...values]}::text[]) AS v(value)
       WHERE EXISTS (SELECT 1 FROM ${identifier(table)} t WHERE ${found(sql`v.value`)})`);
    for (const row of rows) hits.push(`${table}.${column}: ${row.value}`);
  }
  return hits;
}

async function sealedCount(site: AccessSite, itemIds: readonly string[]): Promise<number> {
  const [row] = await owner.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM sensitive_values WHERE site_id = ${site.siteId} AND item_id = ANY(${[...itemIds]}::text[])`);
  return row!.n;
}

describe('POST /admin/erasure (the request)', () => {
  it('matches the records by a pii field and stores the subject as a keyed hash only', async () => {
    const { site } = await erasureSite();
    const email = `${unique('subject')}@example.test`;
    const first = await createItem(site, 'patients', { name: 'Pat', email, diagnosis: unique('diagnosis') });
    const second = await createItem(site, 'patients', { name: 'Pat again', email });
    await createItem(site, 'patients', { name: 'Other', email: `${unique('other')}@example.test` });

    const before = Date.now();
    const erasure = await requestErasure(site, { collection: 'patients', filter: { email: { _eq: email } }, reason: 'subject asked' });
    expect(erasure).toEqual({
      id: expect.any(String),
      status: 'requested',
      collection: 'patients',
      subjectHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      reason: 'subject asked',
      matchedCount: 2,
      requestedBy: site.adminUserId,
      requestedAt: expect.any(String),
      confirmedBy: null,
      confirmedAt: null,
      executedBy: null,
      executedAt: null,
      recordCount: null,
      shreddedValues: null,
    });
    expect(Date.parse(erasure.requestedAt)).toBeGreaterThanOrEqual(before - 1_000);
    expect(await ok(site.admin('GET', `/admin/erasure/${erasure.id}`))).toEqual(erasure);

    // The request names its records by id, never by value.
    const [stored] = await owner.query<{ record_ids: string[] }>(sql`SELECT record_ids FROM erasure_requests WHERE site_id = ${site.siteId} AND id = ${erasure.id}::uuid`);
    expect([...stored!.record_ids].sort()).toEqual([first.id, second.id].sort());

    // The plaintext subject is in no event, in no erasure row, nowhere in the database.
    const events = await owner.query<{ type: string; text: string }>(sql`SELECT type, data::text || metadata::text AS text FROM events WHERE site_id = ${site.siteId}`);
    expect(events.map((event) => event.type)).toContain('erasure_requested');
    expect(events.filter((event) => event.text.toLowerCase().includes(email.toLowerCase()))).toEqual([]);
    const rows = await owner.query<{ text: string }>(sql`SELECT row_to_json(e)::text AS text FROM erasure_requests e WHERE site_id = ${site.siteId}`);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.text).not.toContain(email);
    expect(erasure.subjectHash).not.toContain(email);
    expect(await plaintextHits(owner, [email])).toEqual([]);

    // The hash is keyed by the subject: the same filter gives the same hash, another filter another one.
    const again = await requestErasure(site, { collection: 'patients', filter: { email: { _eq: email } } });
    expect(again.subjectHash).toBe(erasure.subjectHash);
    const other = await requestErasure(site, { collection: 'patients', filter: { email: { _eq: `x${email}` } } });
    expect(other.subjectHash).not.toBe(erasure.subjectHash);
    expect(other.matchedCount).toBe(0);
  });

  it('refuses an empty filter, an unknown field or key, a bad body, and answers 404 for an unknown collection', async () => {
    const { site } = await erasureSite();
    const post = (body: unknown) => site.admin('POST', '/admin/erasure', body);

    const empty = await post({ collection: 'patients', filter: {}, reason: 'r' });
    expectError(empty, 400, 'VALIDATION_FAILED');
    expect(empty.body.errors[0].path).toEqual(['body', 'filter']);

    const unknownField = await post({ collection: 'patients', filter: { nope: { _eq: 'x' } }, reason: 'r' });
    expectError(unknownField, 400, 'VALIDATION_FAILED');
    expect(unknownField.body.errors[0].path.slice(0, 2)).toEqual(['body', 'filter']);

    const cases: [unknown, string][] = [
      [{ collection: 'patients', filter: { email: { _eq: 'a@b.c' } }, reason: 'r', extra: true }, 'body'],
      [{ collection: 'patients', filter: { email: { _eq: 'a@b.c' } } }, 'reason'],
      [{ collection: 'patients', filter: { email: { _eq: 'a@b.c' } }, reason: '   ' }, 'reason'],
      [{ filter: { email: { _eq: 'a@b.c' } }, reason: 'r' }, 'collection'],
      [{ collection: 'patients', reason: 'r' }, 'filter'],
      [{ collection: 'patients', filter: 'email', reason: 'r' }, 'filter'],
    ];
    for (const [body, field] of cases) {
      const response = await post(body);
      expectError(response, 400, 'VALIDATION_FAILED');
      expect(response.body.errors.flatMap((error: { path: unknown[] }) => error.path), JSON.stringify(body)).toContain(field);
    }

    expectError(await post({ collection: 'nothing_here', filter: { email: { _eq: 'a@b.c' } }, reason: 'r' }), 404, 'NOT_FOUND');
    // Nothing was requested.
    expect((await site.admin('GET', '/admin/erasure')).body.data).toEqual([]);
  });
});

describe('GET /admin/erasure', () => {
  it('lists the site’s requests newest first, paged, and reads one (404 unknown, 400 not a uuid)', async () => {
    const { site } = await erasureSite();
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push((await requestErasure(site, { collection: 'patients', filter: { city: { _eq: `city-${n}` } } })).id);

    const all = await site.admin('GET', '/admin/erasure');
    expect(all.status).toBe(200);
    expect(all.body.data.map((erasure: { id: string }) => erasure.id)).toEqual([...ids].reverse());
    expect(all.body.meta).toEqual({ total: 3, page: 1, pageSize: 25 });
    const page = await site.admin('GET', '/admin/erasure?limit=2&page=2');
    expect(page.body.data.map((erasure: { id: string }) => erasure.id)).toEqual([ids[0]]);
    expect(page.body.meta).toEqual({ total: 3, page: 2, pageSize: 2 });
    expectError(await site.admin('GET', '/admin/erasure?limit=0'), 400, 'VALIDATION_FAILED');

    expect((await ok(site.admin('GET', `/admin/erasure/${ids[1]}`))).id).toBe(ids[1]);
    expectError(await site.admin('GET', `/admin/erasure/${randomUUID()}`), 404, 'NOT_FOUND');
    expectError(await site.admin('GET', '/admin/erasure/not-a-uuid'), 400, 'VALIDATION_FAILED');
    for (const action of ['confirm', 'execute']) {
      expectError(await site.admin('POST', `/admin/erasure/${randomUUID()}/${action}`), 404, 'NOT_FOUND');
      expectError(await site.admin('POST', `/admin/erasure/not-a-uuid/${action}`), 400, 'VALIDATION_FAILED');
    }
    expectError(await site.admin('GET', `/admin/erasure/${randomUUID()}/receipt`), 404, 'NOT_FOUND');
    expectError(await site.admin('GET', '/admin/erasure/not-a-uuid/receipt'), 400, 'VALIDATION_FAILED');
  });
});

describe('access', () => {
  it('is for site administrators only: 403 for a member, 401 without a token', async () => {
    const { site } = await erasureSite();
    const erasure = await requestErasure(site, { collection: 'patients', filter: { city: { _eq: 'x' } } });
    const member = await createMember(service, site);
    const routes: [string, string, unknown?][] = [
      ['POST', '/admin/erasure', { collection: 'patients', filter: { city: { _eq: 'x' } }, reason: 'r' }],
      ['GET', '/admin/erasure'],
      ['GET', `/admin/erasure/${erasure.id}`],
      ['POST', `/admin/erasure/${erasure.id}/confirm`],
      ['POST', `/admin/erasure/${erasure.id}/execute`],
      ['GET', `/admin/erasure/${erasure.id}/receipt`],
    ];
    for (const [method, path, body] of routes) {
      expectError(await site.as(member.token, method, path, body), 403, 'PERMISSION_DENIED');
      expectError(await site.as(null, method, path, body), 401, 'UNAUTHENTICATED');
    }
    expect((await ok(site.admin('GET', `/admin/erasure/${erasure.id}`))).status).toBe('requested');
    expect((await site.admin('GET', '/admin/erasure')).body.meta.total).toBe(1);
  });
});

describe('dual control', () => {
  it('needs a second administrator’s confirmation before execution, and runs each step once', async () => {
    const { site, second } = await erasureSite();
    const email = `${unique('dual')}@example.test`;
    const patient = await createItem(site, 'patients', { name: 'Dual', email });
    const erasure = await requestErasure(site, { collection: 'patients', filter: { email: { _eq: email } } });

    // The requester cannot approve their own request, and nothing runs unconfirmed.
    expectError(await site.admin('POST', `/admin/erasure/${erasure.id}/confirm`), 403, 'PERMISSION_DENIED');
    expectError(await site.admin('POST', `/admin/erasure/${erasure.id}/execute`), 409, 'CONFLICT');
    expectError(await site.as(second.token, 'POST', `/admin/erasure/${erasure.id}/execute`), 409, 'CONFLICT');
    expectError(await site.admin('GET', `/admin/erasure/${erasure.id}/receipt`), 409, 'CONFLICT');
    expect((await ok(site.admin('GET', `/items/patients/${patient.id}`))).email).toBe(email);
    expect((await ok(site.admin('GET', `/admin/erasure/${erasure.id}`))).status).toBe('requested');

    const confirmed = await ok(site.as(second.token, 'POST', `/admin/erasure/${erasure.id}/confirm`));
    expect(confirmed).toMatchObject({ id: erasure.id, status: 'confirmed', requestedBy: site.adminUserId, confirmedBy: second.userId, confirmedAt: expect.any(String), executedAt: null });
    expectError(await site.as(second.token, 'POST', `/admin/erasure/${erasure.id}/confirm`), 409, 'CONFLICT');
    expectError(await site.admin('POST', `/admin/erasure/${erasure.id}/confirm`), 409, 'CONFLICT');
    expectError(await site.admin('GET', `/admin/erasure/${erasure.id}/receipt`), 409, 'CONFLICT');
    // Still there until executed.
    expect((await ok(site.admin('GET', `/items/patients/${patient.id}`))).email).toBe(email);

    const executed = await ok(site.admin('POST', `/admin/erasure/${erasure.id}/execute`));
    expect(executed).toMatchObject({ status: 'executed', confirmedBy: second.userId, executedBy: site.adminUserId, executedAt: expect.any(String), recordCount: 1, shreddedValues: 1 });
    expectError(await site.admin('POST', `/admin/erasure/${erasure.id}/execute`), 409, 'CONFLICT');
    expectError(await site.as(second.token, 'POST', `/admin/erasure/${erasure.id}/confirm`), 409, 'CONFLICT');
    expect(await ok(site.admin('GET', `/admin/erasure/${erasure.id}`))).toEqual(executed);
    const erasedEvents = await owner.query(sql`SELECT 1 FROM events WHERE site_id = ${site.siteId} AND type = 'data_erased'`);
    expect(erasedEvents).toHaveLength(1);
  });

  it('lets one administrator execute straight from the request when erasureDualControl is off', async () => {
    const { site } = await erasureSite();
    expect((await site.admin('GET', '/settings/erasureDualControl')).body.data).toEqual({ key: 'erasureDualControl', value: true, isDefault: true });
    expect((await site.admin('PUT', '/settings/erasureDualControl', { value: false })).status).toBe(200);
    const email = `${unique('single')}@example.test`;
    const patient = await createItem(site, 'patients', { name: 'Single', email, diagnosis: unique('diagnosis') });
    const erasure = await requestErasure(site, { collection: 'patients', filter: { email: { _eq: email } } });

    const executed = await ok(site.admin('POST', `/admin/erasure/${erasure.id}/execute`));
    expect(executed).toMatchObject({ status: 'executed', confirmedBy: null, executedBy: site.adminUserId, recordCount: 1, shreddedValues: 2 });
    expectError(await site.admin('GET', `/items/patients/${patient.id}`), 404, 'RECORD_NOT_FOUND');
    expectError(await site.admin('POST', `/admin/erasure/${erasure.id}/execute`), 409, 'CONFLICT');
    expect((await ok(site.admin('GET', `/admin/erasure/${erasure.id}/receipt`))).receipt).toMatchObject({ erasureId: erasure.id, confirmedBy: null, recordCount: 1 });
  });

  it('executes once when two administrators execute at the same time', async () => {
    const { site, second } = await erasureSite();
    const email = `${unique('race')}@example.test`;
    await createItem(site, 'patients', { name: 'Race', email });
    await createItem(site, 'patients', { name: 'Race 2', email });
    const erasure = await requestErasure(site, { collection: 'patients', filter: { email: { _eq: email } } });
    await ok(site.as(second.token, 'POST', `/admin/erasure/${erasure.id}/confirm`));
    const [one, two] = await Promise.all([
      site.admin('POST', `/admin/erasure/${erasure.id}/execute`),
      site.as(second.token, 'POST', `/admin/erasure/${erasure.id}/execute`),
    ]);
    expect([one.status, two.status].sort(), JSON.stringify([one.body, two.body])).toEqual([200, 409]);
    const executed = one.status === 200 ? one.body.data : two.body.data;
    expect(executed).toMatchObject({ status: 'executed', recordCount: 2, shreddedValues: 2 });
    const events = await owner.query<{ record_count: number }>(sql`
      SELECT (data->>'recordCount')::int AS record_count FROM events WHERE site_id = ${site.siteId} AND type = 'data_erased'`);
    expect(events).toEqual([{ record_count: 2 }]);
  });
});

describe('execution', () => {
  it('erases exactly the matching records: no pii of theirs readable anywhere, every other record untouched', async () => {
    const { site, second } = await erasureSite();
    const email = `${unique('erased')}@example.test`;
    const diagnoses = [unique('diagnosis'), unique('diagnosis'), unique('diagnosis'), unique('diagnosis')];
    const versionEmail = `${unique('version')}@example.test`;
    const keptEmail = `${unique('kept')}@example.test`;
    const keptDiagnosis = unique('kept-diagnosis');
    const keptName = unique('kept-name');

    const first = await createItem(site, 'patients', { name: 'Erased One', city: 'Lyon', email, diagnosis: diagnoses[0] });
    await ok(site.admin('PATCH', `/items/patients/${first.id}`, { diagnosis: diagnoses[1] }));
    await ok(site.admin('POST', `/items/patients/${first.id}/versions`, { key: 'draft', name: 'Draft' }), 201);
    await ok(site.admin('PATCH', `/items/patients/${first.id}/versions/draft`, { data: { email: versionEmail, diagnosis: diagnoses[2] } }));
    const secondRecord = await createItem(site, 'patients', { name: 'Erased Two', city: 'Nice', email });
    // A soft-deleted record of the subject still holds their data: it is erased too.
    const deleted = await createItem(site, 'patients', { name: 'Erased Deleted', email, diagnosis: diagnoses[3] });
    expect((await site.admin('DELETE', `/items/patients/${deleted.id}`)).status).toBe(204);
    const kept = await createItem(site, 'patients', { name: keptName, city: 'Lyon', email: keptEmail, diagnosis: keptDiagnosis });
    // The same address in another collection is not the request's subject.
    const note = await createItem(site, 'notes', { text: 'a note', contact: email });
    const erasedIds = [first.id, secondRecord.id, deleted.id];
    const sealedBefore = await sealedCount(site, erasedIds);
    expect(sealedBefore).toBeGreaterThanOrEqual(7);
    const keptSealed = await sealedCount(site, [kept.id, note.id]);

    const erasure = await requestErasure(site, { collection: 'patients', filter: { email: { _eq: email } } });
    expect(erasure.matchedCount).toBe(3);
    await ok(site.as(second.token, 'POST', `/admin/erasure/${erasure.id}/confirm`));
    const executed = await ok(site.admin('POST', `/admin/erasure/${erasure.id}/execute`));
    expect(executed).toMatchObject({ status: 'executed', recordCount: 3, shreddedValues: sealedBefore });

    // The erased records are gone, from every read path.
    for (const id of erasedIds) expectError(await site.admin('GET', `/items/patients/${id}`), 404, 'RECORD_NOT_FOUND');
    const items = await owner.query<{ id: string }>(sql`SELECT id FROM items WHERE site_id = ${site.siteId} AND id = ANY(${erasedIds}::text[])`);
    expect(items).toEqual([]);
    expect(await sealedCount(site, erasedIds)).toBe(0);
    const list = await ok(site.admin('GET', '/items/patients'));
    expect(list.map((item: { id: string }) => item.id)).toEqual([kept.id]);

    // Their revisions and versions no longer show the pii (gone, or null where a revision is kept).
    const revisions = await site.admin('GET', `/items/patients/${first.id}/revisions`);
    if (revisions.status === 200) {
      expect(revisions.body.data.length).toBeGreaterThan(0);
      for (const revision of revisions.body.data) {
        for (const content of [revision.data, revision.delta, revision.draft]) {
          if (content) {
            expect(content.email ?? null).toBeNull();
            expect(content.diagnosis ?? null).toBeNull();
          }
        }
      }
    } else {
      expectError(revisions, 404, 'RECORD_NOT_FOUND');
    }
    const versions = await site.admin('GET', `/items/patients/${first.id}/versions`);
    expect(versions.status, JSON.stringify(versions.body)).toBe(404);
    const version = await site.admin('GET', `/items/patients/${first.id}/versions/draft`);
    if (version.status === 200) {
      expect(version.body.data.email ?? null).toBeNull();
      expect(version.body.data.diagnosis ?? null).toBeNull();
    } else {
      expect(version.status, JSON.stringify(version.body)).toBe(404);
    }
    for (const response of [revisions, versions, version]) {
      for (const value of [email, versionEmail, ...diagnoses]) expect(JSON.stringify(response.body)).not.toContain(value);
    }

    // The rest of the collection, and the other collection, are untouched and still read with their pii.
    expect(await ok(site.admin('GET', `/items/patients/${kept.id}`))).toMatchObject({ name: keptName, email: keptEmail, diagnosis: keptDiagnosis });
    expect(await ok(site.admin('GET', `/items/notes/${note.id}`))).toMatchObject({ text: 'a note', contact: email });
    expect(await sealedCount(site, [kept.id, note.id])).toBe(keptSealed);

    // The log records the erasure by count and ids, never a value; the audit shows it and still verifies.
    const [erasedEvent] = await owner.query<{ data: Record<string, unknown>; text: string }>(sql`
      SELECT data, data::text || metadata::text AS text FROM events WHERE site_id = ${site.siteId} AND type = 'data_erased'`);
    expect(erasedEvent!.data).toMatchObject({ erasureId: erasure.id, collection: 'patients', subjectHash: erasure.subjectHash, recordCount: 3, shreddedValues: sealedBefore });
    expect([...(erasedEvent!.data.recordIds as string[])].sort()).toEqual([...erasedIds].sort());
    for (const value of [email, versionEmail, ...diagnoses]) expect(erasedEvent!.text).not.toContain(value);
    await service.context.daemon.drain();
    const audit = await site.admin('GET', '/audit?filter[action][_eq]=data_erased');
    expect(audit.status, JSON.stringify(audit.body)).toBe(200);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({ action: 'data_erased', actor: { kind: 'user', id: site.adminUserId } });
    const verified = await site.admin('GET', '/audit/verify');
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body.data.valid, JSON.stringify(verified.body.data)).toBe(true);
    // The report names the erasure, so that the hard-deleted records read as erased on purpose.
    expect(verified.body.data.erasures).toEqual({
      executed: 1,
      latest: [{ erasureId: erasure.id, collection: 'patients', executedAt: executed.executedAt, recordCount: 3, shreddedValues: sealedBefore }],
    });

    // The change feed tells downstream copies to erase: one erasures.execute entry, an items.delete per record.
    const feed = await site.admin('GET', '/cdc/events?limit=500');
    expect(feed.status, JSON.stringify(feed.body)).toBe(200);
    const entries = feed.body.data as { type: string; collection: string | null; itemId: string | null; snapshot: Record<string, unknown> | null }[];
    const executions = entries.filter((entry) => entry.type === 'erasures.execute');
    expect(executions).toHaveLength(1);
    expect(executions[0]).toMatchObject({ collection: 'patients', itemId: erasure.id, snapshot: { erasureId: erasure.id, recordCount: 3, subjectHash: erasure.subjectHash } });
    expect([...(executions[0]!.snapshot!.recordIds as string[])].sort()).toEqual([...erasedIds].sort());
    const deletes = entries.filter((entry) => entry.type === 'items.delete' && entry.collection === 'patients');
    for (const id of erasedIds) expect(deletes.map((entry) => entry.itemId)).toContain(id);
    // (The note, not erased, still carries the same address: only the patients' entries are the subject's.)
    const feedText = JSON.stringify(entries.filter((entry) => entry.collection === 'patients'));
    for (const value of [email, versionEmail, ...diagnoses]) expect(feedText).not.toContain(value);

    // Nothing of the erased values is anywhere in the database in plaintext, nor is the kept record's pii;
    // a plain value is found (the search itself works).
    await service.context.daemon.drain();
    expect(await plaintextHits(owner, [email, versionEmail, ...diagnoses])).toEqual([]);
    expect(await plaintextHits(owner, [keptEmail, keptDiagnosis])).toEqual([]);
    expect((await plaintextHits(owner, [keptName])).some((hit) => hit.startsWith('items.data:'))).toBe(true);
  });

  it('erases by a plain field the same way', async () => {
    const { site, second } = await erasureSite();
    const city = unique('city');
    const emails = [`${unique('plain')}@example.test`, `${unique('plain')}@example.test`];
    // Created in one request (one transaction, the bulk path): each value is sealed for its own record.
    const matching = (await ok(
      site.admin('POST', '/items/patients', [
        { name: 'A', city, email: emails[0] },
        { name: 'B', city, email: emails[1] },
      ]),
      201,
    )) as { id: string }[];
    expect(matching).toHaveLength(2);
    expect(await sealedCount(site, matching.map((item) => item.id))).toBe(2);
    const keptEmail = `${unique('kept')}@example.test`;
    const other = await createItem(site, 'patients', { name: 'C', city: `${city}-not`, email: keptEmail });

    const erasure = await requestErasure(site, { collection: 'patients', filter: { city: { _eq: city } } });
    expect(erasure.matchedCount).toBe(2);
    await ok(site.as(second.token, 'POST', `/admin/erasure/${erasure.id}/confirm`));
    expect(await ok(site.admin('POST', `/admin/erasure/${erasure.id}/execute`))).toMatchObject({ status: 'executed', recordCount: 2, shreddedValues: 2 });

    for (const item of matching) expectError(await site.admin('GET', `/items/patients/${item.id}`), 404, 'RECORD_NOT_FOUND');
    expect(await sealedCount(site, matching.map((item) => item.id))).toBe(0);
    expect((await ok(site.admin('GET', `/items/patients/${other.id}`))).email).toBe(keptEmail);
    await service.context.daemon.drain();
    expect(await plaintextHits(owner, [...emails, keptEmail])).toEqual([]);
  });
});

describe('the receipt', () => {
  it('is signed with Ed25519 and verifies offline with the public key it carries', async () => {
    const { site, second } = await erasureSite();
    const email = `${unique('receipt')}@example.test`;
    await createItem(site, 'patients', { name: 'R', email, diagnosis: unique('diagnosis') });
    await createItem(site, 'patients', { name: 'R2', email });
    const erasure = await requestErasure(site, { collection: 'patients', filter: { email: { _eq: email } }, reason: 'subject asked by mail' });
    await ok(site.as(second.token, 'POST', `/admin/erasure/${erasure.id}/confirm`));
    const executed = await ok(site.admin('POST', `/admin/erasure/${erasure.id}/execute`));

    const response = await site.admin('GET', `/admin/erasure/${erasure.id}/receipt`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const { receipt, payload, signature, keyId, algorithm, publicKey } = response.body.data;
    expect(algorithm).toBe('Ed25519');
    expect(typeof keyId).toBe('string');
    expect(receipt).toMatchObject({
      erasureId: erasure.id,
      siteId: site.siteId,
      collection: 'patients',
      subjectHash: erasure.subjectHash,
      recordCount: 2,
      shreddedValues: executed.shreddedValues,
      reason: 'subject asked by mail',
      requestedBy: site.adminUserId,
      confirmedBy: second.userId,
      executedBy: site.adminUserId,
      executedAt: executed.executedAt,
    });
    expect(JSON.parse(payload)).toEqual(receipt);
    expect(payload).not.toContain(email);

    const key = createPublicKey(publicKey.pem);
    expect(key.asymmetricKeyType).toBe('ed25519');
    expect(verify(null, Buffer.from(payload), key, Buffer.from(signature, 'base64url'))).toBe(true);
    expect(verify(null, Buffer.from(payload), createPublicKey({ key: publicKey.jwk, format: 'jwk' }), Buffer.from(signature, 'base64url'))).toBe(true);
    const tampered = payload.replace('"recordCount":2', '"recordCount":1');
    expect(tampered).not.toBe(payload);
    expect(verify(null, Buffer.from(tampered), key, Buffer.from(signature, 'base64url'))).toBe(false);
    // Read again, it is the same receipt.
    expect((await ok(site.admin('GET', `/admin/erasure/${erasure.id}/receipt`))).payload).toBe(payload);
  });
});

describe('another site', () => {
  it('never reads, confirms or executes this site’s erasure, and keeps its own records with the same values', async () => {
    const a = await erasureSite('erase-a');
    const b = await erasureSite('erase-b');
    const email = `${unique('shared')}@example.test`;
    const diagnosis = unique('shared-diagnosis');
    const city = unique('shared-city');
    const inA = await createItem(a.site, 'patients', { name: 'In A', city, email, diagnosis });
    const inB = await createItem(b.site, 'patients', { name: 'In B', city, email, diagnosis });
    const sealedInB = await sealedCount(b.site, [inB.id]);

    const byEmail = await requestErasure(a.site, { collection: 'patients', filter: { email: { _eq: email } } });
    const byCity = await requestErasure(a.site, { collection: 'patients', filter: { city: { _eq: city } } });
    expect(byEmail.matchedCount).toBe(1);
    expect(byCity.matchedCount).toBe(1);

    for (const admin of [b.site.adminToken, b.second.token]) {
      expectError(await b.site.as(admin, 'GET', `/admin/erasure/${byEmail.id}`), 404, 'NOT_FOUND');
      expectError(await b.site.as(admin, 'POST', `/admin/erasure/${byEmail.id}/confirm`), 404, 'NOT_FOUND');
      expectError(await b.site.as(admin, 'POST', `/admin/erasure/${byEmail.id}/execute`), 404, 'NOT_FOUND');
      expectError(await b.site.as(admin, 'GET', `/admin/erasure/${byEmail.id}/receipt`), 404, 'NOT_FOUND');
    }
    expect((await b.site.admin('GET', '/admin/erasure')).body.data).toEqual([]);
    // B's token sent with A's site header opens nothing either (a token belongs to its site).
    const foreignToken = await service.request('GET', `/admin/erasure/${byEmail.id}`, { site: a.site.siteId, token: b.site.adminToken });
    expect([401, 403, 404], JSON.stringify(foreignToken.body)).toContain(foreignToken.status);
    expect((await ok(a.site.admin('GET', `/admin/erasure/${byEmail.id}`))).status).toBe('requested');

    await ok(a.site.as(a.second.token, 'POST', `/admin/erasure/${byEmail.id}/confirm`));
    expect(await ok(a.site.admin('POST', `/admin/erasure/${byEmail.id}/execute`))).toMatchObject({ recordCount: 1 });
    expectError(await a.site.admin('GET', `/items/patients/${inA.id}`), 404, 'RECORD_NOT_FOUND');
    // The request by city names a record that is gone by now: executing it erases nothing more.
    await ok(a.site.as(a.second.token, 'POST', `/admin/erasure/${byCity.id}/confirm`));
    expect(await ok(a.site.admin('POST', `/admin/erasure/${byCity.id}/execute`))).toMatchObject({ status: 'executed', recordCount: 0, shreddedValues: 0 });

    expect(await ok(b.site.admin('GET', `/items/patients/${inB.id}`))).toMatchObject({ name: 'In B', city, email, diagnosis });
    expect(await sealedCount(b.site, [inB.id])).toBe(sealedInB);
    const bItems = await owner.query(sql`SELECT 1 FROM items WHERE site_id = ${b.site.siteId} AND id = ${inB.id}`);
    expect(bItems).toHaveLength(1);
    expect(await owner.query(sql`SELECT 1 FROM events WHERE site_id = ${b.site.siteId} AND type IN ('erasure_requested', 'erasure_confirmed', 'data_erased')`)).toEqual([]);
    await service.context.daemon.drain();
    const feedOfB = await b.site.admin('GET', '/cdc/events?limit=500');
    expect(feedOfB.body.data.filter((entry: { type: string }) => entry.type === 'erasures.execute' || entry.type === 'items.delete')).toEqual([]);
  });
});
