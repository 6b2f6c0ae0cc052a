import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { auditActions, createMember, createRole, signIn } from './support/identity.ts';
import { linkIn, startMailCaptureForFile } from './support/mailCapture.ts';

const mail = await startMailCaptureForFile();
const service = await startTestServiceForFile({ SMTP_URL: mail.url });

const password = 'member password 123';

describe('users CRUD', () => {
  it('creates, reads, lists, updates and deletes a user', async () => {
    const site = await createTestSite(service);
    const roleId = await createRole(service, site.siteId);
    const email = `Editor@${site.siteId}.test`;
    const created = await service.request('POST', '/users', {
      site: site.siteId,
      token: site.adminToken,
      body: { email, password, roleId, firstName: 'Ed', lastName: 'Itor' },
    });
    expect(created.status).toBe(201);
    const user = created.body.data;
    expect(user).toMatchObject({ email: email.toLowerCase(), roleId, firstName: 'Ed', lastName: 'Itor', status: 'active', avatar: null });
    expect(user).not.toHaveProperty('passwordHash');

    const read = await service.request('GET', `/users/${user.id}`, { site: site.siteId, token: site.adminToken });
    expect(read.body.data).toEqual(user);
    const listed = await service.request('GET', '/users?limit=1&page=2', { site: site.siteId, token: site.adminToken });
    expect(listed.body.meta).toEqual({ total: 2, page: 2, pageSize: 1 });
    const byRole = await service.request('GET', `/users?roleId=${roleId}`, { site: site.siteId, token: site.adminToken });
    expect(byRole.body.data.map((row: { id: string }) => row.id)).toEqual([user.id]);

    const updated = await service.request('PATCH', `/users/${user.id}`, {
      site: site.siteId,
      token: site.adminToken,
      body: { firstName: 'Edna', avatar: 'https://img.test/a.png', roleId: null },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ firstName: 'Edna', lastName: 'Itor', avatar: 'https://img.test/a.png', roleId: null });

    const deleted = await service.request('DELETE', `/users/${user.id}`, { site: site.siteId, token: site.adminToken });
    expect(deleted.status).toBe(204);
    expect((await service.request('GET', `/users/${user.id}`, { site: site.siteId, token: site.adminToken })).status).toBe(404);
    expect((await service.request('DELETE', `/users/${user.id}`, { site: site.siteId, token: site.adminToken })).status).toBe(404);

    const actions = (await auditActions(service, site, `&filter[target][_eq]=user/${user.id}`)).map((entry) => entry.action);
    expect(actions).toEqual(['user.deleted', 'user.updated', 'user.created']);
  });

  it('refuses a duplicate email with 409 CONFLICT, case-insensitively, and frees it once the user is deleted', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const duplicate = await service.request('POST', '/users', { site: site.siteId, token: site.adminToken, body: { email: member.email.toUpperCase(), password } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.errors[0]).toMatchObject({ code: 'CONFLICT', path: ['body', 'email'] });
    const rename = await service.request('PATCH', `/users/${member.userId}`, { site: site.siteId, token: site.adminToken, body: { email: site.adminEmail } });
    expect(rename.status).toBe(409);

    await service.request('DELETE', `/users/${member.userId}`, { site: site.siteId, token: site.adminToken });
    const reused = await service.request('POST', '/users', { site: site.siteId, token: site.adminToken, body: { email: member.email, password } });
    expect(reused.status).toBe(201);
    expect(reused.body.data.id).not.toBe(member.userId);
  });

  it('soft delete revokes the sessions and API keys of the user, and sign-in is refused', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const key = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body: { name: 'member key', userId: member.userId } });
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: key.body.data.key })).status).toBe(200);
    await service.request('DELETE', `/users/${member.userId}`, { site: site.siteId, token: site.adminToken });
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: member.token })).status).toBe(401);
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: key.body.data.key })).status).toBe(401);
    expect((await service.request('POST', '/auth/refresh', { site: site.siteId, body: { refreshToken: member.refreshToken } })).status).toBe(401);
    expect((await signIn(service, site.siteId, member.email, member.password)).status).toBe(401);
    const keys = await service.request('GET', '/api-keys', { site: site.siteId, token: site.adminToken });
    expect(keys.body.data).toEqual([]);
  });

  it('suspending a user ends its tokens; reactivating lets it sign in again', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const suspended = await service.request('PATCH', `/users/${member.userId}`, { site: site.siteId, token: site.adminToken, body: { status: 'suspended' } });
    expect(suspended.body.data.status).toBe('suspended');
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: member.token })).status).toBe(401);
    expect((await signIn(service, site.siteId, member.email, member.password)).status).toBe(401);
    await service.request('PATCH', `/users/${member.userId}`, { site: site.siteId, token: site.adminToken, body: { status: 'active' } });
    expect((await signIn(service, site.siteId, member.email, member.password)).status).toBe(200);
  });

  it('an administrator setting a password bumps tokenVersion and revokes sessions', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const changed = await service.request('PATCH', `/users/${member.userId}`, { site: site.siteId, token: site.adminToken, body: { password: 'set by the admin 1' } });
    expect(changed.status).toBe(200);
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: member.token })).status).toBe(401);
    expect((await service.request('POST', '/auth/refresh', { site: site.siteId, body: { refreshToken: member.refreshToken } })).status).toBe(401);
    expect((await signIn(service, site.siteId, member.email, 'set by the admin 1')).status).toBe(200);
  });

  it('refuses bad input with 400 and a path, unknown roles, self-deletion and self-suspension', async () => {
    const site = await createTestSite(service);
    const badEmail = await service.request('POST', '/users', { site: site.siteId, token: site.adminToken, body: { email: 'nope', password } });
    expect(badEmail.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'email'] });
    const unknownRole = await service.request('POST', '/users', {
      site: site.siteId,
      token: site.adminToken,
      body: { email: `r@${site.siteId}.test`, password, roleId: '6f1c1b7e-0000-4000-8000-000000000000' },
    });
    expect(unknownRole.status).toBe(400);
    expect(unknownRole.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'roleId'] });
    const unknownField = await service.request('PATCH', `/users/${site.adminUserId}`, { site: site.siteId, token: site.adminToken, body: { tokenVersion: 0 } });
    expect(unknownField.status).toBe(400);
    const badStatus = await service.request('PATCH', `/users/${site.adminUserId}`, { site: site.siteId, token: site.adminToken, body: { status: 'deleted' } });
    expect(badStatus.body.errors[0].path).toEqual(['body', 'status']);
    const selfDelete = await service.request('DELETE', `/users/${site.adminUserId}`, { site: site.siteId, token: site.adminToken });
    expect(selfDelete.status).toBe(409);
    const selfSuspend = await service.request('PATCH', `/users/${site.adminUserId}`, { site: site.siteId, token: site.adminToken, body: { status: 'suspended' } });
    expect(selfSuspend.status).toBe(409);
    const users = await service.request('GET', '/users', { site: site.siteId, token: site.adminToken });
    expect(users.body.meta.total).toBe(1);
  });

  it('is for site administrators only, and never shows another site', async () => {
    const site = await createTestSite(service);
    const other = await createTestSite(service);
    const member = await createMember(service, site);
    expect((await service.request('GET', '/users', { site: site.siteId, token: member.token })).status).toBe(403);
    expect((await service.request('POST', '/users', { site: site.siteId, token: member.token, body: { email: `x@${site.siteId}.test`, password } })).status).toBe(403);
    expect((await service.request('GET', '/users', { site: site.siteId })).status).toBe(401);
    const crossRead = await service.request('GET', `/users/${member.userId}`, { site: other.siteId, token: other.adminToken });
    expect(crossRead.status).toBe(404);
    const crossDelete = await service.request('DELETE', `/users/${member.userId}`, { site: other.siteId, token: other.adminToken });
    expect(crossDelete.status).toBe(404);
    // The other site's token is refused here.
    expect((await service.request('GET', '/users', { site: site.siteId, token: other.adminToken })).status).toBe(401);
    expect((await service.request('GET', '/users/not-a-uuid', { site: site.siteId, token: site.adminToken })).status).toBe(404);
  });
});

