// The site administrator's key operations over real HTTP and PostgreSQL, on a deployment with two
// keys (SVC_ENCRYPTION_KEYS): the key list, rotation (422 for a key without bytes), rewrap in bounded
// batches that resume on another instance, the envelope mode (password re-verified) and its
// migration; values read the same throughout; administrators only, and each site sees its own.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { startTestService, startTestServiceForFile } from '../../support/testService.ts';
import { withHelpers } from '../access/support.ts';
import { keyAdminHelpers } from './keyAdminSupport.ts';

const KEYS = `k1:${randomBytes(32).toString('base64')},k2:${randomBytes(32).toString('base64')}`;
const service = await startTestServiceForFile({ SVC_ENCRYPTION_KEYS: KEYS });
const owner = await connectOwnerClientForFile();
const { keySite, addPatients, valuesOf, keys, keyOf, rotate, step, untilDone, sealedRows, countOnKey, expectValuesRead, audited, expectError } = keyAdminHelpers(service, owner);

describe('the key list', () => {
  it('lists the configured keys, the first active, with the site’s value counts', async () => {
    const site = await keySite();
    const response = await site.admin('GET', '/admin/encryption/keys');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([
      { id: 'k1', status: 'active', algorithm: 'aes-256-gcm', provisioned: true, values: 0 },
      { id: 'k2', status: 'provisioned', algorithm: 'aes-256-gcm', provisioned: true, values: 0 },
    ]);
    await addPatients(site, 4);
    expect(await keys(site)).toEqual([
      { id: 'k1', status: 'active', algorithm: 'aes-256-gcm', provisioned: true, values: valuesOf(4) },
      { id: 'k2', status: 'provisioned', algorithm: 'aes-256-gcm', provisioned: true, values: 0 },
    ]);
    expect(await countOnKey(site.siteId, 'k1')).toBe(valuesOf(4));
  });
});

describe('rotation', () => {
  it('promotes a provisioned key: new values are sealed with it, the old key is retired and its values still read', async () => {
    const site = await keySite();
    const before = await addPatients(site, 3, 'before');
    const rotated = await rotate(site, 'k2');
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body.data).toEqual({ activeKeyId: 'k2', previousKeyId: 'k1' });

    const after = await addPatients(site, 2, 'after');
    expect(await keys(site)).toEqual([
      { id: 'k2', status: 'active', algorithm: 'aes-256-gcm', provisioned: true, values: valuesOf(2) },
      { id: 'k1', status: 'retired', algorithm: 'aes-256-gcm', provisioned: true, values: valuesOf(3) },
    ]);
    await expectValuesRead(site, [...before, ...after]);

    // Already active: nothing changes, and nothing is recorded.
    const again = await rotate(site, 'k2');
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ activeKeyId: 'k2', previousKeyId: null });
    const entries = await audited(site, 'encryption_key_rotated');
    expect(entries).toHaveLength(1);
    expect(entries[0]!.actor).toMatchObject({ kind: 'user', id: site.adminUserId });

    // And back: k1 active again, k2 retired.
    expect((await rotate(site, 'k1')).body.data).toEqual({ activeKeyId: 'k1', previousKeyId: 'k2' });
    const list = await keys(site);
    expect(keyOf(list, 'k1')!.status).toBe('active');
    expect(keyOf(list, 'k2')!.status).toBe('retired');
    expect(await audited(site, 'encryption_key_rotated')).toHaveLength(2);
  });

  it('names the settings stream as the target of its audit entry, as every other entry names its stream', async () => {
    const site = await keySite();
    expect((await rotate(site, 'k2')).status).toBe(200);
    const [entry] = await audited(site, 'encryption_key_rotated');
    // Audit targets are the stream id without the `<site>/` prefix (projections/auditProjection.ts).
    expect(['encryption', `encryption/${site.siteId}`]).toContain(entry!.target);
  });

  it('refuses a key without bytes with 422 KEY_NOT_PROVISIONED, changing nothing', async () => {
    const site = await keySite();
    await addPatients(site, 2);
    const before = await keys(site);
    const refused = await rotate(site, 'k3');
    expectError(refused, 422, 'KEY_NOT_PROVISIONED');
    expect(refused.body.errors[0].path).toEqual(['body', 'keyId']);
    expect(await keys(site)).toEqual(before);
    expect(await audited(site, 'encryption_key_rotated')).toEqual([]);
    const created = await addPatients(site, 1, 'later');
    expect(await countOnKey(site.siteId, 'k1')).toBe(valuesOf(2) + valuesOf(1));
    await expectValuesRead(site, created);
  });

  it('refuses a malformed body with 400', async () => {
    const site = await keySite();
    for (const body of [{}, { keyId: '' }, { keyId: 7 }, { keyId: 'k2', extra: true }, { keyId: 'k'.repeat(65) }]) {
      expectError(await site.admin('POST', '/admin/encryption/keys/rotate', body), 400, 'VALIDATION_FAILED');
    }
    expect(keyOf(await keys(site), 'k1')!.status).toBe('active');
  });
});

