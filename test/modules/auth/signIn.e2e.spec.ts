// Sign-in: login, refresh-token rotation (body and cookie), reuse detection, logout, site binding
// and tokenVersion.
import { describe, expect, it } from 'vitest';
import { streamId } from '../../../domain/shared/events.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { createAccessTokenIssuer } from '../../../src/auth/accessTokens.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile, type TestResponse, type TestSite } from '../../support/testService.ts';
import { changePasswordAsSystem } from '../identity/support/identity.ts';

const service = await startTestServiceForFile();
const owner = openOwnerDatabaseForFile();

function login(site: TestSite, password = site.adminPassword, email = site.adminEmail) {
  return service.request('POST', '/auth/login', { site: site.siteId, body: { email, password } });
}

/** POST /auth/refresh with the refresh token of an earlier sign-in or refresh in the body. */
function refreshWith(site: TestSite, earlier: TestResponse) {
  return service.request('POST', '/auth/refresh', { site: site.siteId, body: { refreshToken: earlier.body.data.refreshToken } });
}

/** POST /auth/logout with the refresh token of an earlier sign-in or refresh in the body. */
function logoutWith(site: TestSite, earlier: TestResponse) {
  return service.request('POST', '/auth/logout', { site: site.siteId, body: { refreshToken: earlier.body.data.refreshToken } });
}

function refreshCookie(response: TestResponse): string | undefined {
  return response.headers.getSetCookie().find((cookie) => cookie.startsWith('svc_refresh='));
}

function cookieHeader(response: TestResponse): string {
  const cookie = refreshCookie(response);
  if (!cookie) throw new Error('no refresh cookie was set');
  return cookie.split(';')[0]!;
}

/** The events of the session (refresh-token family) a refresh token belongs to. */
async function sessionEvents(siteId: string, refreshToken: string): Promise<{ type: string; reason: string | null }[]> {
  const sessionId = refreshToken.split('.')[0]!;
  return owner.query(sql`
    SELECT type, data->>'reason' AS reason FROM events WHERE stream_id = ${streamId(siteId, 'session', sessionId)} ORDER BY position`);
}

