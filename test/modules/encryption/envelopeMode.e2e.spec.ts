// The envelope mode (password re-verified) and its migration over real HTTP and PostgreSQL, on a
// deployment with two keys; values read the same throughout; the key routes are for administrators
// only, and each site sees its own. Rotation and rewrap are in keyAdmin.e2e.spec.ts.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createMember } from '../access/support.ts';
import { keyAdminHelpers } from './keyAdminSupport.ts';

const KEYS = `k1:${randomBytes(32).toString('base64')},k2:${randomBytes(32).toString('base64')}`;
const service = await startTestServiceForFile({ SVC_ENCRYPTION_KEYS: KEYS });
const owner = await connectOwnerClientForFile();
const { keySite, addPatients, valuesOf, keys, rotate, step, untilDone, sealedRows, countOnKey, expectValuesRead, audited, expectError, envelope, setEnvelope, withoutDataKey } = keyAdminHelpers(service, owner);

describe('the envelope mode', () => {
  it('is off at first, every value in direct mode', async () => {
    const site = await keySite();
    expect(await envelope(site)).toEqual({ enabled: false, migration: { total: 0, migrated: 0, remaining: 0, done: true } });
    await addPatients(site, 2);
    expect(await envelope(site)).toEqual({ enabled: false, migration: { total: valuesOf(2), migrated: valuesOf(2), remaining: 0, done: true } });
  });

  it('refuses a wrong password with 401 INVALID_CREDENTIALS and changes nothing', async () => {
    const site = await keySite();
    await addPatients(site, 2);
    const before = await envelope(site);
    const refused = await setEnvelope(site, true, 'not the password');
    expectError(refused, 401, 'INVALID_CREDENTIALS');
    expect(refused.body.errors[0].path).toEqual(['body', 'password']);
    expect(await envelope(site)).toEqual(before);
    expect(await audited(site, 'envelope_mode_changed')).toEqual([]);
    // The admin's session is still good.
    expect((await site.admin('GET', '/admin/encryption/keys')).status).toBe(200);
    expectError(await site.admin('POST', '/admin/encryption/envelope', { enabled: true }), 400, 'VALIDATION_FAILED');
    expectError(await site.admin('POST', '/admin/encryption/envelope', { enabled: 'yes', password: site.adminPassword }), 400, 'VALIDATION_FAILED');
    expectError(await site.admin('POST', '/admin/encryption/envelope', { enabled: true, password: site.adminPassword, extra: 1 }), 400, 'VALIDATION_FAILED');
    expect((await envelope(site)).enabled).toBe(false);
  });

  it('turns on with the password, migrates every value to its own data key in bounded calls, and values read the same', async () => {
    const site = await keySite();
    const patients = await addPatients(site, 5);
    const total = valuesOf(5);
    const before = new Map((await sealedRows(site.siteId)).map((row) => [row.id, row.sealed]));

    const enabled = await setEnvelope(site, true);
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
    expect(enabled.body.data).toEqual({ enabled: true, migration: { total, migrated: 0, remaining: total, done: false } });
    expect(await envelope(site)).toEqual(enabled.body.data);
    // Values read the same before the migration too.
    await expectValuesRead(site, patients);

    const steps = await untilDone(site, '/admin/encryption/envelope/migrate', 3);
    expect(steps.map((progress) => progress.processed)).toEqual([3, 3, total - 6]);
    expect(steps.map((progress) => progress.remaining)).toEqual([total - 3, total - 6, 0]);
    expect(await withoutDataKey(site.siteId)).toBe(0);
    const rows = await sealedRows(site.siteId);
    expect(rows.map((row) => row.id).sort()).toEqual([...before.keys()].sort());
    for (const row of rows) {
      expect(row.data_key).not.toBeNull();
      expect(row.key_id).toBe('k1');
      expect(row.sealed.equals(before.get(row.id)!)).toBe(false);
    }
    expect(await envelope(site)).toEqual({ enabled: true, migration: { total, migrated: total, remaining: 0, done: true } });
    await expectValuesRead(site, patients);
    expect(await step(site, '/admin/encryption/envelope/migrate')).toEqual({ processed: 0, remaining: 0, done: true });

    // New values get their own data keys at once.
    const later = await addPatients(site, 1, 'later');
    expect(await withoutDataKey(site.siteId)).toBe(0);
    expect((await envelope(site)).migration).toEqual({ total: total + valuesOf(1), migrated: total + valuesOf(1), remaining: 0, done: true });
    await expectValuesRead(site, later);

    // Turning it on again records nothing new; turning it off is audited too.
    expect((await setEnvelope(site, true)).status).toBe(200);
    expect(await audited(site, 'envelope_mode_changed')).toHaveLength(1);
    const off = await setEnvelope(site, false);
    expect(off.status).toBe(200);
    expect(off.body.data).toEqual({ enabled: false, migration: { total: total + valuesOf(1), migrated: 0, remaining: total + valuesOf(1), done: false } });
    expect(await audited(site, 'envelope_mode_changed')).toHaveLength(2);
    await untilDone(site, '/admin/encryption/envelope/migrate', 1000);
    expect(await withoutDataKey(site.siteId)).toBe(total + valuesOf(1));
    await expectValuesRead(site, [...patients, ...later]);
  });

  it('rewraps only the data keys of enveloped values on rotation, leaving the sealed values as they are', async () => {
    const site = await keySite();
    const patients = await addPatients(site, 3);
    expect((await setEnvelope(site, true)).status).toBe(200);
    await untilDone(site, '/admin/encryption/envelope/migrate', 100);
    const before = await sealedRows(site.siteId);
    expect((await rotate(site, 'k2')).status).toBe(200);
    await untilDone(site, '/admin/encryption/keys/rewrap', 2);
    const after = await sealedRows(site.siteId);
    expect(after).toHaveLength(before.length);
    after.forEach((row, index) => {
      expect(row.key_id).toBe('k2');
      expect(row.sealed.equals(before[index]!.sealed)).toBe(true);
      expect(row.data_key!.equals(before[index]!.data_key!)).toBe(false);
    });
    await expectValuesRead(site, patients);
  });

  it('refuses an API key with 403, even with the administrator’s password', async () => {
    const site = await keySite();
    const created = await site.admin('POST', '/api-keys', { name: 'automation' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const apiKey = created.body.data.key as string;
    // The key acts as the administrator elsewhere.
    expect((await site.as(apiKey, 'GET', '/admin/encryption/envelope')).status).toBe(200);
    expectError(await setEnvelope(site, true, site.adminPassword, apiKey), 403, 'PERMISSION_DENIED');
    expect((await envelope(site)).enabled).toBe(false);
    expect(await audited(site, 'envelope_mode_changed')).toEqual([]);
  });
});

describe('who may', () => {
  const ROUTES: [string, string, unknown][] = [
    ['GET', '/admin/encryption/keys', undefined],
    ['POST', '/admin/encryption/keys/rotate', { keyId: 'k2' }],
    ['POST', '/admin/encryption/keys/rewrap', { limit: 10 }],
    ['GET', '/admin/encryption/envelope', undefined],
    ['POST', '/admin/encryption/envelope', { enabled: true, password: 'member password 123' }],
    ['POST', '/admin/encryption/envelope/migrate', { limit: 10 }],
  ];

  it('refuses a member with 403 PERMISSION_DENIED and no credentials with 401 on every route, changing nothing', async () => {
    const site = await keySite();
    await addPatients(site, 2);
    const member = await createMember(service, site);
    for (const [method, path, body] of ROUTES) {
      expectError(await site.as(member.token, method, path, body), 403, 'PERMISSION_DENIED');
      expectError(await site.as(null, method, path, body), 401, 'UNAUTHENTICATED');
    }
    expect(await keys(site)).toEqual([
      { id: 'k1', status: 'active', algorithm: 'aes-256-gcm', provisioned: true, values: valuesOf(2) },
      { id: 'k2', status: 'provisioned', algorithm: 'aes-256-gcm', provisioned: true, values: 0 },
    ]);
    expect((await site.admin('GET', '/admin/encryption/envelope')).body.data.enabled).toBe(false);
  });

  it('refuses another site’s administrator token with 401', async () => {
    const site = await keySite();
    const other = await keySite();
    for (const [method, path, body] of ROUTES) {
      expect((await service.request(method, path, { site: site.siteId, token: other.adminToken, ...(body === undefined ? {} : { body }) })).status, path).toBe(401);
    }
  });

  it('shows each site its own keys, counts and envelope state, and never touches another site’s values', async () => {
    const first = await keySite();
    const second = await keySite();
    await addPatients(first, 4);
    const secondPatients = await addPatients(second, 2);
    expect((await rotate(first, 'k2')).status).toBe(200);
    await addPatients(first, 1, 'new');
    expect((await setEnvelope(first, true)).status).toBe(200);

    expect(await keys(second)).toEqual([
      { id: 'k1', status: 'active', algorithm: 'aes-256-gcm', provisioned: true, values: valuesOf(2) },
      { id: 'k2', status: 'provisioned', algorithm: 'aes-256-gcm', provisioned: true, values: 0 },
    ]);
    expect(await envelope(second)).toEqual({ enabled: false, migration: { total: valuesOf(2), migrated: valuesOf(2), remaining: 0, done: true } });
    expect(await keys(first)).toEqual([
      { id: 'k2', status: 'active', algorithm: 'aes-256-gcm', provisioned: true, values: valuesOf(1) },
      { id: 'k1', status: 'retired', algorithm: 'aes-256-gcm', provisioned: true, values: valuesOf(4) },
    ]);
    expect((await envelope(first)).migration).toMatchObject({ total: valuesOf(4) + valuesOf(1) });

    // The second site's rewrap and migration have nothing to do, and leave the first's values alone.
    const firstRows = await sealedRows(first.siteId);
    expect(await step(second, '/admin/encryption/keys/rewrap', 100)).toEqual({ processed: 0, remaining: 0, done: true });
    expect(await step(second, '/admin/encryption/envelope/migrate', 100)).toEqual({ processed: 0, remaining: 0, done: true });
    expect((await sealedRows(first.siteId)).map((row) => [row.key_id, row.sealed.toString('hex')])).toEqual(firstRows.map((row) => [row.key_id, row.sealed.toString('hex')]));
    // And the first site's leave the second's alone.
    const secondRows = await sealedRows(second.siteId);
    await untilDone(first, '/admin/encryption/keys/rewrap', 100);
    await untilDone(first, '/admin/encryption/envelope/migrate', 100);
    expect((await sealedRows(second.siteId)).map((row) => [row.key_id, row.data_key, row.sealed.toString('hex')])).toEqual(
      secondRows.map((row) => [row.key_id, row.data_key, row.sealed.toString('hex')]),
    );
    expect(await countOnKey(first.siteId, 'k1')).toBe(0);
    await expectValuesRead(second, secondPatients);
    expect(await audited(second, 'encryption_key_rotated')).toEqual([]);
    expect(await audited(second, 'envelope_mode_changed')).toEqual([]);
  });

});
