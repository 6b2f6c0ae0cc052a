import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { auditActions, flushMail, signIn } from './support/identity.ts';
import { linkIn, startMailCaptureForFile } from './support/mailCapture.ts';

const mail = await startMailCaptureForFile();
const service = await startTestServiceForFile({ SMTP_URL: mail.url, SVC_PUBLIC_URL: 'https://studio.example.test/app' });

const password = 'a fine password 42';

describe('POST /auth/register', () => {
  it('creates an unverified subscriber, mails a link, and the link activates the account', async () => {
    const site = await createTestSite(service);
    const email = `New.Reader@${site.siteId}.test`;
    const registered = await service.request('POST', '/auth/register', { site: site.siteId, body: { email, password, firstName: 'New' } });
    expect(registered.status).toBe(202);
    expect(registered.body.data.message).toBeTypeOf('string');

    const message = await mail.waitFor(email.toLowerCase());
    expect(message.subject).toContain('Confirm your email');
    const link = linkIn(message);
    expect(link.url.origin + link.url.pathname).toBe('https://studio.example.test/app/auth/verify-email');
    expect(link.site).toBe(site.siteId);

    // Not verified yet: signing in is refused like a wrong password.
    expect((await signIn(service, site.siteId, email, password)).status).toBe(401);

    const verified = await service.request('POST', '/auth/verify-email', { site: site.siteId, body: { token: link.token } });
    expect(verified.status).toBe(204);
    const login = await signIn(service, site.siteId, email, password);
    expect(login.status).toBe(200);

    const users = await service.request('GET', `/users?search=new.reader`, { site: site.siteId, token: site.adminToken });
    expect(users.body.data).toHaveLength(1);
    const user = users.body.data[0];
    expect(user).toMatchObject({ email: email.toLowerCase(), status: 'active', emailVerified: true, firstName: 'New' });
    // The subscriber role was created on demand and is not an administrator role.
    expect(user.roleId).toBeTypeOf('string');
    const asSubscriber = await service.request('GET', '/users', { site: site.siteId, token: login.body.data.token });
    expect(asSubscriber.status).toBe(403);

    const actions = (await auditActions(service, site)).map((entry) => entry.action);
    expect(actions).toEqual(expect.arrayContaining(['role.created', 'user.created', 'email_token.issued', 'email_token.consumed', 'user.email_verified']));
  });

  it('answers the same 202 for an address that already has an account, creates nothing, and mails a notice', async () => {
    const site = await createTestSite(service);
    const before = await service.request('GET', '/users', { site: site.siteId, token: site.adminToken });
    const again = await service.request('POST', '/auth/register', { site: site.siteId, body: { email: site.adminEmail, password } });
    expect(again.status).toBe(202);
    const fresh = await service.request('POST', '/auth/register', { site: site.siteId, body: { email: `x@${site.siteId}.test`, password } });
    expect(again.body).toEqual(fresh.body);
    const notice = await mail.waitFor(site.adminEmail);
    expect(notice.subject).toContain('already have an account');
    expect(notice.text).not.toMatch(/token=/);
    const after = await service.request('GET', '/users', { site: site.siteId, token: site.adminToken });
    expect(after.body.meta.total).toBe(before.body.meta.total + 1);
    // The administrator's password is untouched.
    expect((await signIn(service, site.siteId, site.adminEmail, site.adminPassword)).status).toBe(200);
  });

  it('refuses a bad email or a short password with 400 and a path, creating nothing', async () => {
    const site = await createTestSite(service);
    const badEmail = await service.request('POST', '/auth/register', { site: site.siteId, body: { email: 'not-an-email', password } });
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'email'] });
    const shortPassword = await service.request('POST', '/auth/register', { site: site.siteId, body: { email: `s@${site.siteId}.test`, password: 'short' } });
    expect(shortPassword.status).toBe(400);
    expect(shortPassword.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'password'] });
    await flushMail(service);
    expect(mail.mailsTo(`s@${site.siteId}.test`)).toHaveLength(0);
    const users = await service.request('GET', '/users', { site: site.siteId, token: site.adminToken });
    expect(users.body.meta.total).toBe(1);
  });

  it('needs a site', async () => {
    const response = await service.request('POST', '/auth/register', { body: { email: 'a@b.test', password } });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].path).toEqual(['headers', 'x-svc-site']);
  });
});

