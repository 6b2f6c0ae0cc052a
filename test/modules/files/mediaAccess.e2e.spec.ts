// Who may use the files and media routes: each route needs its media:* capability (granted by a
// policy rule without a collection; site administrators hold them all), and nothing of one site is
// reachable from another (file ids, media keys, presigned URLs, presets).
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile, type TestResponse } from '../../support/testService.ts';
import { createMember, grant, withHelpers, type AccessSite } from '../access/support.ts';
import { jpegBytes, onlyError, pngBytes, sendRaw, storedKeys } from './support.ts';

const service = await startTestServiceForFile();

const CAPABILITIES = ['media:create', 'media:read', 'media:update', 'media:delete'] as const;
type Capability = (typeof CAPABILITIES)[number];

interface RouteCheck {
  route: string;
  capability: Capability;
  /** The status of a request that is let through. */
  allowed: number;
  /** Prepares what the request needs (as the administrator) and sends it with `token`. */
  send(site: AccessSite, token: string): Promise<{ status: number; body: any }>;
}

async function adminMedia(site: AccessSite, key: string) {
  const created = await sendRaw(service, 'POST', `/media/${key}`, { site: site.siteId, token: site.adminToken, contentType: 'image/png', body: await pngBytes(20, 20) });
  expect(created.status).toBe(201);
  return created.body.data as { id: string };
}
async function adminPreset(site: AccessSite) {
  const created = await site.admin('POST', '/transform-presets', { key: `p-${Math.random().toString(36).slice(2, 8)}`, name: 'P', dsl: { width: 10 } });
  expect(created.status).toBe(201);
  return created.body.data as { id: string };
}
const unique = (name: string) => `${Math.random().toString(36).slice(2, 8)}-${name}`;

const ROUTES: RouteCheck[] = [
  { route: 'POST /files/presigned-url', capability: 'media:create', allowed: 200, send: (site, token) => site.as(token, 'POST', '/files/presigned-url', { filename: 'a.png', contentType: 'image/png' }) },
  {
    route: 'POST /files',
    capability: 'media:create',
    allowed: 201,
    async send(site, token) {
      const { url, headers, key } = (await site.admin('POST', '/files/presigned-url', { filename: 'a.png', contentType: 'image/png' })).body.data;
      expect((await sendRaw(service, 'PUT', url, { headers, body: await pngBytes() })).status).toBe(201);
      return site.as(token, 'POST', '/files', { key });
    },
  },
  {
    route: 'POST /media/:key',
    capability: 'media:create',
    allowed: 201,
    send: async (site, token) => sendRaw(service, 'POST', `/media/${unique('m.png')}`, { site: site.siteId, token, contentType: 'image/png', body: await pngBytes() }),
  },
  { route: 'POST /transform-presets', capability: 'media:create', allowed: 201, send: (site, token) => site.as(token, 'POST', '/transform-presets', { key: unique('k'), name: 'K', dsl: { width: 5 } }) },
  { route: 'GET /files', capability: 'media:read', allowed: 200, send: (site, token) => site.as(token, 'GET', '/files') },
  { route: 'GET /files/:id', capability: 'media:read', allowed: 200, send: async (site, token) => site.as(token, 'GET', `/files/${(await adminMedia(site, unique('r.png'))).id}`) },
  {
    route: 'GET /media/:key',
    capability: 'media:read',
    allowed: 200,
    async send(site, token) {
      const key = unique('r.png');
      await adminMedia(site, key);
      return sendRaw(service, 'GET', `/media/${key}`, { site: site.siteId, token });
    },
  },
  {
    route: 'GET /assets/:id',
    capability: 'media:read',
    allowed: 200,
    send: async (site, token) => sendRaw(service, 'GET', `/assets/${(await adminMedia(site, unique('r.png'))).id}?width=8`, { site: site.siteId, token }),
  },
  { route: 'GET /transform-presets', capability: 'media:read', allowed: 200, send: (site, token) => site.as(token, 'GET', '/transform-presets') },
  {
    route: 'PATCH /files/:id',
    capability: 'media:update',
    allowed: 200,
    send: async (site, token) => site.as(token, 'PATCH', `/files/${(await adminMedia(site, unique('u.png'))).id}`, { title: 'Changed' }),
  },
  { route: 'PATCH /transform-presets/:id', capability: 'media:update', allowed: 200, send: async (site, token) => site.as(token, 'PATCH', `/transform-presets/${(await adminPreset(site)).id}`, { name: 'Q' }) },
  { route: 'DELETE /files/:id', capability: 'media:delete', allowed: 204, send: async (site, token) => site.as(token, 'DELETE', `/files/${(await adminMedia(site, unique('d.png'))).id}`) },
  {
    route: 'DELETE /media/:key',
    capability: 'media:delete',
    allowed: 204,
    async send(site, token) {
      const key = unique('d.png');
      await adminMedia(site, key);
      return sendRaw(service, 'DELETE', `/media/${key}`, { site: site.siteId, token });
    },
  },
  { route: 'DELETE /transform-presets/:id', capability: 'media:delete', allowed: 204, send: async (site, token) => site.as(token, 'DELETE', `/transform-presets/${(await adminPreset(site)).id}`) },
];

