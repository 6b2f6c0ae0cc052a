// The details of audit entries (domain/shared/auditEvents.ts): each action says what happened in
// ids, counts, kinds and states (data_erased its recordCount, a consent its type and version, a key
// rotation its key), never a personal value of the site's data; GET /audit filters on them and
// GET /audit/:eventId answers one entry; another site's entries are never shown nor counted.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createItem, createMember } from '../access/support.ts';
import { erasureSite, ok, unique } from '../erasure/support.ts';

const key = () => randomBytes(32).toString('base64');
const service = await startTestServiceForFile({ SVC_ENCRYPTION_KEYS: `k1:${key()},k2:${key()}` });

interface Entry {
  eventId: string;
  action: string;
  target: string;
  details: Record<string, unknown>;
}

/** A site with a history that holds personal data: patients (email pii, diagnosis phi), a consent, an erasure, a key rotation, a renamed member. */
async function siteWithPersonalData() {
  const { site, second } = await erasureSite(service, 'details');
  const email = `${unique('subject')}@example.test`;
  const personal = {
    email,
    names: [unique('Jane'), unique('Joan')],
    diagnosis: unique('diagnosis'),
    newEmail: `${unique('renamed')}@example.test`,
    reason: unique('because the subject asked'),
  };
  const first = await createItem(site, 'patients', { name: personal.names[0], email, diagnosis: personal.diagnosis });
  await createItem(site, 'patients', { name: personal.names[1], email });
  await createItem(site, 'patients', { name: unique('kept'), email: `${unique('kept')}@example.test` });
  await ok(site.admin('PATCH', `/items/patients/${first.id}`, { diagnosis: `${personal.diagnosis}-2` }));
  await ok(site.admin('GET', `/items/patients/${first.id}`));
  await ok(site.as(second.token, 'PUT', '/me/consents/marketing', { granted: true, source: 'banner', version: '2024-06' }));
  await ok(site.as(second.token, 'PUT', '/me/consents/marketing', { granted: false, source: 'settings', version: '2024-07' }));
  await ok(site.admin('PATCH', `/users/${second.userId}`, { email: personal.newEmail, firstName: 'Renamed' }));
  await ok(site.admin('POST', '/admin/encryption/keys/rotate', { keyId: 'k2' }));
  const erasure = await site.as(site.adminToken, 'POST', '/admin/erasure', { collection: 'patients', filter: { email: { _eq: email } }, reason: personal.reason });
  expect(erasure.status, JSON.stringify(erasure.body)).toBe(201);
  await ok(site.as(second.token, 'POST', `/admin/erasure/${erasure.body.data.id}/confirm`));
  await ok(site.admin('POST', `/admin/erasure/${erasure.body.data.id}/execute`));
  await service.context.daemon.drain();
  return { site, second, personal, erasureId: erasure.body.data.id as string };
}

async function audit(site: { siteId: string; adminToken: string }, query = '') {
  const response = await service.request('GET', `/audit?limit=200${query}`, { site: site.siteId, token: site.adminToken });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return { entries: response.body.data as Entry[], total: response.body.meta.total as number };
}

/** Every string a details value holds (arrays walked). */
function detailStrings(entries: readonly Entry[]): string[] {
  return entries.flatMap((entry) => Object.values(entry.details).flatMap((value) => (Array.isArray(value) ? value : [value]))).map(String);
}

