import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { auditActions, createMember, flushMail, signIn } from './support/identity.ts';
import { linkIn, startMailCaptureForFile } from './support/mailCapture.ts';

const mail = await startMailCaptureForFile();
const service = await startTestServiceForFile({ SMTP_URL: mail.url });

const newPassword = 'brand new password 99';

async function requestReset(siteId: string, email: string): Promise<string> {
  const response = await service.request('POST', '/auth/forgot-password', { site: siteId, body: { email } });
  expect(response.status).toBe(202);
  const message = await mail.waitFor(email, (candidate) => candidate.subject.includes('Reset') && !usedTokens.has(linkIn(candidate).token));
  const { token } = linkIn(message);
  usedTokens.add(token);
  return token;
}
const usedTokens = new Set<string>();

describe('forgot and reset password', () => {
  it('resets the password from the mailed link; old password, access and refresh tokens stop working', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const second = await signIn(service, site.siteId, member.email, member.password);
    const token = await requestReset(site.siteId, member.email);

    const reset = await service.request('POST', '/auth/reset-password', { site: site.siteId, body: { token, password: newPassword } });
    expect(reset.status).toBe(204);

    // tokenVersion moved: the access token dies at once.
    const me = await service.request('GET', '/auth/me', { site: site.siteId, token: member.token });
    expect(me.status).toBe(401);
    // Every refresh-token family was revoked.
    for (const refreshToken of [member.refreshToken, second.body.data.refreshToken]) {
      const refreshed = await service.request('POST', '/auth/refresh', { site: site.siteId, body: { refreshToken } });
      expect(refreshed.status).toBe(401);
    }
    expect((await signIn(service, site.siteId, member.email, member.password)).status).toBe(401);
    const fresh = await signIn(service, site.siteId, member.email, newPassword);
    expect(fresh.status).toBe(200);
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: fresh.body.data.token })).status).toBe(200);

    const entries = await auditActions(service, site, `&filter[actor][_eq]=${member.userId}`);
    const actions = entries.map((entry) => entry.action);
    expect(actions).toContain('user.password_changed');
    expect(actions.filter((action) => action === 'session.revoked')).toHaveLength(2);
  });

  it('keeps the refresh-token family rules after a reset: a rotated token of the new session revokes it', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const token = await requestReset(site.siteId, member.email);
    await service.request('POST', '/auth/reset-password', { site: site.siteId, body: { token, password: newPassword } });
    const login = await signIn(service, site.siteId, member.email, newPassword);
    const first = login.body.data.refreshToken;
    const rotated = await service.request('POST', '/auth/refresh', { site: site.siteId, body: { refreshToken: first } });
    expect(rotated.status).toBe(200);
    // Replaying the rotated token is reuse: the whole family, including the new token, is revoked.
    expect((await service.request('POST', '/auth/refresh', { site: site.siteId, body: { refreshToken: first } })).status).toBe(401);
    expect((await service.request('POST', '/auth/refresh', { site: site.siteId, body: { refreshToken: rotated.body.data.refreshToken } })).status).toBe(401);
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: rotated.body.data.token })).status).toBe(401);
  });

  it('uses a reset token once only', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const token = await requestReset(site.siteId, member.email);
    expect((await service.request('POST', '/auth/reset-password', { site: site.siteId, body: { token, password: newPassword } })).status).toBe(204);
    const again = await service.request('POST', '/auth/reset-password', { site: site.siteId, body: { token, password: 'yet another one 1' } });
    expect(again.status).toBe(400);
    expect(again.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'token'], extensions: { reason: 'used' } });
    expect((await signIn(service, site.siteId, member.email, newPassword)).status).toBe(200);
  });

  it('refuses a short new password without consuming the token', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const token = await requestReset(site.siteId, member.email);
    const short = await service.request('POST', '/auth/reset-password', { site: site.siteId, body: { token, password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'password'] });
    expect((await service.request('POST', '/auth/reset-password', { site: site.siteId, body: { token, password: newPassword } })).status).toBe(204);
  });

  it('refuses an invalid token and leaves the password alone', async () => {
    const site = await createTestSite(service);
    const response = await service.request('POST', '/auth/reset-password', {
      site: site.siteId,
      body: { token: `00000000-0000-4000-8000-000000000000.${'x'.repeat(43)}`, password: newPassword },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions.reason).toBe('invalid');
    expect((await signIn(service, site.siteId, site.adminEmail, site.adminPassword)).status).toBe(200);
  });

  it('answers 202 and sends nothing for an unknown address', async () => {
    const site = await createTestSite(service);
    const ghost = `ghost@${site.siteId}.test`;
    const unknown = await service.request('POST', '/auth/forgot-password', { site: site.siteId, body: { email: ghost } });
    const known = await service.request('POST', '/auth/forgot-password', { site: site.siteId, body: { email: site.adminEmail } });
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual(known.body);
    await flushMail(service);
    expect(mail.mailsTo(ghost)).toHaveLength(0);
    expect(mail.mailsTo(site.adminEmail)).toHaveLength(1);
  });

  it('refuses a malformed body with 400', async () => {
    const site = await createTestSite(service);
    const response = await service.request('POST', '/auth/forgot-password', { site: site.siteId, body: {} });
    expect(response.status).toBe(400);
    expect(response.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'email'] });
  });
});