describe('POST /users/invite and /auth/accept-invite', () => {
  it('invites by email; the link sets the password and activates the account', async () => {
    const site = await createTestSite(service);
    const email = `invitee@${site.siteId}.test`;
    const invited = await service.request('POST', '/users/invite', { site: site.siteId, token: site.adminToken, body: { email, firstName: 'Ina' } });
    expect(invited.status).toBe(201);
    expect(invited.body.data).toMatchObject({ email, status: 'invited', firstName: 'Ina' });
    const message = await mail.waitFor(email);
    expect(message.subject).toContain('invited');
    const { token, url } = linkIn(message);
    expect(url.pathname).toBe('/auth/accept-invite');

    expect((await signIn(service, site.siteId, email, password)).status).toBe(401);
    const short = await service.request('POST', '/auth/accept-invite', { site: site.siteId, body: { token, password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.errors[0].path).toEqual(['body', 'password']);
    const accepted = await service.request('POST', '/auth/accept-invite', { site: site.siteId, body: { token, password } });
    expect(accepted.status).toBe(204);
    expect((await signIn(service, site.siteId, email, password)).status).toBe(200);
    const user = await service.request('GET', `/users/${invited.body.data.id}`, { site: site.siteId, token: site.adminToken });
    expect(user.body.data).toMatchObject({ status: 'active', emailVerified: true });
    const reused = await service.request('POST', '/auth/accept-invite', { site: site.siteId, body: { token, password: 'another one 123' } });
    expect(reused.status).toBe(400);
    expect(reused.body.errors[0].extensions.reason).toBe('used');
  });

  it('re-inviting a pending invitee sends a new link (200); an existing account is a 409', async () => {
    const site = await createTestSite(service);
    const email = `again@${site.siteId}.test`;
    const first = await service.request('POST', '/users/invite', { site: site.siteId, token: site.adminToken, body: { email } });
    const again = await service.request('POST', '/users/invite', { site: site.siteId, token: site.adminToken, body: { email } });
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(first.body.data.id);
    await mail.waitFor(email, () => mail.mailsTo(email).length >= 2);
    expect(mail.mailsTo(email)).toHaveLength(2);
    const taken = await service.request('POST', '/users/invite', { site: site.siteId, token: site.adminToken, body: { email: site.adminEmail } });
    expect(taken.status).toBe(409);
    expect(taken.body.errors[0]).toMatchObject({ code: 'CONFLICT', path: ['body', 'email'] });
  });

  it('refuses a non-administrator and a bad body', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    expect((await service.request('POST', '/users/invite', { site: site.siteId, token: member.token, body: { email: `z@${site.siteId}.test` } })).status).toBe(403);
    const bad = await service.request('POST', '/users/invite', { site: site.siteId, token: site.adminToken, body: { email: 'zzz' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toEqual(['body', 'email']);
  });
});

describe('POST /users/:id/impersonate', () => {
  it('gives an access token as the user whose claims and events name the impersonator', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const response = await service.request('POST', `/users/${member.userId}/impersonate`, { site: site.siteId, token: site.adminToken });
    expect(response.status).toBe(200);
    const { token, user, impersonatorId, sessionId } = response.body.data;
    expect(user.id).toBe(member.userId);
    expect(impersonatorId).toBe(site.adminUserId);
    expect(response.body.data).not.toHaveProperty('refreshToken');
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: member.userId, imp: site.adminUserId, site: site.siteId, sid: sessionId });

    const me = await service.request('GET', '/auth/me', { site: site.siteId, token });
    expect(me.body.data.id).toBe(member.userId);
    // The impersonated session is visible to the user, flagged, and the impersonator cannot chain.
    const sessions = await service.request('GET', '/me/sessions', { site: site.siteId, token: member.token });
    expect(sessions.body.data.find((session: { id: string }) => session.id === sessionId)).toMatchObject({ impersonated: true });
    // A write made while impersonating is attributed to the user and names the impersonator.
    await service.request('PATCH', '/me/preferences', { site: site.siteId, token, body: { saveAction: 'stay' } });
    const entries = await auditActions(service, site, `&filter[target][_eq]=user/${member.userId}`);
    const impersonated = entries.find((entry) => entry.action === 'user.impersonated');
    expect(impersonated?.actor).toMatchObject({ kind: 'user', id: site.adminUserId });
    const preference = entries.find((entry) => entry.action === 'user.preferences_updated');
    expect(preference?.actor).toEqual({ kind: 'user', id: member.userId, impersonatorId: site.adminUserId });

    // Revoking the impersonation session ends the token at once.
    await service.request('DELETE', `/sessions/${sessionId}`, { site: site.siteId, token: site.adminToken });
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token })).status).toBe(401);
  });

  it('is refused to a non-administrator (403), for self (400), and for an unknown user (404)', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const denied = await service.request('POST', `/users/${site.adminUserId}/impersonate`, { site: site.siteId, token: member.token });
    expect(denied.status).toBe(403);
    expect(denied.body.errors[0].code).toBe('PERMISSION_DENIED');
    const self = await service.request('POST', `/users/${site.adminUserId}/impersonate`, { site: site.siteId, token: site.adminToken });
    expect(self.status).toBe(400);
    const unknown = await service.request('POST', '/users/6f1c1b7e-0000-4000-8000-000000000000/impersonate', { site: site.siteId, token: site.adminToken });
    expect(unknown.status).toBe(404);
  });

  it('cannot be chained from an impersonation token, nor done with an API key', async () => {
    const site = await createTestSite(service);
    const adminRoleMember = await createMember(service, site, { roleId: await createRole(service, site.siteId, { admin: true }) });
    const member = await createMember(service, site);
    const first = await service.request('POST', `/users/${adminRoleMember.userId}/impersonate`, { site: site.siteId, token: site.adminToken });
    const chained = await service.request('POST', `/users/${member.userId}/impersonate`, { site: site.siteId, token: first.body.data.token });
    expect(chained.status).toBe(403);
    const key = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body: { name: 'admin key', userId: site.adminUserId } });
    const viaKey = await service.request('POST', `/users/${member.userId}/impersonate`, { site: site.siteId, token: key.body.data.key });
    expect(viaKey.status).toBe(403);
  });
});