describe('audit entry details', () => {
  it('say what each action did: data_erased its recordCount, a consent its type and version, a rotation its key', async () => {
    const { site, erasureId } = await siteWithPersonalData();
    const { entries } = await audit(site);
    const byAction = (action: string) => entries.filter((entry) => entry.action === action);

    expect(byAction('data_erased').map((entry) => entry.details)).toEqual([{ erasureId, collection: 'patients', recordCount: 2, shreddedValues: expect.any(Number) }]);
    expect(byAction('erasure_requested').map((entry) => entry.details)).toEqual([{ erasureId, collection: 'patients', recordCount: 2 }]);
    expect(byAction('consent_withdrawn').map((entry) => entry.details)).toEqual([{ consentType: 'marketing', version: '2024-07' }]);
    expect(byAction('consent_granted').map((entry) => entry.details)).toEqual([{ consentType: 'marketing', version: '2024-06' }]);
    expect(byAction('encryption_key_rotated').map((entry) => entry.details)).toEqual([{ keyId: 'k2', previousKeyId: 'k1' }]);
    // The names of what changed, never the values.
    expect(byAction('user.updated').map((entry) => entry.details)).toContainEqual(expect.objectContaining({ changed: ['email', 'firstName'] }));
    expect(byAction('item.updated').map((entry) => entry.details)).toContainEqual(expect.objectContaining({ collection: 'patients', changedFields: expect.arrayContaining(['diagnosis']) }));
    expect(byAction('item.sensitive_read')[0]!.details).toEqual({ recordCount: 1, collections: ['patients'] });
    // Every entry has details, an object (empty where its type declares nothing of the event).
    for (const entry of entries) expect(typeof entry.details, entry.action).toBe('object');
  });

  it('never hold a personal value of the site’s data: no email, name, pii/phi value or reason', async () => {
    const { site, second, personal } = await siteWithPersonalData();
    const { entries } = await audit(site);
    expect(entries.length).toBeGreaterThan(20);
    const values = detailStrings(entries);
    const forbidden = [personal.email, ...personal.names, personal.diagnosis, `${personal.diagnosis}-2`, personal.newEmail, personal.reason, second.email, site.adminEmail, 'Renamed'];
    for (const value of forbidden) {
      expect(values.filter((text) => text.toLowerCase().includes(value.toLowerCase())), value).toEqual([]);
    }
  });

  it('filter like the rest of the list: a key’s range, its equality, containment, in either form', async () => {
    const { site } = await siteWithPersonalData();
    const erased = await audit(site, '&filter[details.recordCount][_gte]=2');
    expect(erased.entries.map((entry) => entry.action).sort()).toEqual(['data_erased', 'erasure_requested']);
    expect(erased.total).toBe(2);
    expect((await audit(site, '&filter[details.recordCount][_gte]=3')).entries).toEqual([]);
    const exact = await audit(site, '&filter[action][_eq]=data_erased&filter[details.recordCount][_eq]=2');
    expect(exact.entries.map((entry) => entry.action)).toEqual(['data_erased']);
    expect((await audit(site, '&filter[action][_eq]=data_erased&filter[details.recordCount][_eq]=1')).total).toBe(0);

    const json = (filter: unknown) => `&filter=${encodeURIComponent(JSON.stringify(filter))}`;
    const consents = await audit(site, json({ details: { _json_contains: { consentType: 'marketing' } } }));
    expect(consents.entries.map((entry) => entry.action).sort()).toEqual(['consent_granted', 'consent_withdrawn']);
    expect((await audit(site, json({ 'details.version': { _in: ['2024-07'] } }))).entries.map((entry) => entry.action)).toEqual(['consent_withdrawn']);
    const rotated = await audit(site, '&filter[details][_has_key]=previousKeyId');
    expect(rotated.entries.map((entry) => entry.action)).toEqual(['encryption_key_rotated']);
    // Under an _or the key's condition still holds.
    const either = await audit(site, json({ _or: [{ 'details.keyId': { _eq: 'k2' } }, { 'details.recordCount': { _between: [2, 2] } }] }));
    expect(either.entries.map((entry) => entry.action).sort()).toEqual(['data_erased', 'encryption_key_rotated', 'erasure_requested']);
  });

  it('refuse a filter the details do not take, with 400 VALIDATION_FAILED and its path, never a 500', async () => {
    const site = await createTestSite(service, 'details');
    const cases: [string, (string | number)[]][] = [
      ['&filter[details][_gte]=1', ['filter', 'details', '_gte']],
      ['&filter[details.recordCount][_neq]=1', ['filter', 'details.recordCount', '_neq']],
      ['&filter[details.recordCount][_null]=true', ['filter', 'details.recordCount', '_null']],
      ['&filter[details.a.b.c.d.e.f.g.h.i][_eq]=1', ['filter', 'details.a.b.c.d.e.f.g.h.i']],
    ];
    for (const [query, path] of cases) {
      const response = await service.request('GET', `/audit?${query}`, { site: site.siteId, token: site.adminToken });
      expect(response.status, query).toBe(400);
      expect(response.body.errors[0], query).toMatchObject({ code: 'VALIDATION_FAILED', path });
    }
  });

  it('are never another site’s: its filters and totals count only the site’s own entries', async () => {
    const { site } = await siteWithPersonalData();
    const other = await createTestSite(service, 'details');
    await service.context.daemon.drain();
    expect(await audit(other, '&filter[details.recordCount][_gte]=1')).toEqual({ entries: [], total: 0 });
    expect((await audit(other, '&filter[details][_has_key]=consentType')).total).toBe(0);
    expect((await audit(site, '&filter[details][_has_key]=consentType')).total).toBe(2);
  });
});

describe('GET /audit/:eventId', () => {
  it('answers one entry of the site with its details', async () => {
    const site = await createTestSite(service, 'details');
    await service.context.daemon.drain();
    const { entries } = await audit(site, '&filter[action][_eq]=site.created');
    const response = await service.request('GET', `/audit/${entries[0]!.eventId}`, { site: site.siteId, token: site.adminToken });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual(entries[0]);
    expect(response.body.data.details).toEqual({ siteId: site.siteId });
  });

  it('answers 404 for another site’s entry, an unknown id or one that is not a UUID; 403 and 401 to others', async () => {
    const site = await createTestSite(service, 'details');
    const other = await createTestSite(service, 'details');
    await service.context.daemon.drain();
    const [theirs] = (await audit(other)).entries;
    for (const id of [theirs!.eventId, '018f0000-0000-7000-8000-000000000000', 'not-an-id']) {
      const response = await service.request('GET', `/audit/${id}`, { site: site.siteId, token: site.adminToken });
      expect(response.status, id).toBe(404);
      expect(response.body.errors[0].code).toBe('NOT_FOUND');
    }
    const member = await createMember(service, site);
    const [mine] = (await audit(site)).entries;
    expect((await service.request('GET', `/audit/${mine!.eventId}`, { site: site.siteId, token: member.token })).status).toBe(403);
    expect((await service.request('GET', `/audit/${mine!.eventId}`, { site: site.siteId })).status).toBe(401);
  });
});
