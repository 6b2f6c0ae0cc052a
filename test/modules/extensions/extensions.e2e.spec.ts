// Extensions end to end: real HTTP (multipart uploads) and PostgreSQL. Bundles are signed with Ed25519
// over their exact bytes by a key of SVC_EXTENSION_TRUSTED_KEYS; `@svc/` is the official namespace.
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { bundleBytes, communityKey, memberToken, officialKey, signatureOf, strangerKey, TRUSTED_KEYS, upload, uploadForm } from './support.ts';

const service = await startTestServiceForFile({ SVC_EXTENSION_TRUSTED_KEYS: TRUSTED_KEYS });
const owner = openOwnerDatabaseForFile();

const call = (site: TestSite, method: string, path: string, body?: unknown, token = site.adminToken) => service.request(method, path, { site: site.siteId, token, body });
const eventCount = async (site: TestSite) => {
  const [row] = await owner.query<{ count: number }>(sql`SELECT count(*)::int AS count FROM events WHERE site_id = ${site.siteId} AND type LIKE 'extension.%'`);
  return row!.count;
};

describe('uploading an extension', () => {
  it('installs a signed bundle disabled with nothing granted, and lists it', async () => {
    const site = await createTestSite(service, 'ext');
    const bytes = bundleBytes({ ui: { panels: [{ id: 'stats', title: 'Word stats', location: 'dashboard' }] } });
    const response = await uploadForm(service, site, { bytes, signature: signatureOf(bytes, communityKey), keyId: communityKey.keyId });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body.data).toMatchObject({
      name: 'word-count',
      version: '1.0.0',
      description: 'Counts words',
      status: 'disabled',
      entry: 'run',
      official: false,
      signerKeyId: 'community-1',
      capabilities: { requested: ['log', 'items:read:articles'], granted: [] },
      ui: { panels: 1, locations: ['dashboard'] },
    });
    expect(response.body.data.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(response.body.data).not.toHaveProperty('code');
    const list = await call(site, 'GET', '/extensions');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ data: [{ id: response.body.data.id, name: 'word-count' }], meta: { total: 1, page: 1, pageSize: 25 } });
    expect(list.body.data[0]).toEqual(response.body.data);
    // The log keeps the signed bundle byte for byte: its signature verifies from the log alone.
    const [event] = await owner.query<{ data: { bundle: string; signature: string } }>(sql`SELECT data FROM events WHERE site_id = ${site.siteId} AND type = 'extension.installed'`);
    expect(Buffer.from(event!.data.bundle, 'utf8').equals(bytes)).toBe(true);
  });

  it('refuses an unsigned bundle, a bad signature and an untrusted signer with 400 and the reason, writing nothing', async () => {
    const site = await createTestSite(service, 'ext');
    const bytes = bundleBytes();
    const tampered = Buffer.from(bytes.toString('utf8').replace('Counts words', 'Counts wordz'), 'utf8');
    const cases: [Parameters<typeof uploadForm>[2], string, string][] = [
      [{ bytes }, 'unsigned', 'signature'],
      [{ bytes, signature: signatureOf(bytes, communityKey) }, 'unsigned', 'keyId'],
      [{ bytes, signature: signatureOf(bytes, communityKey), keyId: 'nobody' }, 'untrusted_signer', 'keyId'],
      [{ bytes, signature: signatureOf(bytes, strangerKey), keyId: strangerKey.keyId }, 'untrusted_signer', 'keyId'],
      // Signed by a stranger, claiming a trusted key id: the trusted key does not verify it.
      [{ bytes, signature: signatureOf(bytes, strangerKey), keyId: communityKey.keyId }, 'bad_signature', 'signature'],
      // The exact bytes are signed: one changed byte fails.
      [{ bytes: tampered, signature: signatureOf(bytes, communityKey), keyId: communityKey.keyId }, 'bad_signature', 'signature'],
      [{ bytes, signature: 'not base64!', keyId: communityKey.keyId }, 'bad_signature', 'signature'],
      [{ bytes, signature: Buffer.alloc(64).toString('base64'), keyId: communityKey.keyId }, 'bad_signature', 'signature'],
    ];
    for (const [form, reason, field] of cases) {
      const response = await uploadForm(service, site, form);
      expect(response.status, `${reason} ${JSON.stringify(response.body)}`).toBe(400);
      expect(response.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', field], extensions: { reason } });
    }
    expect(await eventCount(site)).toBe(0);
  });

  it('keeps the official @svc/ namespace for bundles signed by an official key', async () => {
    const site = await createTestSite(service, 'ext');
    const bytes = bundleBytes({ name: '@svc/seo' });
    const community = await uploadForm(service, site, { bytes, signature: signatureOf(bytes, communityKey), keyId: communityKey.keyId });
    expect(community.status).toBe(400);
    expect(community.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'bundle', 'manifest', 'name'], extensions: { reason: 'reserved_namespace' } });
    expect(community.body.errors[0].message).toContain('reserved official namespace');
    const official = await uploadForm(service, site, { bytes, signature: signatureOf(bytes, officialKey), keyId: officialKey.keyId });
    expect(official.status, JSON.stringify(official.body)).toBe(201);
    expect(official.body.data).toMatchObject({ name: '@svc/seo', official: true, signerKeyId: 'svc-official' });
    // An official key may sign a community name too; another scope is anyone's.
    expect((await upload(service, site, { name: '@acme/seo' })).official).toBe(false);
    expect((await upload(service, site, { name: 'helper' }, officialKey)).official).toBe(true);
  });

  it('refuses a malformed bundle at the path of the problem', async () => {
    const site = await createTestSite(service, 'ext');
    const signed = (bytes: Buffer) => uploadForm(service, site, { bytes, signature: signatureOf(bytes, communityKey), keyId: communityKey.keyId });
    const json = (value: unknown) => Buffer.from(JSON.stringify(value));
    const manifest = { name: 'ok', version: '1.0.0', capabilities: [], entry: 'run' };
    const cases: [Buffer, (string | number)[]][] = [
      [Buffer.from('{ not json'), ['body', 'bundle']],
      [Buffer.from([0x7b, 0xff, 0x7d]), ['body', 'bundle']],
      [json({ manifest }), ['body', 'bundle', 'code']],
      [json({ manifest: { ...manifest, name: 'Bad Name' }, code: 'x' }), ['body', 'bundle', 'manifest', 'name']],
      [json({ manifest: { ...manifest, version: '1.0' }, code: 'x' }), ['body', 'bundle', 'manifest', 'version']],
      [json({ manifest: { ...manifest, capabilities: ['log', 'fs:write'] }, code: 'x' }), ['body', 'bundle', 'manifest', 'capabilities', 1]],
      [json({ manifest: { ...manifest, capabilities: ['log', 'log'] }, code: 'x' }), ['body', 'bundle', 'manifest', 'capabilities', 1]],
      [json({ manifest: { ...manifest, entry: 'not an identifier' }, code: 'x' }), ['body', 'bundle', 'manifest', 'entry']],
      [json({ manifest: { ...manifest, ui: { panels: [{ id: 'p', title: 'P', location: 'kitchen' }] } }, code: 'x' }), ['body', 'bundle', 'manifest', 'ui', 'panels', 0, 'location']],
      [json({ manifest: { ...manifest, extra: true }, code: 'x' }), ['body', 'bundle', 'manifest']],
    ];
    for (const [bytes, path] of cases) {
      const response = await signed(bytes);
      expect(response.status, `${JSON.stringify(path)} ${JSON.stringify(response.body)}`).toBe(400);
      expect(response.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path });
    }
    // Over 1 MiB: 413, before anything is stored.
    const huge = bundleBytes({ code: `// ${'x'.repeat(1024 * 1024)}` });
    const tooLarge = await signed(huge);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.errors[0]).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', path: ['body', 'bundle'] });
    // Not a form at all.
    const notForm = await call(site, 'POST', '/extensions/upload', { bundle: '{}' });
    expect(notForm.status).toBe(415);
    expect(await eventCount(site)).toBe(0);
  });

  it('upgrades a name to a higher version, keeping what is still asked for, and refuses the same or a lower one with 409', async () => {
    const site = await createTestSite(service, 'ext');
    const first = await upload(service, site, { version: '1.2.0', capabilities: ['log', 'items:read:articles'] });
    await call(site, 'POST', `/extensions/${first.id}/enable`);
    await call(site, 'POST', `/extensions/${first.id}/capabilities`, { capabilities: ['log', 'items:read:articles'] });
    for (const version of ['1.2.0', '1.1.9', '1.2.0-beta.1']) {
      const bytes = bundleBytes({ version });
      const refused = await uploadForm(service, site, { bytes, signature: signatureOf(bytes, communityKey), keyId: communityKey.keyId });
      expect(refused.status, version).toBe(409);
      expect(refused.body.errors[0]).toMatchObject({ code: 'CONFLICT', path: ['body', 'bundle', 'manifest', 'version'], extensions: { installedVersion: '1.2.0' } });
    }
    const bytes = bundleBytes({ version: '1.10.0', capabilities: ['items:read:articles', 'items:read:notes'] });
    const upgraded = await uploadForm(service, site, { bytes, signature: signatureOf(bytes, communityKey), keyId: communityKey.keyId });
    expect(upgraded.status, JSON.stringify(upgraded.body)).toBe(200);
    expect(upgraded.body.data).toMatchObject({
      id: first.id,
      version: '1.10.0',
      status: 'enabled',
      capabilities: { requested: ['items:read:articles', 'items:read:notes'], granted: ['items:read:articles'] },
      createdAt: first.createdAt,
    });
    expect((await call(site, 'GET', '/extensions')).body.meta.total).toBe(1);
    const [types] = await owner.query<{ types: string[] }>(sql`SELECT array_agg(type ORDER BY position) AS types FROM events WHERE site_id = ${site.siteId} AND type LIKE 'extension.%'`);
    expect(types!.types).toEqual(['extension.installed', 'extension.enabled', 'extension.capabilities_granted', 'extension.upgraded']);
  });
});