describe('administrator session management', () => {
  it("lists a user's sessions and revokes one", async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const listed = await service.request('GET', `/users/${member.userId}/sessions`, { site: site.siteId, token: site.adminToken });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0].current).toBe(false);
    const revoked = await service.request('DELETE', `/sessions/${listed.body.data[0].id}`, { site: site.siteId, token: site.adminToken });
    expect(revoked.status).toBe(204);
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: member.token })).status).toBe(401);
    const after = await service.request('GET', `/users/${member.userId}/sessions`, { site: site.siteId, token: site.adminToken });
    expect(after.body.data).toEqual([]);
    expect((await service.request('DELETE', `/sessions/${listed.body.data[0].id}`, { site: site.siteId, token: site.adminToken })).status).toBe(404);
    const actions = (await auditActions(service, site, '&filter[action][_eq]=session.revoked')).map((entry) => entry.target);
    expect(actions).toContain(`session/${listed.body.data[0].id}`);
  });

  it("refuses non-administrators, unknown users and another site's sessions", async () => {
    const site = await createTestSite(service);
    const other = await createTestSite(service);
    const member = await createMember(service, site);
    expect((await service.request('GET', `/users/${site.adminUserId}/sessions`, { site: site.siteId, token: member.token })).status).toBe(403);
    expect((await service.request('GET', '/users/6f1c1b7e-0000-4000-8000-000000000000/sessions', { site: site.siteId, token: site.adminToken })).status).toBe(404);
    const sessions = await service.request('GET', '/me/sessions', { site: site.siteId, token: member.token });
    const crossSite = await service.request('DELETE', `/sessions/${sessions.body.data[0].id}`, { site: other.siteId, token: other.adminToken });
    expect(crossSite.status).toBe(404);
    expect((await service.request('DELETE', `/sessions/${sessions.body.data[0].id}`, { site: site.siteId, token: member.token })).status).toBe(403);
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: member.token })).status).toBe(200);
  });
});

