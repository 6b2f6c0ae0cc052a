import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { auditActions, createMember, createRole } from './support/identity.ts';

const service = await startTestServiceForFile();

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

  it('binds a key given neither userId nor roleId to the calling user, with that user\'s rights', async () => {
    const site = await createTestSite(service);
    // Another administrator than the site's first: the key is the caller's, not the site owner's.
    const adminRole = await createRole(service, site.siteId, { admin: true });
    const otherAdmin = await createMember(service, site, { roleId: adminRole });
    const created = await service.request('POST', '/api-keys', { site: site.siteId, token: otherAdmin.token, body: { name: 'personal' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'personal', userId: otherAdmin.userId, roleId: null, createdBy: otherAdmin.userId });
    const me = await service.request('GET', '/auth/me', { site: site.siteId, token: created.body.data.key });
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(otherAdmin.userId);
    expect((await service.request('GET', '/users', { site: site.siteId, token: created.body.data.key })).status).toBe(200);

    // Null for both is the same as leaving them out.
    const nulls = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body: { name: 'mine', userId: null, roleId: null } });
    expect(nulls.status, JSON.stringify(nulls.body)).toBe(201);
    expect(nulls.body.data).toMatchObject({ userId: site.adminUserId, roleId: null });

    // The user loses its rights, and so does its key: it acts as the user, whatever the user is now.
    const demoted = await service.request('PATCH', `/users/${otherAdmin.userId}`, { site: site.siteId, token: site.adminToken, body: { roleId: null } });
    expect(demoted.status, JSON.stringify(demoted.body)).toBe(200);
    expect((await service.request('GET', '/users', { site: site.siteId, token: created.body.data.key })).status).toBe(403);
  });

  it('binds a key made by a user-bound key to the same user, and refuses the short form to a role-bound key', async () => {
    const site = await createTestSite(service);
    const userKey = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body: { name: 'as me' } });
    const fromUserKey = await service.request('POST', '/api-keys', { site: site.siteId, token: userKey.body.data.key, body: { name: 'from a key' } });
    expect(fromUserKey.status, JSON.stringify(fromUserKey.body)).toBe(201);
    expect(fromUserKey.body.data).toMatchObject({ userId: site.adminUserId, roleId: null });

    const adminRole = await createRole(service, site.siteId, { admin: true });
    const roleKey = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body: { name: 'ops', roleId: adminRole } });
    const keyIds = async () => (await service.request('GET', '/api-keys', { site: site.siteId, token: site.adminToken })).body.data.map((key: { id: string }) => key.id);
    const before = await keyIds();
    const refused = await service.request('POST', '/api-keys', { site: site.siteId, token: roleKey.body.data.key, body: { name: 'no user behind me' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      errors: [{ code: 'VALIDATION_FAILED', message: expect.stringMatching(/not a user.*userId or roleId/), path: ['body', 'userId'], extensions: {} }],
    });
    expect(await keyIds()).toEqual(before);
    // The explicit forms stay open to it.
    const explicit = await service.request('POST', '/api-keys', { site: site.siteId, token: roleKey.body.data.key, body: { name: 'same role', roleId: adminRole } });
    expect(explicit.status, JSON.stringify(explicit.body)).toBe(201);
    expect(explicit.body.data).toMatchObject({ userId: null, roleId: adminRole });
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
