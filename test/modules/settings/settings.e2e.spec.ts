// /settings: the site's key/value settings (known keys with schemas and defaults, free JSON for the
// others), their validation (all or nothing), export and apply between sites, rights, isolation and
// the events they leave in the audit list.
import { describe, expect, it } from 'vitest';
import { auditActions, createMember, createRole } from '../identity/support/identity.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { auditedActions, caller, dataOf, DEFAULT_SETTINGS, DEFAULT_UPLOAD_POLICY, expectRefused, type Caller } from './support.ts';

const service = await startTestServiceForFile();

const POLICY = { maxBytes: 1_048_576, allowedMimeTypes: ['image/png', 'image/jpeg'], allowedExtensions: ['png', 'jpg'], catalogue: ['images'] };

/** Runs a refused write and expects the settings and the setting events to be as they were. */
async function expectNothingWritten(site: TestSite, admin: Caller, refusedWrite: () => Promise<unknown>): Promise<void> {
  const before = dataOf(await admin('GET', '/settings'));
  const eventsBefore = await auditedActions(service, site, 'setting.');
  await refusedWrite();
  expect(dataOf(await admin('GET', '/settings'))).toEqual(before);
  expect(await auditedActions(service, site, 'setting.')).toEqual(eventsBefore);
}

describe('reading settings', () => {
  it('answers the defaults of the known keys on a new site, and 404 for a key neither stored nor known', async () => {
    const site = await createTestSite(service);
    const admin = caller(service, site);
    expect(dataOf(await admin('GET', '/settings'))).toEqual(DEFAULT_SETTINGS);
    expect(dataOf(await admin('GET', '/settings/upload_policy'))).toEqual({ key: 'upload_policy', value: DEFAULT_UPLOAD_POLICY, isDefault: true });
    expect(dataOf(await admin('GET', '/settings/erasureDualControl'))).toEqual({ key: 'erasureDualControl', value: true, isDefault: true });
    expectRefused(await admin('GET', '/settings/never_set'), 404, 'NOT_FOUND');
    expectRefused(await admin('GET', '/settings/1bad'), 400, 'VALIDATION_FAILED', ['params', 'key']);
  });
});

