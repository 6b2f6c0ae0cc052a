// Credential checks are cached per instance (src/auth/identityChecks.ts): a logout refuses its access
// token, and a revocation or a role change reaches an API key, at once on the instance that served
// it and on another instance as soon as the svc_identity NOTIFY arrives there.
import { describe, expect, it } from 'vitest';
import { IDENTITY_CHANNEL } from '../../../projections/usersProjection.ts';
import { createTestSite, startTestServiceForFile, type TestService } from '../../support/testService.ts';

const first = await startTestServiceForFile();
const second = await startTestServiceForFile();

function heardOn(service: TestService, siteId: string): Promise<void> {
  return new Promise((resolve) => {
    const stop = service.context.notifier.on(IDENTITY_CHANNEL, (payload) => {
      if (payload !== siteId) return;
      stop();
      resolve();
    });
  });
}

describe('cached token checks', () => {
  it('refuse a logged-out session on this instance at once and on another once it hears of it', async () => {
    const site = await createTestSite(first, 'tok');
    const login = await first.request('POST', '/auth/login', { site: site.siteId, body: { email: site.adminEmail, password: site.adminPassword } });
    const { token, refreshToken } = login.body.data;
    // Both instances have checked (and cached) the token.
    expect((await first.request('GET', '/auth/me', { site: site.siteId, token })).status).toBe(200);
    expect((await second.request('GET', '/auth/me', { site: site.siteId, token })).status).toBe(200);

    const heard = heardOn(second, site.siteId);
    expect((await first.request('POST', '/auth/logout', { site: site.siteId, body: { refreshToken } })).status).toBe(204);
    const refusedHere = await first.request('GET', '/auth/me', { site: site.siteId, token });
    expect(refusedHere.status).toBe(401);
    expect(refusedHere.body.errors[0].code).toBe('UNAUTHENTICATED');

    await heard;
    expect((await second.request('GET', '/auth/me', { site: site.siteId, token })).status).toBe(401);
    // Another session of the same user is untouched.
    expect((await second.request('GET', '/auth/me', { site: site.siteId, token: site.adminToken })).status).toBe(200);
  });

  it('refuse a revoked API key, and follow its role, on this instance at once and on another once it hears of it', async () => {
    const site = await createTestSite(first, 'key');
    const admin = { site: site.siteId, token: site.adminToken };
    const role = await first.request('POST', '/roles', { ...admin, body: { name: 'ops', admin: true } });
    const created = await first.request('POST', '/api-keys', { ...admin, body: { name: 'ci', roleId: role.body.data.id } });
    const asKey = { site: site.siteId, token: created.body.data.key as string };
    // Both instances have checked (and cached) the key as an administrator's.
    expect((await first.request('GET', '/users', asKey)).status).toBe(200);
    expect((await second.request('GET', '/users', asKey)).status).toBe(200);

    let heard = heardOn(second, site.siteId);
    expect((await first.request('PATCH', `/roles/${role.body.data.id}`, { ...admin, body: { admin: false } })).status).toBe(200);
    expect((await first.request('GET', '/users', asKey)).status).toBe(403);
    await heard;
    expect((await second.request('GET', '/users', asKey)).status).toBe(403);

    heard = heardOn(second, site.siteId);
    expect((await first.request('DELETE', `/api-keys/${created.body.data.id}`, admin)).status).toBe(204);
    const refusedHere = await first.request('GET', '/items/none', asKey);
    expect([refusedHere.status, refusedHere.body.errors[0].code]).toEqual([401, 'UNAUTHENTICATED']);
    await heard;
    expect((await second.request('GET', '/users', asKey)).status).toBe(401);
  });
});
