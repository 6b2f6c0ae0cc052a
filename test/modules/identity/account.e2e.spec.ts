import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { auditActions, createMember, signIn, type Member } from './support/identity.ts';

const service = await startTestServiceForFile();

/** POST /me/change-password as the member. */
function changePassword(site: TestSite, member: Member, currentPassword: string, newPassword: string) {
  return service.request('POST', '/me/change-password', { site: site.siteId, token: member.token, body: { currentPassword, newPassword } });
}

describe('POST /me/change-password', () => {
  it('verifies the current password, ends every access and refresh token at once', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const other = await signIn(service, site.siteId, member.email, member.password);
    const changed = await changePassword(site, member, member.password, 'the new password 7');
    expect(changed.status).toBe(204);
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: member.token })).status).toBe(401);
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: other.body.data.token })).status).toBe(401);
    expect((await service.request('POST', '/auth/refresh', { site: site.siteId, body: { refreshToken: member.refreshToken } })).status).toBe(401);
    expect((await signIn(service, site.siteId, member.email, member.password)).status).toBe(401);
    expect((await signIn(service, site.siteId, member.email, 'the new password 7')).status).toBe(200);
    const actions = (await auditActions(service, site, `&filter[actor][_eq]=${member.userId}`)).map((entry) => entry.action);
    expect(actions).toContain('user.password_changed');
    expect(actions).toContain('session.revoked');
  });

  it('refuses a wrong current password with 401 INVALID_CREDENTIALS and changes nothing', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const response = await changePassword(site, member, 'not the password', 'the new password 7');
    expect(response.status).toBe(401);
    expect(response.body.errors[0]).toMatchObject({ code: 'INVALID_CREDENTIALS', path: ['body', 'currentPassword'] });
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: member.token })).status).toBe(200);
  });

  it('refuses a short new password with 400, and an anonymous caller with 401', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const short = await changePassword(site, member, member.password, 'short');
    expect(short.status).toBe(400);
    expect(short.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'newPassword'] });
    const anonymous = await service.request('POST', '/me/change-password', { site: site.siteId, body: { currentPassword: 'x', newPassword: 'yyyyyyyyyy' } });
    expect(anonymous.status).toBe(401);
  });
});

describe('sign-in audit', () => {
  it('records sign-ins, failed sign-ins (known and unknown emails) and logouts as events', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    expect((await signIn(service, site.siteId, member.email, 'wrong password')).status).toBe(401);
    expect((await signIn(service, site.siteId, `nobody@${site.siteId}.test`, 'wrong password')).status).toBe(401);
    await service.request('POST', '/auth/logout', { site: site.siteId, body: { refreshToken: member.refreshToken } });
    const entries = await auditActions(service, site);
    const memberEntries = entries.filter((entry) => entry.target === `user/${member.userId}` || entry.actor.id === member.userId);
    expect(memberEntries.map((entry) => entry.action)).toEqual(expect.arrayContaining(['session.started', 'user.sign_in_failed']));
    expect(entries.map((entry) => entry.action)).toEqual(expect.arrayContaining(['auth.sign_in_failed', 'session.revoked']));
  });
});