describe('enabling, disabling and granting', () => {
  it('enables and disables (a repeat changes nothing), and shows enabled panels in the UI manifest', async () => {
    const site = await createTestSite(service, 'ext');
    const panels = [{ id: 'stats', title: 'Stats', location: 'item.sidebar' }];
    const extension = await upload(service, site, { ui: { panels } });
    await upload(service, site, { name: 'no-ui' });
    expect((await call(site, 'GET', '/extensions/ui/manifest')).body).toEqual({ data: { extensions: [] } });
    const enabled = await call(site, 'POST', `/extensions/${extension.id}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.body.data.status).toBe('enabled');
    expect((await call(site, 'POST', `/extensions/${extension.id}/enable`)).body.data.status).toBe('enabled');
    expect((await call(site, 'GET', '/extensions/ui/manifest')).body.data).toEqual({ extensions: [{ id: extension.id, name: 'word-count', version: '1.0.0', panels }] });
    const disabled = await call(site, 'POST', `/extensions/${extension.id}/disable`);
    expect(disabled.body.data.status).toBe('disabled');
    expect((await call(site, 'POST', `/extensions/${extension.id}/disable`)).status).toBe(200);
    expect((await call(site, 'GET', '/extensions/ui/manifest')).body.data.extensions).toEqual([]);
    expect(await eventCount(site)).toBe(4);
  });

  it('grants a subset of what the bundle asks for, and refuses more with 400 at the path', async () => {
    const site = await createTestSite(service, 'ext');
    const { id } = await upload(service, site, { capabilities: ['log', 'items:read:articles'] });
    const granted = await call(site, 'POST', `/extensions/${id}/capabilities`, { capabilities: ['items:read:articles', 'items:read:articles'] });
    expect(granted.status).toBe(200);
    expect(granted.body.data.capabilities).toEqual({ requested: ['log', 'items:read:articles'], granted: ['items:read:articles'] });
    const more = await call(site, 'POST', `/extensions/${id}/capabilities`, { capabilities: ['log', 'items:read:users'] });
    expect(more.status).toBe(400);
    expect(more.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'capabilities', 1] });
    expect((await call(site, 'POST', `/extensions/${id}/capabilities`, { capabilities: 'log' })).status).toBe(400);
    const revoked = await call(site, 'POST', `/extensions/${id}/capabilities`, { capabilities: [] });
    expect(revoked.body.data.capabilities.granted).toEqual([]);
  });
});

describe('who may touch extensions', () => {
  it('needs a site administrator for everything but the UI manifest, which any signed-in caller reads', async () => {
    const site = await createTestSite(service, 'ext');
    const { id } = await upload(service, site, { ui: { panels: [{ id: 'p', title: 'P', location: 'dashboard' }] } });
    await call(site, 'POST', `/extensions/${id}/enable`);
    const member = await memberToken(service, site);
    for (const [method, path, body] of [
      ['GET', '/extensions', undefined],
      ['POST', `/extensions/${id}/enable`, undefined],
      ['POST', `/extensions/${id}/disable`, undefined],
      ['POST', `/extensions/${id}/capabilities`, { capabilities: [] }],
      ['POST', `/extensions/${id}/run`, { input: 1 }],
    ] as const) {
      expect((await call(site, method, path, body, member)).status, `${method} ${path}`).toBe(403);
      expect((await call(site, method, path, body, '')).status, `${method} ${path} anonymous`).toBe(401);
    }
    const bytes = bundleBytes({ name: 'sneaky' });
    expect((await uploadForm(service, site, { bytes, signature: signatureOf(bytes, communityKey), keyId: communityKey.keyId }, member)).status).toBe(403);
    const manifest = await call(site, 'GET', '/extensions/ui/manifest', undefined, member);
    expect(manifest.status).toBe(200);
    expect(manifest.body.data.extensions.map((entry: { id: string }) => entry.id)).toEqual([id]);
    expect((await call(site, 'GET', '/extensions/ui/manifest', undefined, '')).status).toBe(401);
    expect(await eventCount(site)).toBe(2);
  });

  it('answers 404 for an unknown id and for another site’s extension on every route, and never lists them', async () => {
    const site = await createTestSite(service, 'ext');
    const other = await createTestSite(service, 'ext');
    const { id } = await upload(service, site, { ui: { panels: [{ id: 'p', title: 'P', location: 'dashboard' }] } });
    await call(site, 'POST', `/extensions/${id}/enable`);
    const unknown = '0195f0d2-0000-7000-8000-000000000000';
    for (const target of [unknown, 'not-a-uuid']) {
      for (const [method, path, body] of [
        ['POST', `/extensions/${target}/enable`, undefined],
        ['POST', `/extensions/${target}/disable`, undefined],
        ['POST', `/extensions/${target}/capabilities`, { capabilities: [] }],
        ['POST', `/extensions/${target}/run`, { input: 1 }],
      ] as const) {
        const response = await call(site, method, path, body);
        expect(response.status, `${method} ${path}`).toBe(404);
        expect(response.body.errors[0].code).toBe('NOT_FOUND');
      }
    }
    for (const [method, path, body] of [
      ['POST', `/extensions/${id}/enable`, undefined],
      ['POST', `/extensions/${id}/disable`, undefined],
      ['POST', `/extensions/${id}/capabilities`, { capabilities: ['log'] }],
      ['POST', `/extensions/${id}/run`, { input: 1 }],
    ] as const) {
      expect((await call(other, method, path, body)).status, `other site: ${method} ${path}`).toBe(404);
    }
    expect((await call(other, 'GET', '/extensions')).body.meta.total).toBe(0);
    expect((await call(other, 'GET', '/extensions/ui/manifest')).body.data.extensions).toEqual([]);
    // The same name in another site is another extension, installed fresh.
    const theirs = await upload(service, other, {});
    expect(theirs.id).not.toBe(id);
    expect(theirs.status).toBe('disabled');
    const mine = (await call(site, 'GET', '/extensions')).body.data;
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ id, status: 'enabled', capabilities: { granted: [] } });
  });
});