describe('PUT /settings/:key', () => {
  it('stores free JSON under an unknown key and a valid value under a known key', async () => {
    const site = await createTestSite(service);
    const admin = caller(service, site);
    const free = { layout: ['a', 'b'], nested: { n: 1.5, ok: false, none: null }, text: 'Tiếng Việt ✓' };
    expect(dataOf(await admin('PUT', '/settings/studio.home-layout_v2', { value: free }))).toEqual({ key: 'studio.home-layout_v2', value: free, isDefault: false });
    expect(dataOf(await admin('PUT', '/settings/count', { value: 0 }))).toEqual({ key: 'count', value: 0, isDefault: false });
    expect(dataOf(await admin('PUT', '/settings/label', { value: '' }))).toEqual({ key: 'label', value: '', isDefault: false });
    expect(dataOf(await admin('PUT', '/settings/upload_policy', { value: POLICY }))).toEqual({ key: 'upload_policy', value: POLICY, isDefault: false });
    expect(dataOf(await admin('PUT', '/settings/erasureDualControl', { value: false }))).toEqual({ key: 'erasureDualControl', value: false, isDefault: false });
    // A stored key may be overwritten.
    expect(dataOf(await admin('PUT', '/settings/count', { value: [1, 2] }))).toEqual({ key: 'count', value: [1, 2], isDefault: false });

    expect(dataOf(await admin('GET', '/settings/studio.home-layout_v2'))).toEqual({ key: 'studio.home-layout_v2', value: free, isDefault: false });
    expect(dataOf(await admin('GET', '/settings/upload_policy'))).toEqual({ key: 'upload_policy', value: POLICY, isDefault: false });
    expect(dataOf(await admin('GET', '/settings'))).toEqual({
      ...DEFAULT_SETTINGS,
      'studio.home-layout_v2': free,
      count: [1, 2],
      label: '',
      upload_policy: POLICY,
      erasureDualControl: false,
    });
  });

  it('refuses bad keys, secret-looking keys, a missing or null value, and bad values of known keys, storing nothing', async () => {
    const site = await createTestSite(service);
    const admin = caller(service, site);
    await admin('PUT', '/settings/kept', { value: 'as it was' });
    await expectNothingWritten(site, admin, async () => {
      for (const key of ['1abc', '_abc', 'a%20b', 'ab%24c', 'caf%C3%A9']) {
        expectRefused(await admin('PUT', `/settings/${key}`, { value: 1 }), 400, 'VALIDATION_FAILED', ['params', 'key']);
      }
      // A key over 100 characters is a bad key, in the path and in a body.
      expectRefused(await admin('PUT', `/settings/${'a'.repeat(101)}`, { value: 1 }), 400, 'VALIDATION_FAILED', ['params', 'key']);
      expectRefused(await admin('PATCH', '/settings', { [`b${'a'.repeat(100)}`]: 1 }), 400, 'VALIDATION_FAILED', ['body', `b${'a'.repeat(100)}`]);
      for (const key of ['smtpPassword', 'SMTP_PASSWORD', 'clientSecret', 'githubToken', 'stripe.ApiKey', 'aws_api_key', 'Credentials', 'private_key_pem']) {
        const refused = await admin('PUT', `/settings/${key}`, { value: 'x' });
        expectRefused(refused, 400, 'VALIDATION_FAILED', ['params', 'key']);
        expect(refused.body.errors[0].message).toMatch(/secret/i);
      }
      expectRefused(await admin('PUT', '/settings/kept', {}), 400, 'VALIDATION_FAILED', ['body', 'value']);
      expectRefused(await admin('PUT', '/settings/kept', { value: null }), 400, 'VALIDATION_FAILED', ['body', 'value']);
      const policy = (change: object) => admin('PUT', '/settings/upload_policy', { value: { ...POLICY, ...change } });
      expectRefused(await policy({ maxBytes: -1 }), 400, 'VALIDATION_FAILED', ['body', 'value', 'maxBytes']);
      expectRefused(await policy({ maxBytes: 0 }), 400, 'VALIDATION_FAILED', ['body', 'value', 'maxBytes']);
      expectRefused(await policy({ maxBytes: 1.5 }), 400, 'VALIDATION_FAILED', ['body', 'value', 'maxBytes']);
      expectRefused(await policy({ maxBytes: '100' }), 400, 'VALIDATION_FAILED', ['body', 'value', 'maxBytes']);
      expectRefused(await policy({ allowedMimeTypes: ['image/png', 7] }), 400, 'VALIDATION_FAILED', ['body', 'value', 'allowedMimeTypes', 1]);
      expectRefused(await policy({ catalogue: 'images' }), 400, 'VALIDATION_FAILED', ['body', 'value', 'catalogue']);
      const { allowedExtensions: _omitted, ...withoutExtensions } = POLICY;
      expectRefused(await admin('PUT', '/settings/upload_policy', { value: withoutExtensions }), 400, 'VALIDATION_FAILED', ['body', 'value', 'allowedExtensions']);
      expectRefused(await admin('PUT', '/settings/erasureDualControl', { value: 'yes' }), 400, 'VALIDATION_FAILED', ['body', 'value']);
    });
    // Near misses of the secret words are ordinary keys.
    expect(dataOf(await admin('PUT', '/settings/keyboard.layout', { value: 'qwerty' })).isDefault).toBe(false);
    expect(dataOf(await admin('PUT', '/settings/passphrase_hint', { value: 'h' })).isDefault).toBe(false);
    expect(dataOf(await admin('PUT', `/settings/${'a'.repeat(100)}`, { value: 1 })).key).toBe('a'.repeat(100));
  });

  it('takes a value of an unknown key up to 65,536 bytes of JSON text, and refuses one byte more', async () => {
    const site = await createTestSite(service);
    const admin = caller(service, site);
    // A string's JSON text is its characters and two quotes; é is two bytes in UTF-8.
    expect(dataOf(await admin('PUT', '/settings/big', { value: 'x'.repeat(65_534) })).value).toHaveLength(65_534);
    await expectNothingWritten(site, admin, async () => {
      expectRefused(await admin('PUT', '/settings/big', { value: 'y'.repeat(65_535) }), 400, 'VALIDATION_FAILED', ['body', 'value']);
      expectRefused(await admin('PUT', '/settings/wide', { value: 'é'.repeat(32_768) }), 400, 'VALIDATION_FAILED', ['body', 'value']);
      expectRefused(await admin('PATCH', '/settings', { other: 1, wide: ['z'.repeat(65_533)] }), 400, 'VALIDATION_FAILED', ['body', 'wide']);
    });
    expect(dataOf(await admin('GET', '/settings/big')).value).toBe('x'.repeat(65_534));
    expectRefused(await admin('GET', '/settings/wide'), 404, 'NOT_FOUND');
  });
});