describe('/me/sessions', () => {
  it('lists active sessions redacted, with the current one flagged', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    await signIn(service, site.siteId, member.email, member.password, { 'user-agent': 'PhoneBrowser/1.0' });
    const listed = await service.request('GET', '/me/sessions', { site: site.siteId, token: member.token });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(2);
    const current = listed.body.data.filter((session: { current: boolean }) => session.current);
    expect(current).toHaveLength(1);
    const phone = listed.body.data.find((session: { userAgent: string }) => session.userAgent === 'PhoneBrowser/1.0');
    expect(phone).toMatchObject({ current: false, impersonated: false, ip: expect.any(String) });
    for (const session of listed.body.data) {
      expect(Object.keys(session).sort()).toEqual(['createdAt', 'current', 'expiresAt', 'id', 'impersonated', 'ip', 'lastUsedAt', 'userAgent']);
    }
    expect(JSON.stringify(listed.body)).not.toContain(member.refreshToken.split('.')[1]);
  });

  it('revokes one of its own sessions: its refresh and access tokens stop working, the others keep going', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const phone = await signIn(service, site.siteId, member.email, member.password);
    const phoneSessionId = phone.body.data.refreshToken.split('.')[0];
    const revoked = await service.request('DELETE', `/me/sessions/${phoneSessionId}`, { site: site.siteId, token: member.token });
    expect(revoked.status).toBe(204);
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: phone.body.data.token })).status).toBe(401);
    expect((await service.request('POST', '/auth/refresh', { site: site.siteId, body: { refreshToken: phone.body.data.refreshToken } })).status).toBe(401);
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: member.token })).status).toBe(200);
    const again = await service.request('DELETE', `/me/sessions/${phoneSessionId}`, { site: site.siteId, token: member.token });
    expect(again.status).toBe(404);
    expect(again.body.errors[0].code).toBe('NOT_FOUND');
  });

  it("cannot revoke another user's session (404) or a malformed id (404)", async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const adminSessions = await service.request('GET', '/me/sessions', { site: site.siteId, token: site.adminToken });
    const adminSessionId = adminSessions.body.data[0].id;
    const response = await service.request('DELETE', `/me/sessions/${adminSessionId}`, { site: site.siteId, token: member.token });
    expect(response.status).toBe(404);
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: site.adminToken })).status).toBe(200);
    expect((await service.request('DELETE', '/me/sessions/not-a-uuid', { site: site.siteId, token: member.token })).status).toBe(404);
  });

  it('revokes every session of the user with DELETE /me/sessions', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const phone = await signIn(service, site.siteId, member.email, member.password);
    expect((await service.request('DELETE', '/me/sessions', { site: site.siteId, token: member.token })).status).toBe(204);
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: member.token })).status).toBe(401);
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: phone.body.data.token })).status).toBe(401);
    const fresh = await signIn(service, site.siteId, member.email, member.password);
    const listed = await service.request('GET', '/me/sessions', { site: site.siteId, token: fresh.body.data.token });
    expect(listed.body.data).toHaveLength(1);
    // The administrator's sessions were not touched.
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: site.adminToken })).status).toBe(200);
  });

  it('needs a bearer token', async () => {
    const site = await createTestSite(service);
    expect((await service.request('GET', '/me/sessions', { site: site.siteId })).status).toBe(401);
  });
});

describe('/me/preferences', () => {
  it('starts with saveAction null and shallow-merges patches', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const initial = await service.request('GET', '/me/preferences', { site: site.siteId, token: member.token });
    expect(initial.status).toBe(200);
    expect(initial.body.data).toEqual({ saveAction: null });
    const first = await service.request('PATCH', '/me/preferences', {
      site: site.siteId,
      token: member.token,
      body: { saveAction: 'return', theme: { mode: 'dark' }, density: 'compact' },
    });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ saveAction: 'return', theme: { mode: 'dark' }, density: 'compact' });
    const second = await service.request('PATCH', '/me/preferences', { site: site.siteId, token: member.token, body: { theme: { accent: 'red' }, saveAction: null } });
    // Shallow: `theme` is replaced, not deep-merged; other keys stay.
    expect(second.body.data).toEqual({ saveAction: null, theme: { accent: 'red' }, density: 'compact' });
    const read = await service.request('GET', '/me/preferences', { site: site.siteId, token: member.token });
    expect(read.body.data).toEqual(second.body.data);
    // Another user's preferences are their own.
    const admin = await service.request('GET', '/me/preferences', { site: site.siteId, token: site.adminToken });
    expect(admin.body.data).toEqual({ saveAction: null });
  });

  it('refuses an invalid saveAction with 400 and writes nothing', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const response = await service.request('PATCH', '/me/preferences', { site: site.siteId, token: member.token, body: { saveAction: 'explode', theme: 'x' } });
    expect(response.status).toBe(400);
    expect(response.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'saveAction'] });
    const read = await service.request('GET', '/me/preferences', { site: site.siteId, token: member.token });
    expect(read.body.data).toEqual({ saveAction: null });
    const notObject = await service.request('PATCH', '/me/preferences', { site: site.siteId, token: member.token, body: ['stay'] });
    expect(notObject.status).toBe(400);
  });
});