const capabilityRules = (capabilities: readonly string[]) => capabilities.map((action) => ({ collection: null, action }));

describe('capabilities', () => {
  it('refuses a member without media capabilities with 403 on every route, and lets the site administrator through', async () => {
    const site = withHelpers(service, await createTestSite(service, 'access'));
    const member = await createMember(service, site);
    for (const check of ROUTES) {
      const refused = await check.send(site, member.token);
      expect([refused.status, onlyError(refused).code], check.route).toEqual([403, 'PERMISSION_DENIED']);
      expect((await check.send(site, site.adminToken)).status, `${check.route} as the administrator`).toBe(check.allowed);
    }
  });

  it.each(CAPABILITIES)('opens the routes of %s to a member granted it, and only those', async (capability) => {
    const site = withHelpers(service, await createTestSite(service, 'access'));
    const holder = await createMember(service, site);
    await grant(site, { userId: holder.userId }, capabilityRules([capability]));
    const others = await createMember(service, site);
    await grant(site, { userId: others.userId }, capabilityRules(CAPABILITIES.filter((entry) => entry !== capability)));
    for (const check of ROUTES.filter((entry) => entry.capability === capability)) {
      const allowed = await check.send(site, holder.token);
      expect(allowed.status, `${check.route}: ${JSON.stringify(allowed.body)}`).toBe(check.allowed);
      expect((await check.send(site, others.token)).status, `${check.route} with the other three capabilities`).toBe(403);
    }
    for (const check of ROUTES.filter((entry) => entry.capability !== capability)) {
      expect((await check.send(site, holder.token)).status, `${check.route} with ${capability} only`).toBe(403);
    }
  });

  it('lets anonymous callers read media only when the public role holds media:read', async () => {
    const site = withHelpers(service, await createTestSite(service, 'access'));
    const file = await adminMedia(site, 'public.png');
    const anonymous = () => sendRaw(service, 'GET', '/media/public.png', { site: site.siteId });
    expect((await anonymous()).status).toBe(403);
    expect((await sendRaw(service, 'GET', `/assets/${file.id}`, { site: site.siteId })).status).toBe(403);
    const publicRole = (await site.admin('GET', '/roles')).body.data.find((role: { systemKey: string }) => role.systemKey === 'public');
    await grant(site, { roleId: publicRole.id }, capabilityRules(['media:read']));
    expect((await anonymous()).status).toBe(200);
    expect((await sendRaw(service, 'GET', `/assets/${file.id}?width=10`, { site: site.siteId })).status).toBe(200);
    expect((await site.as(null, 'GET', '/files')).status).toBe(401);
  });
});

