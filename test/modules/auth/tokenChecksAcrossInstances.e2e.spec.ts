// Token checks are cached per instance (src/auth/userAccessCache.ts): a logout refuses its access
// token at once on the instance that served it, and on another instance as soon as the svc_identity
// NOTIFY arrives there.
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
});