describe('POST /auth/login', () => {
  it('answers an access token, a refresh token (body and httpOnly cookie) and the profile', async () => {
    const site = await createTestSite(service, 'auth');
    const response = await login(site);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      token: expect.any(String),
      expires: expect.any(Number),
      refreshToken: expect.any(String),
      user: { id: site.adminUserId, email: site.adminEmail, firstName: 'Admin', lastName: null, avatar: null },
    });
    const cookie = refreshCookie(response)!;
    expect(cookie).toContain(`svc_refresh=${response.body.data.refreshToken}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Path=\/api\/v1\/auth/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const me = await service.request('GET', '/auth/me', { site: site.siteId, token: response.body.data.token });
    expect(me.status).toBe(200);
    expect(me.body.data.email).toBe(site.adminEmail);
  });

  it('accepts the email in any case', async () => {
    const site = await createTestSite(service, 'auth');
    expect((await login(site, site.adminPassword, site.adminEmail.toUpperCase())).status).toBe(200);
  });

  it('gives the same 401 INVALID_CREDENTIALS answer for an unknown email and a wrong password', async () => {
    const site = await createTestSite(service, 'auth');
    const unknown = await login(site, site.adminPassword, `nobody@${site.siteId}.test`);
    const wrong = await login(site, 'not the password');
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.body).toEqual({ errors: [{ code: 'INVALID_CREDENTIALS', message: expect.any(String), path: [], extensions: {} }] });
    expect(wrong.body).toEqual(unknown.body);
    expect(refreshCookie(wrong)).toBeUndefined();
  });
});

describe('POST /auth/refresh', () => {
  it('rotates a refresh token sent in the body', async () => {
    const site = await createTestSite(service, 'auth');
    const first = await login(site);
    const rotated = await refreshWith(site, first);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.refreshToken).not.toBe(first.body.data.refreshToken);
    expect(rotated.body.data.user.id).toBe(site.adminUserId);
    expect(cookieHeader(rotated)).toBe(`svc_refresh=${rotated.body.data.refreshToken}`);
    const me = await service.request('GET', '/auth/me', { site: site.siteId, token: rotated.body.data.token });
    expect(me.status).toBe(200);
  });

  it('rotates the refresh cookie when the X-Svc-Refresh header is present', async () => {
    const site = await createTestSite(service, 'auth');
    const first = await login(site);
    const rotated = await service.request('POST', '/auth/refresh', {
      site: site.siteId,
      headers: { cookie: cookieHeader(first), 'x-svc-refresh': '1' },
    });
    expect(rotated.status).toBe(200);
    expect(cookieHeader(rotated)).not.toBe(cookieHeader(first));
  });

  it('refuses a cookie-sourced refresh without X-Svc-Refresh with 403, and rotates nothing', async () => {
    const site = await createTestSite(service, 'auth');
    const first = await login(site);
    const before = await sessionEvents(site.siteId, first.body.data.refreshToken);
    const refused = await service.request('POST', '/auth/refresh', { site: site.siteId, headers: { cookie: cookieHeader(first) } });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toMatchObject({ code: 'PERMISSION_DENIED', path: ['headers', 'x-svc-refresh'] });
    expect(await sessionEvents(site.siteId, first.body.data.refreshToken)).toEqual(before);
    const stillValid = await refreshWith(site, first);
    expect(stillValid.status).toBe(200);
  });

  it('answers 400 when no refresh token is presented at all, and 401 for a malformed one', async () => {
    const site = await createTestSite(service, 'auth');
    const none = await service.request('POST', '/auth/refresh', { site: site.siteId });
    expect(none.status).toBe(400);
    expect(none.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'refreshToken'] });
    const malformed = await service.request('POST', '/auth/refresh', { site: site.siteId, body: { refreshToken: 'not-a-refresh-token' } });
    expect(malformed.status).toBe(401);
  });

  it('revokes the whole family when an already rotated token is presented: the newest token fails too', async () => {
    const site = await createTestSite(service, 'auth');
    const first = await login(site);
    const second = await refreshWith(site, first);
    expect(second.status).toBe(200);

    const replayed = await refreshWith(site, first);
    expect(replayed.status).toBe(401);
    expect(replayed.body.errors[0].code).toBe('UNAUTHENTICATED');
    const newest = await refreshWith(site, second);
    expect(newest.status).toBe(401);
    expect((await sessionEvents(site.siteId, first.body.data.refreshToken)).map((event) => event.reason ?? event.type)).toEqual([
      'session.started',
      'session.refreshed',
      'token_reuse',
    ]);
  });
});

describe('POST /auth/logout', () => {
  it('revokes the session and clears the cookie', async () => {
    const site = await createTestSite(service, 'auth');
    const signedIn = await login(site);
    const loggedOut = await logoutWith(site, signedIn);
    expect(loggedOut.status).toBe(204);
    expect(refreshCookie(loggedOut)).toMatch(/^svc_refresh=;.*(Max-Age=0|Expires=Thu, 01 Jan 1970)/);
    const refreshed = await refreshWith(site, signedIn);
    expect(refreshed.status).toBe(401);
    expect((await sessionEvents(site.siteId, signedIn.body.data.refreshToken)).at(-1)).toEqual({ type: 'session.revoked', reason: 'logout' });
  });

  it('needs X-Svc-Refresh for a cookie-sourced logout', async () => {
    const site = await createTestSite(service, 'auth');
    const signedIn = await login(site);
    const refused = await service.request('POST', '/auth/logout', { site: site.siteId, headers: { cookie: cookieHeader(signedIn) } });
    expect(refused.status).toBe(403);
    const accepted = await service.request('POST', '/auth/logout', {
      site: site.siteId,
      headers: { cookie: cookieHeader(signedIn), 'x-svc-refresh': '1' },
    });
    expect(accepted.status).toBe(204);
    expect((await refreshWith(site, signedIn)).status).toBe(401);
  });
});

describe('access tokens', () => {
  it('are refused on another site with 401', async () => {
    const [siteA, siteB] = await Promise.all([createTestSite(service, 'auth'), createTestSite(service, 'auth')]);
    const response = await service.request('GET', '/auth/me', { site: siteB.siteId, token: siteA.adminToken });
    expect(response.status).toBe(401);
    expect(response.body.errors[0].code).toBe('UNAUTHENTICATED');
  });

  it('stop working when the user tokenVersion changes (a password change)', async () => {
    const site = await createTestSite(service, 'auth');
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: site.adminToken })).status).toBe(200);
    await changePasswordAsSystem(service, site.siteId, site.adminUserId, 'the new password 42');
    const old = await service.request('GET', '/auth/me', { site: site.siteId, token: site.adminToken });
    expect(old.status).toBe(401);
    expect(old.body.errors[0].code).toBe('UNAUTHENTICATED');
    expect((await login(site)).status).toBe(401);
    const fresh = await login(site, 'the new password 42');
    expect(fresh.status).toBe(200);
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: fresh.body.data.token })).status).toBe(200);
  });

  it('answers 401 TOKEN_EXPIRED for an expired token, and 401 for a missing, malformed or forged one', async () => {
    const site = await createTestSite(service, 'auth');
    const expiredIssuer = createAccessTokenIssuer(service.context.config.SVC_SECRET, -60);
    const { token: expired } = await expiredIssuer.issue({ siteId: site.siteId, userId: site.adminUserId, sessionId: null, tokenVersion: 0, realm: 'studio' });
    const expiredAnswer = await service.request('GET', '/auth/me', { site: site.siteId, token: expired });
    expect(expiredAnswer.status).toBe(401);
    expect(expiredAnswer.body.errors[0].code).toBe('TOKEN_EXPIRED');

    const forgedIssuer = createAccessTokenIssuer('another-secret-that-is-long-enough-000000', 900);
    const { token: forged } = await forgedIssuer.issue({ siteId: site.siteId, userId: site.adminUserId, sessionId: null, tokenVersion: 0, realm: 'studio' });
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: forged })).status).toBe(401);
    expect((await service.request('GET', '/auth/me', { site: site.siteId })).status).toBe(401);
    const malformed = await service.request('GET', '/auth/me', { site: site.siteId, headers: { authorization: `Token ${site.adminToken}` } });
    expect(malformed.status).toBe(401);
    expect(malformed.body.errors[0].code).toBe('UNAUTHENTICATED');
  });
});