describe('another site', () => {
  it("never reaches a site's files, media, objects or presets", async () => {
    const siteA = withHelpers(service, await createTestSite(service, 'access'));
    const siteB = withHelpers(service, await createTestSite(service, 'access'));
    const logoA = await adminMedia(siteA, 'logo.png');
    const presetA = await adminPreset(siteA);
    const { url, headers, key } = (await siteA.admin('POST', '/files/presigned-url', { filename: 'doc.png', contentType: 'image/png' })).body.data;
    expect((await sendRaw(service, 'PUT', url, { headers, body: await pngBytes(30, 30) })).status).toBe(201);

    const expect404 = (response: TestResponse, what: string) => expect(response.status, what).toBe(404);
    expect404(await siteB.admin('GET', `/files/${logoA.id}`), 'GET /files/:id');
    expect404(await siteB.admin('PATCH', `/files/${logoA.id}`, { title: 'Mine' }), 'PATCH /files/:id');
    expect404(await siteB.admin('DELETE', `/files/${logoA.id}`), 'DELETE /files/:id');
    expect404(await sendRaw(service, 'GET', `/assets/${logoA.id}`, { site: siteB.siteId, token: siteB.adminToken }), 'GET /assets/:id');
    expect404(await sendRaw(service, 'GET', `/assets/${logoA.id}?width=10`, { site: siteB.siteId, token: siteB.adminToken }), 'GET /assets/:id?width');
    expect404(await sendRaw(service, 'GET', '/media/logo.png', { site: siteB.siteId, token: siteB.adminToken }), 'GET /media/:key');
    expect404(await sendRaw(service, 'DELETE', '/media/logo.png', { site: siteB.siteId, token: siteB.adminToken }), 'DELETE /media/:key');
    expect404(await siteB.admin('PATCH', `/transform-presets/${presetA.id}`, { name: 'Mine' }), 'PATCH /transform-presets/:id');
    expect404(await siteB.admin('DELETE', `/transform-presets/${presetA.id}`), 'DELETE /transform-presets/:id');
    expect404(await siteB.admin('POST', '/files', { key }), "POST /files with site A's upload key");
    expect((await siteB.admin('GET', '/files')).body.data).toEqual([]);
    expect((await siteB.admin('GET', '/transform-presets')).body.data).toEqual([]);

    // Site A's presigned URL sent as site B: the signature is the site's.
    const asB = await sendRaw(service, 'PUT', url, { headers: { ...headers, 'X-Svc-Site': siteB.siteId }, body: await pngBytes() });
    expect([asB.status, onlyError(asB).code]).toEqual([403, 'PERMISSION_DENIED']);
    // Site A's token does not work for site B.
    expect((await sendRaw(service, 'GET', '/files', { site: siteB.siteId, token: siteA.adminToken })).status).toBe(401);

    // Keys are namespaced: site B's logo.png is its own, and never A's bytes.
    const jpeg = await jpegBytes(12, 12);
    expect((await sendRaw(service, 'POST', '/media/logo.jpg', { site: siteB.siteId, token: siteB.adminToken, contentType: 'image/jpeg', body: jpeg })).status).toBe(201);
    const pngB = await pngBytes(5, 5);
    expect((await sendRaw(service, 'POST', '/media/logo.png', { site: siteB.siteId, token: siteB.adminToken, contentType: 'image/png', body: pngB })).status).toBe(201);
    const servedB = await sendRaw(service, 'GET', '/media/logo.png', { site: siteB.siteId, token: siteB.adminToken });
    const servedA = await sendRaw(service, 'GET', '/media/logo.png', { site: siteA.siteId, token: siteA.adminToken });
    expect(servedB.bytes.equals(servedA.bytes)).toBe(false);
    expect(servedA.bytes.length).toBeGreaterThan(0);
    expect((await sendRaw(service, 'DELETE', '/media/logo.png', { site: siteB.siteId, token: siteB.adminToken })).status).toBe(204);
    expect((await sendRaw(service, 'GET', '/media/logo.png', { site: siteA.siteId, token: siteA.adminToken })).bytes.equals(servedA.bytes)).toBe(true);
    expect(await storedKeys(service, siteA.siteId)).toEqual([key, 'media/logo.png'].sort());
    expect(await storedKeys(service, siteB.siteId)).toEqual(['media/logo.jpg']);
    expect((await siteA.admin('GET', `/files/${logoA.id}`)).body.data.title).toBeNull();
  });
});