describe('POST /auth/verify-email', () => {
  it('refuses a token used twice, a forged token and a malformed one', async () => {
    const site = await createTestSite(service);
    const email = `twice@${site.siteId}.test`;
    await service.request('POST', '/auth/register', { site: site.siteId, body: { email, password } });
    const { token } = linkIn(await mail.waitFor(email));
    expect((await service.request('POST', '/auth/verify-email', { site: site.siteId, body: { token } })).status).toBe(204);

    const reused = await service.request('POST', '/auth/verify-email', { site: site.siteId, body: { token } });
    expect(reused.status).toBe(400);
    expect(reused.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'token'], extensions: { reason: 'used' } });

    const forged = `${token.split('.')[0]}.${'A'.repeat(43)}`;
    const forgedResponse = await service.request('POST', '/auth/verify-email', { site: site.siteId, body: { token: forged } });
    expect(forgedResponse.status).toBe(400);
    expect(forgedResponse.body.errors[0].extensions.reason).toBe('invalid');

    const malformed = await service.request('POST', '/auth/verify-email', { site: site.siteId, body: { token: 'nope' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'token'] });

    const missing = await service.request('POST', '/auth/verify-email', { site: site.siteId, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].path).toEqual(['body', 'token']);
  });

  it('does not accept a token on another site', async () => {
    const site = await createTestSite(service);
    const other = await createTestSite(service);
    const email = `cross@${site.siteId}.test`;
    await service.request('POST', '/auth/register', { site: site.siteId, body: { email, password } });
    const { token } = linkIn(await mail.waitFor(email));
    const elsewhere = await service.request('POST', '/auth/verify-email', { site: other.siteId, body: { token } });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.errors[0].extensions.reason).toBe('invalid');
    expect((await service.request('POST', '/auth/verify-email', { site: site.siteId, body: { token } })).status).toBe(204);
  });

  it('does not accept a password-reset token', async () => {
    const site = await createTestSite(service);
    await service.request('POST', '/auth/forgot-password', { site: site.siteId, body: { email: site.adminEmail } });
    const { token } = linkIn(await mail.waitFor(site.adminEmail, (message) => message.subject.includes('Reset')));
    const wrongPurpose = await service.request('POST', '/auth/verify-email', { site: site.siteId, body: { token } });
    expect(wrongPurpose.status).toBe(400);
    expect(wrongPurpose.body.errors[0].extensions.reason).toBe('invalid');
  });
});

describe('POST /auth/resend-verification', () => {
  it('mails a new link to an unverified account, and the new link activates it', async () => {
    const site = await createTestSite(service);
    const email = `resend@${site.siteId}.test`;
    await service.request('POST', '/auth/register', { site: site.siteId, body: { email, password } });
    const first = linkIn(await mail.waitFor(email));
    const resent = await service.request('POST', '/auth/resend-verification', { site: site.siteId, body: { email: email.toUpperCase() } });
    expect(resent.status).toBe(202);
    const second = linkIn(await mail.waitFor(email, (message) => !message.text.includes(first.token)));
    expect(second.token).not.toBe(first.token);
    expect((await service.request('POST', '/auth/verify-email', { site: site.siteId, body: { token: second.token } })).status).toBe(204);
    expect((await signIn(service, site.siteId, email, password)).status).toBe(200);
  });

  it('answers 202 and sends nothing for an unknown or already active address', async () => {
    const site = await createTestSite(service);
    const unknown = await service.request('POST', '/auth/resend-verification', { site: site.siteId, body: { email: `ghost@${site.siteId}.test` } });
    const active = await service.request('POST', '/auth/resend-verification', { site: site.siteId, body: { email: site.adminEmail } });
    expect(unknown.status).toBe(202);
    expect(active.status).toBe(202);
    expect(unknown.body).toEqual(active.body);
    await flushMail(service);
    expect(mail.mailsTo(`ghost@${site.siteId}.test`)).toHaveLength(0);
    expect(mail.mailsTo(site.adminEmail)).toHaveLength(0);
  });

  it('refuses a malformed email with 400', async () => {
    const site = await createTestSite(service);
    const response = await service.request('POST', '/auth/resend-verification', { site: site.siteId, body: { email: 42 } });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].path).toEqual(['body', 'email']);
  });
});
