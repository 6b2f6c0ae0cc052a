// Unsubscribing and the suppression list (docs/email.md "Unsubscribe and suppression"): the token of a
// received marketing message's List-Unsubscribe link suppresses its address (link and RFC 8058
// one-click), a forged token suppresses nothing, administrators manage the list, and sites stay apart.
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createTestSite, INSTANCE_TOKEN, startTestServiceForFile, type TestResponse } from '../../support/testService.ts';
import { createMember, withHelpers, type AccessSite } from '../access/support.ts';
import { auditActions } from '../identity/support/identity.ts';
import { addressOf, expectRefusal } from './support/sendHarness.ts';
import { startSmtpSinkForFile, unsubscribeLinkOf } from './support/smtpSink.ts';

const sink = await startSmtpSinkForFile();
const service = await startTestServiceForFile({ SMTP_URL: sink.url, SVC_PUBLIC_URL: 'https://cms.example.test' });

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

async function newSite(): Promise<AccessSite> {
  return withHelpers(service, await createTestSite(service, 'unsub'));
}

/** Sends the site's newsletter to `address` and answers the token of the List-Unsubscribe link it received. */
async function receivedToken(site: AccessSite, address: string): Promise<string> {
  const existing = await site.admin('GET', '/email/templates?category=marketing');
  if (existing.body.meta.total === 0) {
    const created = await site.admin('POST', '/email/templates', {
      key: 'newsletter',
      category: 'marketing',
      subject: 'News',
      html: '<p>News</p><a href="{{ unsubscribeUrl }}">Unsubscribe</a>',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
  const sent = await site.admin('POST', '/email/send', { to: [address], templateKey: 'newsletter' });
  expect(sent.status, JSON.stringify(sent.body)).toBe(202);
  const [mail] = await sink.waitForCount(1, 20_000, (message) => message.envelopeTo.includes(address));
  return unsubscribeLinkOf(mail!).token;
}

const unsubscribeLink = (token: string, headers: Record<string, string> = {}) =>
  service.request('GET', `/email/unsubscribe?token=${encodeURIComponent(token)}`, { headers });
/** What a mail client does on one-click (RFC 8058): a POST to the header's URL with `List-Unsubscribe=One-Click`. */
const oneClick = (token: string) =>
  service.request('POST', `/email/unsubscribe?token=${encodeURIComponent(token)}`, { rawBody: 'List-Unsubscribe=One-Click', headers: FORM });
const oneClickInBody = (token: string) =>
  service.request('POST', '/email/unsubscribe', { rawBody: `List-Unsubscribe=One-Click&token=${encodeURIComponent(token)}`, headers: FORM });

async function suppressionsOf(site: AccessSite): Promise<{ email: string; reason: string }[]> {
  const listed = await site.admin('GET', '/email/suppressions');
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  return listed.body.data;
}

async function actionsOf(site: AccessSite, action: string): Promise<string[]> {
  return (await auditActions(service, site, `&filter[action][_eq]=${action}`)).map((entry) => entry.action);
}

function expectHtml(response: TestResponse, status: number): void {
  expect(response.status, String(response.body)).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  expect(typeof response.body).toBe('string');
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Tokens an attacker could make for `address` of `siteId`, and a real one with its payload changed. */
async function forgedTokens(siteId: string, address: string, genuine: string): Promise<Record<string, string>> {
  const claims = { sid: siteId, email: address, purpose: 'email-unsubscribe' };
  const otherSecret = new TextEncoder().encode('another-secret-that-is-long-enough-0123456789');
  const [header, , signature] = genuine.split('.');
  return {
    'another secret': await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt().sign(otherSecret),
    'alg none': `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims)}.`,
    HS512: await new SignJWT(claims).setProtectedHeader({ alg: 'HS512', typ: 'JWT' }).sign(otherSecret),
    garbage: 'not-a-token-at-all',
    'an edited payload': `${header}.${base64url({ ...claims, email: `victim-${address}` })}.${signature}`,
  };
}

describe('unsubscribing from a received marketing message', () => {
  it('by its link: an HTML confirmation, the address suppressed (reason unsubscribe), audited once', async () => {
    const site = await newSite();
    const reader = addressOf(site, 'reader');
    const token = await receivedToken(site, reader);

    const page = await unsubscribeLink(token);
    expectHtml(page, 200);
    expect(await suppressionsOf(site)).toEqual([expect.objectContaining({ email: reader, reason: 'unsubscribe', createdAt: expect.any(String) })]);
    expect(await actionsOf(site, 'email_unsubscribed')).toEqual(['email_unsubscribed']);

    // Following the link again confirms again and records nothing more.
    expectHtml(await unsubscribeLink(token), 200);
    expect(await suppressionsOf(site)).toHaveLength(1);
    expect(await actionsOf(site, 'email_unsubscribed')).toEqual(['email_unsubscribed']);

    // The next marketing send skips the address.
    const next = await site.admin('POST', '/email/send', { to: [reader], templateKey: 'newsletter' });
    expect(next.body.data).toMatchObject({ status: 'completed', skipped: { suppressed: 1 } });
  });

  it('by one-click POST, with the token in the query or in the form body', async () => {
    const site = await newSite();
    const first = addressOf(site, 'first');
    const second = addressOf(site, 'second');
    const firstToken = await receivedToken(site, first);
    const secondToken = await receivedToken(site, second);

    const byQuery = await oneClick(firstToken);
    expect(byQuery.status, JSON.stringify(byQuery.body)).toBe(200);
    expect(byQuery.body).toEqual({ data: { unsubscribed: true } });
    const byBody = await oneClickInBody(secondToken);
    expect(byBody.status, JSON.stringify(byBody.body)).toBe(200);
    expect(byBody.body).toEqual({ data: { unsubscribed: true } });

    const suppressed = await suppressionsOf(site);
    expect(suppressed.map((row) => [row.email, row.reason]).sort()).toEqual([
      [first, 'unsubscribe'],
      [second, 'unsubscribe'],
    ]);
    expect(await actionsOf(site, 'email_unsubscribed')).toEqual(['email_unsubscribed', 'email_unsubscribed']);
  });

  it('by a POST with the token in the query and no body at all', async () => {
    const site = await newSite();
    const reader = addressOf(site, 'bare');
    const token = await receivedToken(site, reader);
    const bare = await service.request('POST', `/email/unsubscribe?token=${encodeURIComponent(token)}`);
    expect(bare.status, JSON.stringify(bare.body)).toBe(200);
    expect(bare.body).toEqual({ data: { unsubscribed: true } });
    expect((await suppressionsOf(site)).map((row) => [row.email, row.reason])).toEqual([[reader, 'unsubscribe']]);
  });

  it('refuses forged tokens (GET: 400 HTML, POST: 400 VALIDATION_FAILED) and suppresses nothing', async () => {
    const site = await newSite();
    const reader = addressOf(site, 'target');
    const genuine = await receivedToken(site, reader);
    const forged = await forgedTokens(site.siteId, reader, genuine);
    for (const [name, token] of Object.entries(forged)) {
      const page = await unsubscribeLink(token);
      expect(page.status, name).toBe(400);
      expect(page.headers.get('content-type'), name).toMatch(/^text\/html/);
      const byQuery = await oneClick(token);
      expect(byQuery.status, name).toBe(400);
      expect(byQuery.body.errors[0], name).toMatchObject({ code: 'VALIDATION_FAILED', path: ['query', 'token'] });
      const byBody = await oneClickInBody(token);
      expect(byBody.status, name).toBe(400);
      expect(byBody.body.errors[0], name).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'token'] });
    }
    expect((await service.request('GET', '/email/unsubscribe')).status).toBe(400);
    expect((await service.request('POST', '/email/unsubscribe', { rawBody: 'List-Unsubscribe=One-Click', headers: FORM })).status).toBe(400);
    expect(await suppressionsOf(site)).toEqual([]);
    expect(await actionsOf(site, 'email_unsubscribed')).toEqual([]);
  });

  it('refuses the token of a deleted site', async () => {
    const site = await newSite();
    const token = await receivedToken(site, addressOf(site, 'late'));
    expect((await service.request('DELETE', `/instance/sites/${site.siteId}`, { token: INSTANCE_TOKEN })).status).toBeLessThan(300);
    expectHtml(await unsubscribeLink(token), 400);
    expectRefusal(await oneClick(token), 400, 'VALIDATION_FAILED', ['query', 'token']);
  });

  it('suppresses in the token’s site only, whatever site the request names', async () => {
    const siteA = await newSite();
    const siteB = await newSite();
    const reader = addressOf(siteA, 'reader');
    const token = await receivedToken(siteA, reader);
    await unsubscribeLink(token, { 'x-svc-site': siteB.siteId });
    await service.request('POST', `/email/unsubscribe?token=${encodeURIComponent(token)}`, {
      rawBody: 'List-Unsubscribe=One-Click',
      headers: { ...FORM, 'x-svc-site': siteB.siteId },
    });
    expect(await suppressionsOf(siteB)).toEqual([]);
    expectHtml(await unsubscribeLink(token), 200);
    expect((await suppressionsOf(siteA)).map((row) => row.email)).toEqual([reader]);
    expect(await suppressionsOf(siteB)).toEqual([]);
    expect(await actionsOf(siteB, 'email_unsubscribed')).toEqual([]);
  });
});

describe('the suppression list', () => {
  it('adds normalized addresses (201, then 200 with the existing row), lists them newest first, and re-subscribes', async () => {
    const site = await newSite();
    const added = await site.admin('POST', '/email/suppressions', { email: '  Foo@Example.COM ' });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body.data).toEqual({ email: 'foo@example.com', reason: 'manual', createdAt: expect.any(String) });
    const again = await site.admin('POST', '/email/suppressions', { email: 'foo@example.com', reason: 'another reason' });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(added.body.data);

    const plus = await site.admin('POST', '/email/suppressions', { email: 'A+B@Example.com', reason: 'Asked by phone' });
    expect(plus.status).toBe(201);
    expect(plus.body.data).toMatchObject({ email: 'a+b@example.com', reason: 'Asked by phone' });

    const listed = await site.admin('GET', '/email/suppressions');
    expect(listed.body.data.map((row: { email: string }) => row.email)).toEqual(['a+b@example.com', 'foo@example.com']);
    expect(listed.body.meta).toMatchObject({ total: 2, page: 1 });
    const one = await site.admin('GET', `/email/suppressions?email=${encodeURIComponent('foo@example.com')}`);
    expect(one.body.data).toEqual([added.body.data]);

    expect((await site.admin('DELETE', `/email/suppressions/${encodeURIComponent('a+b@example.com')}`)).status).toBe(204);
    expect((await site.admin('DELETE', `/email/suppressions/${encodeURIComponent('a+b@example.com')}`)).status).toBe(404);
    expect((await site.admin('DELETE', '/email/suppressions/foo%40example.com')).status).toBe(204);
    expectRefusal(await site.admin('DELETE', `/email/suppressions/${encodeURIComponent('never@example.com')}`), 404, 'NOT_FOUND');
    expect(await suppressionsOf(site)).toEqual([]);

    // Re-subscribed, then suppressed again: a new row.
    expect((await site.admin('POST', '/email/suppressions', { email: 'foo@example.com' })).status).toBe(201);

    expect(await actionsOf(site, 'email_suppressed')).toEqual(['email_suppressed', 'email_suppressed', 'email_suppressed']);
    expect(await actionsOf(site, 'email_unsuppressed')).toEqual(['email_unsuppressed', 'email_unsuppressed']);
  });

  it('refuses an invalid address or an over-long reason, and callers that are not administrators', async () => {
    const site = await newSite();
    expectRefusal(await site.admin('POST', '/email/suppressions', { email: 'not-an-address' }), 400, 'VALIDATION_FAILED', ['body', 'email']);
    expectRefusal(await site.admin('POST', '/email/suppressions', {}), 400, 'VALIDATION_FAILED', ['body', 'email']);
    expectRefusal(await site.admin('POST', '/email/suppressions', { email: 'ok@example.com', reason: 'x'.repeat(501) }), 400, 'VALIDATION_FAILED', [
      'body',
      'reason',
    ]);
    const member = await createMember(service, site);
    for (const [method, path, body] of [
      ['GET', '/email/suppressions'],
      ['POST', '/email/suppressions', { email: 'x@example.com' }],
      ['DELETE', '/email/suppressions/x%40example.com'],
    ] as [string, string, unknown?][]) {
      expectRefusal(await site.as(null, method, path, body), 401, 'UNAUTHENTICATED');
      expectRefusal(await site.as(member.token, method, path, body), 403, 'PERMISSION_DENIED');
    }
    expect(await suppressionsOf(site)).toEqual([]);
  });

  it('of one site is never seen, counted or changed from another', async () => {
    const siteA = await newSite();
    const siteB = await newSite();
    expect((await siteA.admin('POST', '/email/suppressions', { email: 'shared@example.com' })).status).toBe(201);
    expect(await suppressionsOf(siteB)).toEqual([]);
    expect((await siteB.admin('GET', '/email/suppressions?email=shared%40example.com')).body).toMatchObject({ data: [], meta: { total: 0 } });
    expectRefusal(await siteB.admin('DELETE', '/email/suppressions/shared%40example.com'), 404, 'NOT_FOUND');
    expect((await siteB.admin('POST', '/email/suppressions', { email: 'shared@example.com' })).status).toBe(201);
    expect((await suppressionsOf(siteA)).map((row) => row.email)).toEqual(['shared@example.com']);
  });
});