describe('/users/subscriber-access', () => {
  it('grants, lists and revokes read access of subscribers to collections', async () => {
    const site = await createTestSite(service);
    const granted = await service.request('POST', '/users/subscriber-access', { site: site.siteId, token: site.adminToken, body: { collection: 'articles' } });
    expect(granted.status).toBe(201);
    expect(granted.body.data).toMatchObject({ collection: 'articles', grantedBy: site.adminUserId });
    const twice = await service.request('POST', '/users/subscriber-access', { site: site.siteId, token: site.adminToken, body: { collection: 'articles' } });
    expect(twice.status).toBe(200);
    await service.request('POST', '/users/subscriber-access', { site: site.siteId, token: site.adminToken, body: { collection: 'events' } });
    const listed = await service.request('GET', '/users/subscriber-access', { site: site.siteId, token: site.adminToken });
    expect(listed.body.data.map((grant: { collection: string }) => grant.collection)).toEqual(['articles', 'events']);
    expect((await service.request('DELETE', '/users/subscriber-access/articles', { site: site.siteId, token: site.adminToken })).status).toBe(204);
    const after = await service.request('GET', '/users/subscriber-access', { site: site.siteId, token: site.adminToken });
    expect(after.body.data.map((grant: { collection: string }) => grant.collection)).toEqual(['events']);
    const actions = (await auditActions(service, site, '&filter[action][_starts_with]=subscriber_access')).map((entry) => entry.action);
    expect(actions).toEqual(['subscriber_access.revoked', 'subscriber_access.granted', 'subscriber_access.granted']);
  });

  it('refuses a bad name (400), an unknown grant (404), non-administrators (403), and keeps sites apart', async () => {
    const site = await createTestSite(service);
    const other = await createTestSite(service);
    const member = await createMember(service, site);
    const bad = await service.request('POST', '/users/subscriber-access', { site: site.siteId, token: site.adminToken, body: { collection: 'no spaces!' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toEqual(['body', 'collection']);
    expect((await service.request('DELETE', '/users/subscriber-access/nothing', { site: site.siteId, token: site.adminToken })).status).toBe(404);
    expect((await service.request('GET', '/users/subscriber-access', { site: site.siteId, token: member.token })).status).toBe(403);
    await service.request('POST', '/users/subscriber-access', { site: site.siteId, token: site.adminToken, body: { collection: 'articles' } });
    const otherList = await service.request('GET', '/users/subscriber-access', { site: other.siteId, token: other.adminToken });
    expect(otherList.body.data).toEqual([]);
    expect((await service.request('DELETE', '/users/subscriber-access/articles', { site: other.siteId, token: other.adminToken })).status).toBe(404);
  });
});
