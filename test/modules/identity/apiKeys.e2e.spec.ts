import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSite, startTestService, type TestService } from '../../support/testService.ts';
import { auditActions, createMember, createRole } from './support/identity.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

describe('/api-keys', () => {
  it('creates a key shown once, bound to a user, usable as a bearer token', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const created = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body: { name: 'CI', userId: member.userId } });
    expect(created.status).toBe(201);
    const { key, ...view } = created.body.data;
    expect(key).toMatch(/^svk_[A-Za-z0-9_-]{43}$/);
    expect(view).toMatchObject({ name: 'CI', userId: member.userId, roleId: null, createdBy: site.adminUserId, lastUsedAt: null, prefix: key.slice(0, 12) });

    const me = await service.request('GET', '/auth/me', { site: site.siteId, token: key });
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(member.userId);
    // A user-bound key has the user's rights: this member is no administrator.
    expect((await service.request('GET', '/users', { site: site.siteId, token: key })).status).toBe(403);

    const listed = await service.request('GET', '/api-keys', { site: site.siteId, token: site.adminToken });
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).not.toHaveProperty('key');
    expect(JSON.stringify(listed.body)).not.toContain(key);
    expect(listed.body.data[0].lastUsedAt).toEqual(expect.any(String));
  });

  it('binds a key to a role: the principal is synthetic and has the role admin flag', async () => {
    const site = await createTestSite(service);
    const adminRole = await createRole(service, site.siteId, { admin: true });
    const plainRole = await createRole(service, site.siteId);
    const adminKey = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body: { name: 'ops', roleId: adminRole } });
    const plainKey = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body: { name: 'reader', roleId: plainRole } });
    expect((await service.request('GET', '/users', { site: site.siteId, token: adminKey.body.data.key })).status).toBe(200);
    expect((await service.request('GET', '/users', { site: site.siteId, token: plainKey.body.data.key })).status).toBe(403);
    // No user behind a role key: no profile, no preferences.
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: adminKey.body.data.key })).status).toBe(403);
    expect((await service.request('GET', '/me/preferences', { site: site.siteId, token: adminKey.body.data.key })).status).toBe(403);
    // Writes made with it are attributed to the key.
    const team = await service.request('POST', '/teams', { site: site.siteId, token: adminKey.body.data.key, body: { name: 'Made by a key' } });
    expect(team.status).toBe(201);
    const entry = (await auditActions(service, site, `&filter[target][_eq]=team/${team.body.data.id}`))[0];
    expect(entry?.actor).toMatchObject({ kind: 'apiKey', id: `apikey:${adminKey.body.data.id}` });
  });

  it('revokes a key: it stops working at once, and revoking again is 404', async () => {
    const site = await createTestSite(service);
    const created = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body: { name: 'temp', userId: site.adminUserId } });
    const { key, id } = created.body.data;
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: key })).status).toBe(200);
    expect((await service.request('DELETE', `/api-keys/${id}`, { site: site.siteId, token: site.adminToken })).status).toBe(204);
    const after = await service.request('GET', '/auth/me', { site: site.siteId, token: key });
    expect(after.status).toBe(401);
    expect(after.body.errors[0].code).toBe('UNAUTHENTICATED');
    expect((await service.request('DELETE', `/api-keys/${id}`, { site: site.siteId, token: site.adminToken })).status).toBe(404);
    expect((await service.request('DELETE', '/api-keys/not-a-uuid', { site: site.siteId, token: site.adminToken })).status).toBe(404);
    const actions = (await auditActions(service, site, `&filter[target][_eq]=api-key/${id}`)).map((entry) => entry.action);
    expect(actions).toEqual(['api_key.revoked', 'api_key.created']);
  });

  it("refuses another site's key, an unknown key and a malformed one with 401", async () => {
    const site = await createTestSite(service);
    const other = await createTestSite(service);
    const created = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body: { name: 'mine', userId: site.adminUserId } });
    const elsewhere = await service.request('GET', '/auth/me', { site: other.siteId, token: created.body.data.key });
    expect(elsewhere.status).toBe(401);
    const unknown = await service.request('GET', '/auth/me', { site: site.siteId, token: `svk_${'A'.repeat(43)}` });
    expect(unknown.status).toBe(401);
    const malformed = await service.request('GET', '/auth/me', { site: site.siteId, token: 'svk_short' });
    expect(malformed.status).toBe(401);
    expect((await service.request('GET', '/api-keys', { site: other.siteId, token: other.adminToken })).body.data).toEqual([]);
    expect((await service.request('DELETE', `/api-keys/${created.body.data.id}`, { site: other.siteId, token: other.adminToken })).status).toBe(404);
  });

  it('is refused to a non-administrator (403), and validates its body', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const denied = await service.request('POST', '/api-keys', { site: site.siteId, token: member.token, body: { name: 'mine', userId: member.userId } });
    expect(denied.status).toBe(403);
    expect(denied.body.errors[0].code).toBe('PERMISSION_DENIED');
    expect((await service.request('GET', '/api-keys', { site: site.siteId, token: member.token })).status).toBe(403);

    const both = await service.request('POST', '/api-keys', {
      site: site.siteId,
      token: site.adminToken,
      body: { name: 'x', userId: member.userId, roleId: '6f1c1b7e-0000-4000-8000-000000000000' },
    });
    expect(both.status).toBe(400);
    expect(both.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'roleId'] });
    const neither = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body: { name: 'x' } });
    expect(neither.status).toBe(400);
    expect(neither.body.errors[0].path).toEqual(['body', 'userId']);
    const unknownUser = await service.request('POST', '/api-keys', {
      site: site.siteId,
      token: site.adminToken,
      body: { name: 'x', userId: '6f1c1b7e-0000-4000-8000-000000000000' },
    });
    expect(unknownUser.status).toBe(400);
    expect(unknownUser.body.errors[0].path).toEqual(['body', 'userId']);
    const noName = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body: { userId: member.userId } });
    expect(noName.body.errors[0].path).toEqual(['body', 'name']);
    expect((await service.request('GET', '/api-keys', { site: site.siteId, token: site.adminToken })).body.data).toEqual([]);
  });
});