describe('PATCH /settings', () => {
  it('sets several keys at once, removes keys given null (a known key falls back to its default), and answers every setting', async () => {
    const site = await createTestSite(service);
    const admin = caller(service, site);
    const patched = dataOf(await admin('PATCH', '/settings', { alpha: 1, beta: { b: 'two' }, erasureDualControl: false, upload_policy: POLICY }));
    expect(patched).toEqual({ ...DEFAULT_SETTINGS, alpha: 1, beta: { b: 'two' }, erasureDualControl: false, upload_policy: POLICY });
    expect(dataOf(await admin('GET', '/settings'))).toEqual(patched);

    const removed = dataOf(await admin('PATCH', '/settings', { alpha: null, erasureDualControl: null, upload_policy: null, gamma: [true] }));
    expect(removed).toEqual({ beta: { b: 'two' }, gamma: [true], ...DEFAULT_SETTINGS });
    expect(dataOf(await admin('GET', '/settings'))).toEqual(removed);
    expectRefused(await admin('GET', '/settings/alpha'), 404, 'NOT_FOUND');
    expect(dataOf(await admin('GET', '/settings/erasureDualControl'))).toEqual({ key: 'erasureDualControl', value: true, isDefault: true });
    expect(dataOf(await admin('GET', '/settings/upload_policy'))).toEqual({ key: 'upload_policy', value: DEFAULT_UPLOAD_POLICY, isDefault: true });

    const hundred = Object.fromEntries(Array.from({ length: 100 }, (_, index) => [`k${index}`, index]));
    const many = dataOf(await admin('PATCH', '/settings', hundred));
    expect(Object.keys(many)).toHaveLength(100 + 2 + Object.keys(DEFAULT_SETTINGS).length);
    expect(many.k99).toBe(99);
  });

  it('is all or nothing: one bad key or value refuses the whole body', async () => {
    const site = await createTestSite(service);
    const admin = caller(service, site);
    await admin('PATCH', '/settings', { kept: 'as it was', erasureDualControl: false });
    await expectNothingWritten(site, admin, async () => {
      expectRefused(await admin('PATCH', '/settings', {}), 400, 'VALIDATION_FAILED');
      const tooMany = Object.fromEntries(Array.from({ length: 101 }, (_, index) => [`k${index}`, index]));
      expectRefused(await admin('PATCH', '/settings', tooMany), 400, 'VALIDATION_FAILED');
      expectRefused(await admin('PATCH', '/settings', { fine: 1, '1abc': 2 }), 400, 'VALIDATION_FAILED', ['body', '1abc']);
      expectRefused(await admin('PATCH', '/settings', { fine: 1, 'has space': 2 }), 400, 'VALIDATION_FAILED', ['body', 'has space']);
      const secret = await admin('PATCH', '/settings', { fine: 1, webhookSecret: 'shh' });
      expectRefused(secret, 400, 'VALIDATION_FAILED', ['body', 'webhookSecret']);
      expect(secret.body.errors[0].message).toMatch(/secret/i);
      expectRefused(await admin('PATCH', '/settings', { kept: null, upload_policy: { ...POLICY, maxBytes: -1 } }), 400, 'VALIDATION_FAILED', ['body', 'upload_policy', 'maxBytes']);
      expectRefused(await admin('PATCH', '/settings', { fine: 1, erasureDualControl: 'no' }), 400, 'VALIDATION_FAILED', ['body', 'erasureDualControl']);
      expectRefused(await admin('PATCH', '/settings', ['not', 'an', 'object']), 400, 'VALIDATION_FAILED');
    });
    expect(dataOf(await admin('GET', '/settings'))).toEqual({ ...DEFAULT_SETTINGS, kept: 'as it was', erasureDualControl: false, upload_policy: DEFAULT_UPLOAD_POLICY });
  });
});

