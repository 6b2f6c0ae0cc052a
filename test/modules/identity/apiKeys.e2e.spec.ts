import { describe, expect, it, vi } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { auditActions, createMember, createRole } from './support/identity.ts';

const service = await startTestServiceForFile();
const owner = openOwnerDatabaseForFile();

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

describe('/api-keys expiry', () => {
  it('keeps expiresAt in the created event and the read model, shows it, and answers 401 TOKEN_EXPIRED from then on, even while cached', async () => {
    const site = await createTestSite(service);
    const other = await createTestSite(service);
    const createdAt = Date.now();
    // Three seconds ahead: the key's check is still in the per-instance cache (5 s) when it expires.
    const expiresAt = new Date(createdAt + 3_000).toISOString();
    const created = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body: { name: 'short-lived', expiresAt } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.expiresAt).toBe(expiresAt);
    const { key, id } = created.body.data;
    const listed = await service.request('GET', '/api-keys', { site: site.siteId, token: site.adminToken });
    expect(listed.body.data).toEqual([expect.objectContaining({ id, expiresAt })]);
    const [event] = await owner.query<{ data: { expiresAt: string } }>(
      sql`SELECT data FROM events WHERE site_id = ${site.siteId} AND type = 'api_key.created' AND data->>'apiKeyId' = ${id}`,
    );
    expect(event!.data.expiresAt).toBe(expiresAt);

    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: key })).status).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date(createdAt + 3_500));
      const expired = await service.request('GET', '/auth/me', { site: site.siteId, token: key });
      expect(expired.status).toBe(401);
      expect(expired.body.errors[0]).toMatchObject({ code: 'TOKEN_EXPIRED', path: [], extensions: { expiresAt } });
      // On another site the key is simply unknown: nothing says it exists.
      const elsewhere = await service.request('GET', '/auth/me', { site: other.siteId, token: key });
      expect(elsewhere.body.errors[0].code).toBe('UNAUTHENTICATED');
    } finally {
      vi.useRealTimers();
    }
    // An expired key stays listed (until it is revoked), with its expiry.
    expect((await service.request('GET', '/api-keys', { site: site.siteId, token: site.adminToken })).body.data).toEqual([expect.objectContaining({ id, expiresAt })]);
  });

  it('never expires without expiresAt, or with null', async () => {
    const site = await createTestSite(service);
    for (const body of [{ name: 'forever' }, { name: 'forever too', expiresAt: null }]) {
      const created = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.data.expiresAt).toBeNull();
    }
    // An offset other than Z is taken and stored as the same instant.
    const offset = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body: { name: 'offset', expiresAt: '2999-01-01T07:00:00+07:00' } });
    expect(offset.body.data.expiresAt).toBe('2999-01-01T00:00:00.000Z');
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: offset.body.data.key })).status).toBe(200);
  });

  it('refuses an expiresAt in the past, now, malformed or without an offset with 400 at body.expiresAt, creating nothing', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    for (const expiresAt of [new Date(Date.now() - 60_000).toISOString(), '2020-01-01T00:00:00Z', 'tomorrow', '2999-01-01', '2999-01-01T00:00:00', 1_900_000_000]) {
      const refused = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body: { name: 'x', expiresAt } });
      expect(refused.status, String(expiresAt)).toBe(400);
      expect(refused.body.errors[0], String(expiresAt)).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'expiresAt'] });
    }
    const past = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body: { name: 'x', expiresAt: '2020-01-01T00:00:00Z' } });
    expect(past.body.errors[0].message).toBe('expiresAt must be in the future');
    // Authorization comes first: a member is refused whatever the body.
    const denied = await service.request('POST', '/api-keys', { site: site.siteId, token: member.token, body: { name: 'x', userId: member.userId, expiresAt: '2999-01-01T00:00:00Z' } });
    expect(denied.status).toBe(403);
    expect((await service.request('GET', '/api-keys', { site: site.siteId, token: site.adminToken })).body.data).toEqual([]);
  });
});