describe('rewrap', () => {
  it('moves the values of retired keys onto the active key in bounded calls until done, and is idempotent', async () => {
    const site = await keySite();
    const patients = await addPatients(site, 6);
    const total = valuesOf(6);
    const before = new Map((await sealedRows(site.siteId)).map((row) => [row.id, row.sealed]));
    expect((await rotate(site, 'k2')).status).toBe(200);

    const steps = await untilDone(site, '/admin/encryption/keys/rewrap', 4);
    expect(steps.map((progress) => progress.processed)).toEqual([4, 4, 1]);
    expect(steps.map((progress) => progress.remaining)).toEqual([total - 4, total - 8, 0]);
    expect(steps.map((progress) => progress.done)).toEqual([false, false, true]);
    expect(await countOnKey(site.siteId, 'k1')).toBe(0);
    expect(await countOnKey(site.siteId, 'k2')).toBe(total);

    // Same rows (the references in the log and read models still point at them), new bytes.
    const after = await sealedRows(site.siteId);
    expect(after.map((row) => row.id).sort()).toEqual([...before.keys()].sort());
    for (const row of after) {
      expect(row.key_id).toBe('k2');
      expect(row.data_key).toBeNull();
      expect(row.sealed.equals(before.get(row.id)!)).toBe(false);
    }
    await expectValuesRead(site, patients);
    expect(await keys(site)).toEqual([
      { id: 'k2', status: 'active', algorithm: 'aes-256-gcm', provisioned: true, values: total },
      { id: 'k1', status: 'retired', algorithm: 'aes-256-gcm', provisioned: true, values: 0 },
    ]);

    // Done is done: again with and without a body.
    expect(await step(site, '/admin/encryption/keys/rewrap', 4)).toEqual({ processed: 0, remaining: 0, done: true });
    expect(await step(site, '/admin/encryption/keys/rewrap')).toEqual({ processed: 0, remaining: 0, done: true });
    const untouched = await sealedRows(site.siteId);
    expect(untouched.map((row) => row.sealed.toString('hex'))).toEqual(after.map((row) => row.sealed.toString('hex')));
  });

  it('takes 1000 values per call by default', async () => {
    const site = await keySite();
    await addPatients(site, 3);
    expect((await rotate(site, 'k2')).status).toBe(200);
    expect(await step(site, '/admin/encryption/keys/rewrap')).toEqual({ processed: valuesOf(3), remaining: 0, done: true });
    expect(await countOnKey(site.siteId, 'k1')).toBe(0);
  });

  it('has nothing to do on a site that never rotated', async () => {
    const site = await keySite();
    await addPatients(site, 2);
    expect(await step(site, '/admin/encryption/keys/rewrap', 10)).toEqual({ processed: 0, remaining: 0, done: true });
    expect(await countOnKey(site.siteId, 'k1')).toBe(valuesOf(2));
  });

  it('refuses a limit outside 1..10000 or an unknown key with 400, doing nothing', async () => {
    const site = await keySite();
    await addPatients(site, 2);
    expect((await rotate(site, 'k2')).status).toBe(200);
    for (const body of [{ limit: 0 }, { limit: 10_001 }, { limit: 2.5 }, { limit: '3' }, { limit: 3, extra: true }, { batch: 3 }]) {
      expectError(await site.admin('POST', '/admin/encryption/keys/rewrap', body), 400, 'VALIDATION_FAILED');
      expectError(await site.admin('POST', '/admin/encryption/envelope/migrate', body), 400, 'VALIDATION_FAILED');
    }
    expect(await countOnKey(site.siteId, 'k1')).toBe(valuesOf(2));
    expect(await step(site, '/admin/encryption/keys/rewrap', 10_000)).toEqual({ processed: valuesOf(2), remaining: 0, done: true });
  });

  it('fails closed on a value that will not open: 500 DECRYPTION_FAILED, audited, and the batch left as it was', async () => {
    const site = await keySite();
    const patients = await addPatients(site, 2);
    expect((await rotate(site, 'k2')).status).toBe(200);
    await owner.query(
      "UPDATE sensitive_values SET sealed = set_byte(sealed, 20, get_byte(sealed, 20) # 1) WHERE site_id = $1 AND item_id = $2 AND field = 'email'",
      [site.siteId, patients[1]!.id],
    );
    const failed = await site.admin('POST', '/admin/encryption/keys/rewrap', { limit: 100 });
    expectError(failed, 500, 'DECRYPTION_FAILED');
    expect(await countOnKey(site.siteId, 'k1')).toBe(valuesOf(2));
    expect(await audited(site, 'decryption_failed')).toHaveLength(1);
    expect((await site.admin('GET', `/items/patients/${patients[0]!.id}`)).body.data.email).toBe(patients[0]!.email);
  });

  it('resumes on a new instance over the same database where the last one stopped', async () => {
    const site = await keySite();
    const patients = await addPatients(site, 8);
    const total = valuesOf(8);
    expect((await rotate(site, 'k2')).status).toBe(200);
    expect(await step(site, '/admin/encryption/keys/rewrap', 5)).toEqual({ processed: 5, remaining: total - 5, done: false });

    const restarted = await startTestService({ SVC_ENCRYPTION_KEYS: KEYS });
    try {
      const there = withHelpers(restarted, site);
      expect(await countOnKey(site.siteId, 'k1')).toBe(total - 5);
      expect(keyOf(await keys(there), 'k2')).toMatchObject({ status: 'active', values: 5 });
      const steps = await untilDone(there, '/admin/encryption/keys/rewrap', 5);
      expect(steps.map((progress) => progress.processed)).toEqual([5, total - 10]);
      expect(steps.at(-1)).toEqual({ processed: total - 10, remaining: 0, done: true });
      expect(await countOnKey(site.siteId, 'k1')).toBe(0);
      await expectValuesRead(there, patients);
    } finally {
      await restarted.close();
    }
    await expectValuesRead(site, patients);
    expect(await step(site, '/admin/encryption/keys/rewrap', 5)).toEqual({ processed: 0, remaining: 0, done: true });
  });

  it('answers 422 KEY_NOT_PROVISIONED on an instance without the retired key’s bytes, and the values do not open there', async () => {
    const site = await keySite();
    const patients = await addPatients(site, 2);
    expect((await rotate(site, 'k2')).status).toBe(200);
    const onlyK2 = KEYS.split(',').find((entry) => entry.startsWith('k2:'))!;
    const partial = await startTestService({ SVC_ENCRYPTION_KEYS: onlyK2 });
    try {
      const there = withHelpers(partial, site);
      expect(keyOf(await keys(there), 'k1')).toEqual({ id: 'k1', status: 'retired', algorithm: 'aes-256-gcm', provisioned: false, values: valuesOf(2) });
      const refused = await there.admin('POST', '/admin/encryption/keys/rewrap', { limit: 10 });
      expectError(refused, 422, 'KEY_NOT_PROVISIONED');
      expect(refused.body.errors[0].extensions).toMatchObject({ keyId: 'k1' });
      expectError(await there.admin('GET', `/items/patients/${patients[0]!.id}`), 500, 'DECRYPTION_FAILED');
    } finally {
      await partial.close();
    }
    expect(await countOnKey(site.siteId, 'k1')).toBe(valuesOf(2));
    expect(await step(site, '/admin/encryption/keys/rewrap', 10)).toMatchObject({ remaining: 0, done: true });
    await expectValuesRead(site, patients);
  });
});
