// Erasure under dual control (/admin/erasure): a request keeps its subject as a keyed hash only; a
// second site administrator confirms it while `erasureDualControl` is on; execution hard-deletes the
// matching records and destroys their sealed pii/phi values, so that no copy of them is readable
// anywhere (the database holds none in plaintext, before or after); the signed receipt verifies
// offline; another site never sees nor reaches the erasure.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createItem, createMember } from '../access/support.ts';
import { erasureSite, expectError, ok, plaintextHits, requestErasure, unique } from './support.ts';

const service = await startTestServiceForFile();
const owner = openOwnerDatabaseForFile();

describe('POST /admin/erasure (the request)', () => {
  it('matches the records by a pii field and stores the subject as a keyed hash only', async () => {
    const { site } = await erasureSite(service);
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
    const { site } = await erasureSite(service);
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
  it('lists the site’s requests newest first, paged, and reads one (404 unknown, 404 not a uuid, as every area)', async () => {
    const { site } = await erasureSite(service);
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
    expectError(await site.admin('GET', '/admin/erasure/not-a-uuid'), 404, 'NOT_FOUND');
    for (const action of ['confirm', 'execute']) {
      expectError(await site.admin('POST', `/admin/erasure/${randomUUID()}/${action}`), 404, 'NOT_FOUND');
      expectError(await site.admin('POST', `/admin/erasure/not-a-uuid/${action}`), 404, 'NOT_FOUND');
    }
    expectError(await site.admin('GET', `/admin/erasure/${randomUUID()}/receipt`), 404, 'NOT_FOUND');
    expectError(await site.admin('GET', '/admin/erasure/not-a-uuid/receipt'), 404, 'NOT_FOUND');
  });
});

describe('access', () => {
  it('is for site administrators only: 403 for a member, 401 without a token', async () => {
    const { site } = await erasureSite(service);
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
    const { site, second } = await erasureSite(service);
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
    const { site } = await erasureSite(service);
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
    const { site, second } = await erasureSite(service);
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