describe('export and apply', () => {
  it('exports the stored keys sorted; a bundle applied to another site gives it the same settings, then nothing left to do', async () => {
    const source = await createTestSite(service);
    const target = await createTestSite(service);
    const fromSource = caller(service, source);
    const toTarget = caller(service, target);
    await fromSource('PATCH', '/settings', { zeta: { z: [1, 2] }, alpha: 'a', upload_policy: POLICY, shared: 'same', changed: 'new' });

    const exported = dataOf(await fromSource('POST', '/settings/export'));
    expect(exported.version).toBe('svc.settings@v1');
    expect(new Date(exported.exportedAt).toISOString()).toBe(exported.exportedAt);
    // Stored keys only (erasureDualControl is at its default), sorted by key.
    expect(exported.settings).toEqual([
      { key: 'alpha', value: 'a' },
      { key: 'changed', value: 'new' },
      { key: 'shared', value: 'same' },
      { key: 'upload_policy', value: POLICY },
      { key: 'zeta', value: { z: [1, 2] } },
    ]);

    await toTarget('PATCH', '/settings', { shared: 'same', changed: 'old', targetOnly: 42, erasureDualControl: false });
    const applied = dataOf(await toTarget('POST', '/settings/apply', exported));
    expect(applied).toEqual({ applied: { created: 3, updated: 1, unchanged: 1 } });

    const sourceSettings = dataOf(await fromSource('GET', '/settings'));
    const targetSettings = dataOf(await toTarget('GET', '/settings'));
    expect(targetSettings).toEqual({ ...sourceSettings, targetOnly: 42, erasureDualControl: false });
    // Applied again (exportedAt is optional): nothing changes.
    const { exportedAt: _exportedAt, ...withoutDate } = exported;
    expect(dataOf(await toTarget('POST', '/settings/apply', withoutDate))).toEqual({ applied: { created: 0, updated: 0, unchanged: 5 } });
    expect(dataOf(await toTarget('GET', '/settings'))).toEqual(targetSettings);
    // The target's own export holds the source's keys and its own.
    const reExported = dataOf(await toTarget('POST', '/settings/export'));
    expect(reExported.settings.map((entry: { key: string }) => entry.key)).toEqual(['alpha', 'changed', 'erasureDualControl', 'shared', 'targetOnly', 'upload_policy', 'zeta']);
  });

  it('refuses a wrong version or a bad entry and applies nothing', async () => {
    const site = await createTestSite(service);
    const admin = caller(service, site);
    await admin('PUT', '/settings/kept', { value: 'as it was' });
    const good = { key: 'fresh', value: 1 };
    await expectNothingWritten(site, admin, async () => {
      expectRefused(await admin('POST', '/settings/apply', { version: 'svc.settings@v2', settings: [good] }), 400, 'VALIDATION_FAILED', ['body', 'version']);
      expectRefused(await admin('POST', '/settings/apply', { settings: [good] }), 400, 'VALIDATION_FAILED', ['body', 'version']);
      expectRefused(
        await admin('POST', '/settings/apply', { version: 'svc.settings@v1', settings: [good, { key: 'upload_policy', value: { ...POLICY, maxBytes: 0 } }] }),
        400,
        'VALIDATION_FAILED',
        ['body', 'settings', 1, 'value', 'maxBytes'],
      );
      expectRefused(
        await admin('POST', '/settings/apply', { version: 'svc.settings@v1', settings: [good, { key: 'kept', value: 'changed' }, { key: 'erasureDualControl', value: 1 }] }),
        400,
        'VALIDATION_FAILED',
        ['body', 'settings', 2, 'value'],
      );
      const secret = await admin('POST', '/settings/apply', { version: 'svc.settings@v1', settings: [good, { key: 'dbPassword', value: 'x' }] });
      expectRefused(secret, 400, 'VALIDATION_FAILED');
      expect(secret.body.errors[0].path.slice(0, 3)).toEqual(['body', 'settings', 1]);
      const badKey = await admin('POST', '/settings/apply', { version: 'svc.settings@v1', settings: [{ key: '9lives', value: 1 }, good] });
      expectRefused(badKey, 400, 'VALIDATION_FAILED');
      expect(badKey.body.errors[0].path.slice(0, 3)).toEqual(['body', 'settings', 0]);
      const big = await admin('POST', '/settings/apply', { version: 'svc.settings@v1', settings: [good, { key: 'big', value: 'x'.repeat(65_535) }] });
      expectRefused(big, 400, 'VALIDATION_FAILED');
      expect(big.body.errors[0].path.slice(0, 3)).toEqual(['body', 'settings', 1]);
    });
    expect(dataOf(await admin('GET', '/settings'))).toEqual({ kept: 'as it was', ...DEFAULT_SETTINGS });
  });
});

describe('rights and isolation', () => {
  it('lets members and API keys read, and only the site administrator write', async () => {
    const site = await createTestSite(service);
    const other = await createTestSite(service);
    const admin = caller(service, site);
    await admin('PUT', '/settings/shown', { value: 'to members' });
    const member = await createMember(service, site);
    const roleId = await createRole(service, site.siteId);
    const apiKey = dataOf(await admin('POST', '/api-keys', { name: 'reader', roleId }), 201).key as string;
    const bundle = { version: 'svc.settings@v1', settings: [{ key: 'shown', value: 'overwritten' }] };

    for (const token of [member.token, apiKey]) {
      const reader = caller(service, site, token);
      expect(dataOf(await reader('GET', '/settings'))).toEqual({ shown: 'to members', ...DEFAULT_SETTINGS });
      expect(dataOf(await reader('GET', '/settings/shown'))).toEqual({ key: 'shown', value: 'to members', isDefault: false });
      expect(dataOf(await reader('GET', '/settings/erasureDualControl')).isDefault).toBe(true);
    }
    await expectNothingWritten(site, admin, async () => {
      for (const token of [member.token, apiKey]) {
        const writer = caller(service, site, token);
        expectRefused(await writer('PUT', '/settings/shown', { value: 'x' }), 403, 'PERMISSION_DENIED');
        expectRefused(await writer('PATCH', '/settings', { shown: null }), 403, 'PERMISSION_DENIED');
        expectRefused(await writer('POST', '/settings/export'), 403, 'PERMISSION_DENIED');
        expectRefused(await writer('POST', '/settings/apply', bundle), 403, 'PERMISSION_DENIED');
      }
      const anonymous = caller(service, site, null);
      expectRefused(await anonymous('GET', '/settings'), 401, 'UNAUTHENTICATED');
      expectRefused(await anonymous('GET', '/settings/shown'), 401, 'UNAUTHENTICATED');
      expectRefused(await anonymous('PUT', '/settings/shown', { value: 'x' }), 401, 'UNAUTHENTICATED');
      expectRefused(await anonymous('PATCH', '/settings', { shown: 'x' }), 401, 'UNAUTHENTICATED');
      expectRefused(await anonymous('POST', '/settings/export'), 401, 'UNAUTHENTICATED');
      expectRefused(await anonymous('POST', '/settings/apply', bundle), 401, 'UNAUTHENTICATED');
      // Another site's administrator token is refused here.
      const foreign = caller(service, site, other.adminToken);
      expect((await foreign('GET', '/settings')).status).toBe(401);
      expect((await foreign('PUT', '/settings/shown', { value: 'x' })).status).toBe(401);
      expect((await foreign('PATCH', '/settings', { shown: 'x' })).status).toBe(401);
      expect((await foreign('POST', '/settings/apply', bundle)).status).toBe(401);
    });
  });

  it("never shows or changes another site's settings", async () => {
    const site = await createTestSite(service);
    const other = await createTestSite(service);
    const mine = caller(service, site);
    const theirs = caller(service, other);
    await mine('PATCH', '/settings', { private_note: 'mine', erasureDualControl: false, upload_policy: POLICY });

    expect(dataOf(await theirs('GET', '/settings'))).toEqual(DEFAULT_SETTINGS);
    expectRefused(await theirs('GET', '/settings/private_note'), 404, 'NOT_FOUND');
    expect(dataOf(await theirs('GET', '/settings/upload_policy')).isDefault).toBe(true);
    expect(dataOf(await theirs('POST', '/settings/export')).settings).toEqual([]);

    await theirs('PUT', '/settings/private_note', { value: 'theirs' });
    await theirs('PATCH', '/settings', { erasureDualControl: true });
    await theirs('POST', '/settings/apply', { version: 'svc.settings@v1', settings: [{ key: 'applied_there', value: 1 }] });
    expect(dataOf(await mine('GET', '/settings'))).toEqual({ ...DEFAULT_SETTINGS, private_note: 'mine', erasureDualControl: false, upload_policy: POLICY });
    expect(dataOf(await theirs('GET', '/settings'))).toEqual({ ...DEFAULT_SETTINGS, private_note: 'theirs', applied_there: 1, upload_policy: DEFAULT_UPLOAD_POLICY, erasureDualControl: true });
    expect(dataOf(await theirs('GET', '/settings/erasureDualControl')).isDefault).toBe(false);
  });
});

describe('setting events', () => {
  it('records one event per key changed, by the administrator, in the audit list', async () => {
    const site = await createTestSite(service);
    const admin = caller(service, site);
    await admin('PUT', '/settings/one', { value: 1 });
    await admin('PATCH', '/settings', { two: 2, three: 3 });
    await admin('PATCH', '/settings', { one: null });
    await admin('POST', '/settings/apply', { version: 'svc.settings@v1', settings: [{ key: 'four', value: 4 }] });
    expectRefused(await admin('PATCH', '/settings', { five: 5, apiToken: 'x' }), 400, 'VALIDATION_FAILED', ['body', 'apiToken']);

    expect(await auditedActions(service, site, 'setting.')).toEqual(['setting.set', 'setting.removed', 'setting.set', 'setting.set', 'setting.set']);
    const entries = await auditActions(service, site, '&filter[action][_starts_with]=setting.');
    expect(entries).toHaveLength(5);
    for (const entry of entries) expect(entry.actor).toMatchObject({ kind: 'user', id: site.adminUserId });
  });
});
