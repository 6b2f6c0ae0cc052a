// The email area attacked as a hostile reviewer would (docs/email.md; docs/security.md "Site email"):
// template injection and unbounded renders, header and SMTP injection, escaping, forged unsubscribe
// tokens, tenancy, authorization and malformed input. A refused request leaves the site's log as it
// was. A passing test guards a defence; a failing one pins a bug (its name says what the contract wants).
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, describe, expect, it } from 'vitest';
import type { AppError } from '../../../domain/shared/appError.ts';
import { deriveKey } from '../../../infra/crypto/secrets.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { Principal } from '../../../src/auth/principal.ts';
import { createEmailKeys } from '../../../src/modules/email/addresses.ts';
import { createTestSite, INSTANCE_TOKEN, startTestServiceForFile, type TestResponse } from '../../support/testService.ts';
import { withHelpers, type AccessSite } from '../access/support.ts';
import { createMember, createRole } from '../identity/support/identity.ts';

/** A message as the relay took it: its envelope, and its header names as a mail client reads them. */
type Relayed = { envelopeTo: string[]; headerNames: string[]; subject: string; html: string | null };

/** A relay that takes every message but refuses `refused-*` addresses with a 550 naming the address, as Postfix answers. */
async function startEchoingRelay(): Promise<{ url: string; messages: Relayed[] }> {
  const messages: Relayed[] = [];
  const server = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS', 'AUTH'], logger: false, closeTimeout: 1_000,
    onRcptTo({ address }, _session, callback) {
      if (!address.toLowerCase().startsWith('refused-')) return callback();
      callback(Object.assign(new Error(`5.1.1 <${address}>: Recipient address rejected: User unknown`), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(({ subject, html, headerLines }) => {
        const envelopeTo = session.envelope.rcptTo.map((recipient) => recipient.address.toLowerCase());
        messages.push({ envelopeTo, headerNames: headerLines.map((line) => line.key), subject: subject ?? '', html: html || null });
        callback();
      }, callback);
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, messages };
}

const relay = await startEchoingRelay();
const service = await startTestServiceForFile({ SMTP_URL: relay.url, SVC_PUBLIC_URL: 'https://cms.example.test' });
const secret = service.context.config.SVC_SECRET;
const keys = createEmailKeys(secret);
const commands = service.context.commands;

const newSite = async (): Promise<AccessSite> => withHelpers(service, await createTestSite(service, 'atk'));
const addressOf = (site: AccessSite, local: string) => `${local}@${site.siteId}.test`;
const relayedTo = (address: string) => relay.messages.filter((message) => message.envelopeTo.includes(address));
const adminPrincipal = (site: AccessSite): Principal => ({ kind: 'user', userId: site.adminUserId, roleId: null, admin: true, sessionId: null, via: 'session', realm: 'studio' });
type Call = [method: string, path: string, body?: unknown];

function expectError(response: TestResponse, status: number, code: string, path?: (string | number)[]): void {
  expect(response.status, JSON.stringify(response.body).slice(0, 400)).toBe(status);
  expect(response.body.errors[0].code).toBe(code);
  if (path) expect(response.body.errors[0].path).toEqual(path);
}

/** The number of events in the site's log: a refused request adds none. */
async function logLength(siteId: string): Promise<number> {
  const [row] = await service.context.database.withSite(siteId, (tx) => tx.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM events WHERE site_id = ${siteId}`));
  return row!.n;
}

const suppressionsOf = async (site: AccessSite): Promise<string[]> => (await site.admin('GET', '/email/suppressions')).body.data.map((row: { email: string }) => row.email);

async function created(response: Promise<TestResponse>): Promise<TestResponse['body']> {
  const answer = await response;
  expect([200, 201], JSON.stringify(answer.body).slice(0, 400)).toContain(answer.status);
  return answer.body.data;
}

/** A layout, a template in it, a suppression and a sent message: something of each kind to reach for. */
async function seed(site: AccessSite) {
  const layout = await created(site.admin('POST', '/email/layouts', { name: 'Shell', html: '<html><body>{{ content }}</body></html>' }));
  const template = await created(site.admin('POST', '/email/templates', { key: 'receipt', subject: 'Receipt', html: '<p>Thanks</p>', layoutId: layout.id }));
  const { email: suppressed } = await created(site.admin('POST', '/email/suppressions', { email: addressOf(site, 'quiet') }));
  const message = await created(site.admin('POST', '/email/send', { to: [addressOf(site, 'buyer')], templateKey: 'receipt' }));
  return { layoutId: layout.id as string, templateId: template.id as string, key: 'receipt', suppressed, messageId: message.id as string };
}

describe('template injection', () => {
  it('reaches no JavaScript through properties, prototype keys or unknown filters', async () => {
    const site = await newSite();
    const subject = '[{{ email.constructor }}][{{ x.constructor.constructor }}][{{ x.__proto__ }}]';
    const html = '<p>{{ x.constructor.name }}|{{ x.hasOwnProperty }}|{{ email.size }}|{{ constructor }}|{{ toString }}</p>';
    await created(site.admin('POST', '/email/templates', { key: 'probe', subject, html, text: '{{ x.valueOf }}{{ unsubscribeUrl.constructor }}' }));
    const preview = await site.admin('POST', '/email/templates/probe/preview', { variables: { x: { a: 1 }, constructor: 'own', toString: 'mine' } });
    expect(preview.body.data).toMatchObject({ subject: '[][][]', html: '<p>||21|own|mine</p>', text: '' });
    for (const rawBody of ['{"variables":{"__proto__":{"polluted":true}}}', '{"variables":{"constructor":{"prototype":{"polluted":true}}}}']) {
      const refused = await service.request('POST', '/email/templates/probe/preview', { site: site.siteId, token: site.adminToken, rawBody });
      expectError(refused, 400, 'VALIDATION_FAILED', ['body']);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    for (const [part, source] of [['subject', '{{ "" | constructor }}'], ['html', '{{ "PATH" | env }}'], ['text', '{{ "/etc/passwd" | read_file }}']] as const) {
      expectError(await site.admin('POST', '/email/templates', { key: `filter-${part}`, subject: 'ok', text: 'ok', [part]: source }), 400, 'VALIDATION_FAILED', ['body', part]);
    }
  });

  it('reads no file: include, render and layout with absolute and relative paths are 400 at save, and an inline send reads none', async () => {
    const site = await newSite();
    const before = await logLength(site.siteId);
    const tags = [`{% include '/etc/passwd' %}`, `{% include '../../../../etc/passwd' %}`, `{% render 'package.json' %}`, `{% render '/etc/hostname' %}`, `{% layout '/etc/passwd' %}`];
    for (const tag of tags) {
      expectError(await site.admin('POST', '/email/templates', { key: 'inc', subject: 's', html: `<p>${tag}</p>` }), 400, 'VALIDATION_FAILED', ['body', 'html']);
      expectError(await site.admin('POST', '/email/templates', { key: 'inc', subject: 's', text: tag }), 400, 'VALIDATION_FAILED', ['body', 'text']);
    }
    const reader = addressOf(site, 'reader');
    const inline = await site.admin('POST', '/email/send', { to: [reader], inline: { subject: 's', html: '{% include file %}' }, variables: { file: '/etc/passwd' } });
    expectError(inline, 400, 'VALIDATION_FAILED', ['body', 'inline', 'html']);
    expect(await logLength(site.siteId)).toBe(before);
    expect(relayedTo(reader)).toEqual([]);
  });

  it('refuses at save an include in a layout, or in a branch the check with no variables does not take (docs: 400 at save)', async () => {
    const site = await newSite();
    const layout = await site.admin('POST', '/email/layouts', { name: 'Leaky', html: `<html>{% include '/etc/passwd' %}{{ content }}</html>` });
    const template = await site.admin('POST', '/email/templates', { key: 'hidden', subject: 's', html: `{% if leak %}{% include '/etc/passwd' %}{% endif %}<p>hi</p>` });
    expect([layout, template].map((saved) => [saved.status, saved.body.errors?.[0].path])).toEqual([[400, ['body', 'html']], [400, ['body', 'html']]]);
  });

  it('escapes every output of the HTML part and of the layout (echo and cycle too); the text part stays plain', async () => {
    const site = await newSite();
    const layout = await created(site.admin('POST', '/email/layouts', { name: 'L', html: '<html><title>{{ site }}</title><body data-site="{{ site }}">{{ content }}</body></html>' }));
    const html = '<p title="{{ name }}">{{ name }}</p>{% echo name %}{% cycle name, "b" %}{% liquid echo name %}{{ name | upcase }}';
    await created(site.admin('POST', '/email/templates', { key: 'xss', subject: 'Hi {{ name }}', html, text: '{{ name }}', layoutId: layout.id }));
    const variables = { name: '<script>alert(1)</script>', site: '"><img src=x onerror=alert(1)>' };
    const preview = await site.admin('POST', '/email/templates/xss/preview', { variables });
    const reader = addressOf(site, 'reader');
    await created(site.admin('POST', '/email/send', { to: [reader], templateKey: 'xss', variables }));
    for (const rendered of [preview.body.data.html as string, relayedTo(reader)[0]!.html!]) {
      expect(rendered).not.toMatch(/<script|<img/i);
      expect(rendered).toContain('<body data-site="&#34;&gt;&lt;img src=x onerror=alert(1)&gt;"><p title="&lt;script&gt;alert(1)&lt;/script&gt;">');
    }
    expect(preview.body.data.text).toBe('<script>alert(1)</script>');
  });
});

describe('unbounded renders', () => {
  it('refuses loops past the time or memory bound with 400 while the service keeps answering', async () => {
    const site = await newSite();
    const sources = [
      '{% for i in (1..100000000) %}x{% endfor %}', '{% assign s = "xxxxxxxx" %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}',
      '{% capture s %}x{% endcapture %}{% for i in (1..40) %}{% capture s %}{{ s }}{{ s }}{% endcapture %}{% endfor %}', `${'{% if true %}'.repeat(15_000)}x${'{% endif %}'.repeat(15_000)}`,
    ];
    for (const html of sources) expectError(await site.admin('POST', '/email/templates', { key: 'bomb', subject: 's', html }), 400, 'VALIDATION_FAILED', ['body', 'html']);
    const cube = '{% for a in list %}{% for b in list %}{% for c in list %}{{ c }}{% endfor %}{% endfor %}{% endfor %}';
    await created(site.admin('POST', '/email/templates', { key: 'cube', subject: 's', text: cube, variables: ['list'] }));
    const list = Array.from({ length: 2_000 }, (_, index) => index);
    const before = await logLength(site.siteId);
    const [preview, send, capabilities] = await Promise.all([
      site.admin('POST', '/email/templates/cube/preview', { variables: { list } }),
      site.admin('POST', '/email/send', { to: [addressOf(site, 'reader')], templateKey: 'cube', variables: { list } }),
      site.admin('GET', '/email/capabilities'),
    ]);
    expectError(preview, 400, 'VALIDATION_FAILED', ['body', 'variables']);
    expectError(send, 400, 'VALIDATION_FAILED', ['body', 'templateKey']);
    expect(capabilities.status).toBe(200);
    expect(await logLength(site.siteId)).toBe(before);
  });

  it('refuses output past the bound, at save and in a preview (docs: about 10 MB of output per render, beyond 400)', async () => {
    const site = await newSite();
    const constant = `{% for i in (1..300) %}<p>${'x'.repeat(190_000)}</p>{% endfor %}`; // 57 MB
    const saved = await site.admin('POST', '/email/templates', { key: 'huge', subject: 's', html: constant, text: 'short' });
    const html = `{% for i in (1..copies) %}<p>${'y'.repeat(190_000)}</p>{% endfor %}`;
    await created(site.admin('POST', '/email/templates', { key: 'grow', subject: 's', html, text: 'short', variables: ['copies'] }));
    const preview = await site.admin('POST', '/email/templates/grow/preview', { variables: { copies: 100 } }); // 19 MB
    expect([saved, preview].map((answer) => [answer.status, answer.body.errors?.[0].path])).toEqual([[400, ['body', 'html']], [400, ['body', 'variables']]]);
  });
});

describe('header and SMTP injection', () => {
  it('adds no header and no recipient through a variable in the subject, whatever the line break', async () => {
    const site = await newSite();
    const [reader, evil] = [addressOf(site, 'reader'), addressOf(site, 'evil')];
    await created(site.admin('POST', '/email/templates', { key: 'hello', subject: 'Hi {{ name }}', html: '<p>{{ name }}</p>' }));
    const names = [`a\r\nBcc: ${evil}`, `a\nBcc: ${evil}`, `a\rBcc: ${evil}`, `a\u2028Bcc: ${evil}`, `a\u0085Bcc: ${evil}`, `a\u000bBcc: ${evil}\u000cX-Injected: 1`, `a\r\n\r\nX-Injected: 1`];
    for (const name of names) await created(site.admin('POST', '/email/send', { to: [reader], templateKey: 'hello', variables: { name } }));
    const injected = (message: Relayed) => message.headerNames.filter((name) => ['bcc', 'x-injected'].includes(name));
    expect(relayedTo(reader).map((message) => [message.envelopeTo, injected(message)])).toEqual(names.map(() => [[reader], []]));
    expect(relayedTo(evil)).toEqual([]);
  });

  it('refuses line breaks and lists in addresses, replyTo and the inline subject, recording nothing', async () => {
    const site = await newSite();
    const [reader, evil] = [addressOf(site, 'reader'), addressOf(site, 'evil')];
    const inline = { subject: 'Hi', text: 'x' };
    const before = await logLength(site.siteId);
    for (const address of [`${reader}\r\nBcc: ${evil}`, `${reader},${evil}`, `${reader};${evil}`, `"x" <${evil}>`, `<${reader}>`, `${reader}\u0000`, `${reader}\nRCPT TO:<${evil}>`]) {
      expectError(await site.admin('POST', '/email/send', { to: [address], inline }), 400, 'VALIDATION_FAILED', ['body', 'to', 0]);
      expectError(await site.admin('POST', '/email/send', { to: [reader], cc: [address], inline }), 400, 'VALIDATION_FAILED', ['body', 'cc', 0]);
      expectError(await site.admin('POST', '/email/send', { to: [reader], replyTo: address, inline }), 400, 'VALIDATION_FAILED', ['body', 'replyTo']);
    }
    const subject = await site.admin('POST', '/email/send', { to: [reader], inline: { subject: `Hi\r\nBcc: ${evil}`, text: 'x' } });
    expectError(subject, 400, 'VALIDATION_FAILED', ['body', 'inline', 'subject']);
    expect(await logLength(site.siteId)).toBe(before);
    expect([...relayedTo(reader), ...relayedTo(evil)]).toEqual([]);
  });

  it('keeps a text part that looks like the end of DATA inside its one message (no SMTP smuggling)', async () => {
    const site = await newSite();
    const [reader, evil] = [addressOf(site, 'reader'), addressOf(site, 'evil')];
    const smuggled = `MAIL FROM:<boss@${site.siteId}.test>\r\nRCPT TO:<${evil}>\r\nDATA\r\nSubject: smuggled\r\n\r\nowned`;
    for (const end of ['\r\n.\r\n', '\n.\n', '\r\n.\n', '\n.\r\n', '\r.\r']) {
      await created(site.admin('POST', '/email/send', { to: [reader], inline: { subject: 'Body', text: 'hi{{ body }}' }, variables: { body: `${end}${smuggled}${end}` } }));
    }
    // One more message through the same pool: a smuggled one would have been read before it.
    await created(site.admin('POST', '/email/send', { to: [reader], inline: { subject: 'After', text: 'after' } }));
    expect(relayedTo(reader)).toHaveLength(6);
    expect(relayedTo(evil)).toEqual([]);
    expect(relay.messages.filter((message) => message.subject === 'smuggled')).toEqual([]);
  });

  it('keeps the relay’s answer from carrying a refused address in clear into the log and the messages routes', async () => {
    const site = await newSite();
    const refused = addressOf(site, 'refused-bob');
    expectError(await site.admin('POST', '/email/send', { to: [refused], inline: { subject: 'Hi', text: 'x' } }), 502, 'DELIVERY_FAILED');
    const [message] = (await site.admin('GET', '/email/messages')).body.data;
    const recipients = await site.admin('GET', `/email/messages/${message.id}/recipients`);
    expect(recipients.body.data).toEqual([expect.objectContaining({ status: 'bounced' })]);
    const sendEvents = await service.context.database.withSite(site.siteId, (tx) => tx.query(sql`SELECT data FROM events WHERE site_id = ${site.siteId} AND type LIKE 'email_send.%'`));
    expect(JSON.stringify({ message, recipients: recipients.body, sendEvents })).not.toContain(refused);
  });
});

describe('unsubscribe tokens', () => {
  const tokenKey = deriveKey(secret, 'email-unsubscribe-token');
  const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const sign = (claims: Record<string, unknown>, key: Uint8Array, alg = 'HS256') => new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).setIssuedAt().sign(key);
  const oneClick = (query: string, form?: string) =>
    service.request('POST', `/email/unsubscribe${query}`, form === undefined ? {} : { rawBody: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } });

  function expectErrorPage(response: TestResponse): void {
    expect([response.status, response.headers.get('content-type')?.split(';')[0]]).toEqual([400, 'text/html']);
    expect(String(response.body)).not.toMatch(/<script|alert\(/);
  }

  it('refuses forged tokens (alg none, SVC_SECRET itself, another purpose or algorithm, expired, edited) and suppresses nothing', async () => {
    const site = await newSite();
    const victim = addressOf(site, 'victim');
    const claims = { sid: site.siteId, email: victim, purpose: 'email-unsubscribe' };
    const genuine = await keys.unsubscribeToken(site.siteId, victim);
    const [header, , signature] = genuine.split('.');
    const forged = [
      `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims)}.`,
      await sign(claims, new TextEncoder().encode(secret)),
      await sign({ ...claims, purpose: 'password-reset' }, tokenKey),
      await sign(claims, new Uint8Array([...tokenKey, ...tokenKey]), 'HS512'),
      await sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 60 }, tokenKey),
      `${header}.${base64url({ ...claims, email: addressOf(site, 'other') })}.${signature}`,
    ];
    const before = await logLength(site.siteId);
    for (const token of forged) {
      expectErrorPage(await service.request('GET', `/email/unsubscribe?token=${encodeURIComponent(token)}`));
      expectError(await oneClick(`?token=${encodeURIComponent(token)}`), 400, 'VALIDATION_FAILED', ['query', 'token']);
      expectError(await oneClick('', `List-Unsubscribe=One-Click&token=${encodeURIComponent(token)}`), 400, 'VALIDATION_FAILED', ['body', 'token']);
    }
    expect(await logLength(site.siteId)).toBe(before);
    expect(await suppressionsOf(site)).toEqual([]);
    // The genuine token of the same claims works: the forged ones were refused for their forgery.
    expect((await oneClick(`?token=${genuine}`)).status).toBe(200);
    expect(await suppressionsOf(site)).toEqual([victim]);
  });

  it('suppresses nothing for a token of a deleted site, and names the query as the token’s place', async () => {
    const site = await newSite();
    const token = await keys.unsubscribeToken(site.siteId, addressOf(site, 'gone'));
    expect((await service.request('DELETE', `/instance/sites/${site.siteId}`, { token: INSTANCE_TOKEN })).status).toBe(204);
    const before = await logLength(site.siteId);
    expectErrorPage(await service.request('GET', `/email/unsubscribe?token=${token}`));
    expectError(await oneClick(`?token=${token}`), 400, 'VALIDATION_FAILED', ['query', 'token']);
    expect(await logLength(site.siteId)).toBe(before);
  });

  it('answers the HTML error page under a strict CSP without reflecting a hostile token', async () => {
    expectErrorPage(await service.request('GET', `/email/unsubscribe?token=${encodeURIComponent('<script>alert(1)</script>')}`));
    expectErrorPage(await service.request('GET', '/email/unsubscribe'));
    expectErrorPage(await service.request('GET', '/email/unsubscribe?token[]=x'));
    expect((await service.request('GET', '/email/unsubscribe?token=x')).headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('answers the HTML error page, not JSON, on GET for a token that is too long or repeated', async () => {
    expectErrorPage(await service.request('GET', `/email/unsubscribe?token=${'a'.repeat(3_000)}`));
    expectErrorPage(await service.request('GET', '/email/unsubscribe?token=a&token=b'));
  });

  it('takes the one-click token only as one string: arrays, numbers, JSON posted as a form and repeats are refused', async () => {
    const site = await newSite();
    const token = await keys.unsubscribeToken(site.siteId, addressOf(site, 'victim'));
    const before = await logLength(site.siteId);
    expectError(await service.request('POST', '/email/unsubscribe', { body: { token: [token] } }), 400, 'VALIDATION_FAILED', ['body', 'token']);
    expectError(await service.request('POST', '/email/unsubscribe', { body: { token: 5 } }), 400, 'VALIDATION_FAILED', ['body', 'token']);
    expectError(await oneClick('', JSON.stringify({ token })), 400, 'VALIDATION_FAILED', ['body', 'token']);
    expectError(await oneClick(`?token=${token}&token=${token}`), 400, 'VALIDATION_FAILED', ['query', 'token']);
    expectError(await oneClick('', `List-Unsubscribe=One-Click&token=${token}&pad=${'x'.repeat(5_000)}`), 413, 'PAYLOAD_TOO_LARGE');
    expect(await logLength(site.siteId)).toBe(before);
    expect(await suppressionsOf(site)).toEqual([]);
  });

  it('through the registry, a token of site A run in site B suppresses nothing in either', async () => {
    const [a, b] = [await newSite(), await newSite()];
    const token = await keys.unsubscribeToken(a.siteId, addressOf(a, 'victim'));
    const refused = await commands.run('email.unsubscribe', { token, method: 'one_click' }, { siteId: b.siteId, principal: { kind: 'anonymous' } }).catch((error: AppError) => error);
    expect(refused).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect([...(await suppressionsOf(a)), ...(await suppressionsOf(b))]).toEqual([]);
  });
});

describe('tenancy and authorization', () => {
  it('answers 404 to every route that names another site’s layout, template, message or suppression, and changes nothing', async () => {
    const [a, b] = [await newSite(), await newSite()];
    const { layoutId, templateId, key, suppressed, messageId } = await seed(a);
    const before = await logLength(a.siteId);
    const probes: Call[] = [
      ['GET', `/email/layouts/${layoutId}`], ['PATCH', `/email/layouts/${layoutId}`, { name: 'Taken' }], ['DELETE', `/email/layouts/${layoutId}`],
      ['GET', `/email/templates/${templateId}`], ['PATCH', `/email/templates/${templateId}`, { subject: 'Taken' }], ['DELETE', `/email/templates/${templateId}`],
      ['GET', `/email/templates/${templateId}/versions`], ['POST', `/email/templates/${key}/preview`, {}],
      ['GET', `/email/messages/${messageId}`], ['GET', `/email/messages/${messageId}/recipients`], ['DELETE', `/email/suppressions/${encodeURIComponent(suppressed)}`],
    ];
    for (const [method, path, body] of probes) expectError(await b.admin(method, path, body), 404, 'NOT_FOUND');
    expectError(await b.admin('POST', '/email/send', { to: [addressOf(b, 'x')], templateKey: key }), 400, 'VALIDATION_FAILED', ['body', 'templateKey']);
    expectError(await b.admin('POST', '/email/templates', { key: 'mine', subject: 's', text: 't', layoutId }), 400, 'VALIDATION_FAILED', ['body', 'layoutId']);
    for (const list of ['/email/layouts', '/email/templates', '/email/messages', '/email/suppressions', `/email/suppressions?email=${encodeURIComponent(suppressed)}`]) {
      expect((await b.admin('GET', list)).body.meta.total, list).toBe(0);
    }
    expect(await logLength(a.siteId)).toBe(before);
    expect((await a.admin('GET', `/email/templates/${templateId}`)).body.data).toMatchObject({ subject: 'Receipt', version: 1 });
    expect(await suppressionsOf(a)).toEqual([suppressed]);
  });

  it('refuses every admin route to the anonymous, a member, a role-bound key and another site’s administrator, writing nothing', async () => {
    const site = await newSite();
    const { layoutId, templateId, key, suppressed, messageId } = await seed(site);
    const member = await createMember(service, site);
    const roleKey = await created(site.admin('POST', '/api-keys', { name: 'reader', roleId: await createRole(service, site.siteId, { admin: false }) }));
    const stranger = await createTestSite(service, 'atk');
    const reader = addressOf(site, 'reader');
    const routes: Call[] = [
      ['GET', '/email/capabilities'], ['GET', '/email/layouts'], ['POST', '/email/layouts', { name: 'L', html: '{{ content }}' }],
      ['GET', `/email/layouts/${layoutId}`], ['PATCH', `/email/layouts/${layoutId}`, { name: 'M' }], ['DELETE', `/email/layouts/${layoutId}`],
      ['GET', '/email/templates'], ['POST', '/email/templates', { key: 'other', subject: 's', text: 't' }], ['GET', `/email/templates/${templateId}`],
      ['PATCH', `/email/templates/${templateId}`, { subject: 'z' }], ['DELETE', `/email/templates/${templateId}`], ['GET', `/email/templates/${templateId}/versions`],
      ['POST', `/email/templates/${key}/preview`, {}], ['POST', '/email/send', { to: [reader], inline: { subject: 's', text: 't' } }], ['POST', '/email/test', {}],
      ['GET', '/email/messages'], ['GET', `/email/messages/${messageId}`], ['GET', `/email/messages/${messageId}/recipients`],
      ['GET', '/email/suppressions'], ['POST', '/email/suppressions', { email: reader }], ['DELETE', `/email/suppressions/${encodeURIComponent(suppressed)}`],
    ];
    const callers: [string, string | null, number][] = [['anonymous', null, 401], ['member', member.token, 403], ['role-bound key', roleKey.key, 403], ['another site’s admin', stranger.adminToken, 401]];
    const before = await logLength(site.siteId);
    const relayed = relay.messages.length;
    for (const [who, token, status] of callers) {
      for (const [method, path, body] of routes) expect((await site.as(token, method, path, body)).status, `${who} ${method} ${path}`).toBe(status);
    }
    expect(await logLength(site.siteId)).toBe(before);
    expect(relay.messages.length).toBe(relayed);
  });

  it('through the registry, the admin commands refuse a non-admin principal, the instance and the anonymous', async () => {
    const site = await newSite();
    const member = await createMember(service, site);
    const reader = addressOf(site, 'reader');
    const memberPrincipal: Principal = { kind: 'user', userId: member.userId, roleId: null, admin: false, sessionId: null, via: 'session', realm: 'studio' };
    const calls: [string, unknown][] = [
      ['email.send', { to: [reader], inline: { subject: 's', text: 't' } }], ['email.sendTest', {}], ['email.suppress', { email: reader }],
      ['email.unsuppress', { email: reader }], ['email.createTemplate', { key: 'k', subject: 's', text: 't' }], ['email.createLayout', { name: 'L', html: '{{ content }}' }],
    ];
    const refusals = [[memberPrincipal, 'PERMISSION_DENIED'], [{ kind: 'instance' }, 'PERMISSION_DENIED'], [{ kind: 'anonymous' }, 'UNAUTHENTICATED']] as const;
    const before = await logLength(site.siteId);
    for (const [name, input] of calls) {
      for (const [principal, code] of refusals) {
        const refused = await commands.run(name, input, { siteId: site.siteId, principal }).catch((error: AppError) => error);
        expect(refused, `${name} as ${principal.kind}`).toMatchObject({ code });
      }
    }
    expect(await logLength(site.siteId)).toBe(before);
    expect(relayedTo(reader)).toEqual([]);
  });

  it('through the registry, variables nested past 64 levels are refused as the route refuses them (docs: at most 64)', async () => {
    const site = await newSite();
    const reader = addressOf(site, 'reader');
    const deep = Array.from({ length: 100 }).reduce<Record<string, unknown>>((inner) => ({ next: inner }), { leaf: 'x' });
    const input = { to: [reader], inline: { subject: 's', text: 't' }, variables: { deep } };
    expectError(await site.admin('POST', '/email/send', input), 400, 'VALIDATION_FAILED', ['body']);
    const before = await logLength(site.siteId);
    const refused = await commands.run('email.send', input, { siteId: site.siteId, principal: adminPrincipal(site) }).catch((error: AppError) => error);
    expect(refused).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect((refused as AppError).path.slice(0, 2)).toEqual(['body', 'variables']);
    expect(await logLength(site.siteId)).toBe(before);
    expect(relayedTo(reader)).toEqual([]);
  });
});

describe('bad input', () => {
  it('refuses wrong types, unknown keys and oversize lists at their path, and a 10 MB body with 413, recording nothing', async () => {
    const site = await newSite();
    const reader = addressOf(site, 'reader');
    const inline = { subject: 's', text: 't' };
    const many = (count: number) => Array.from({ length: count }, (_, index) => addressOf(site, `r${index}`));
    const cases: [...Call, (string | number)[]][] = [
      ['POST', '/email/layouts', { name: 'L', html: '{{ content }}', script: 'x' }, ['body']], ['POST', '/email/templates', { key: 'ok', subject: 5, text: 't' }, ['body', 'subject']],
      ['POST', '/email/templates', { key: 'Bad Key', subject: 's', text: 't' }, ['body', 'key']],
      ['POST', '/email/templates', { key: 'ok', subject: 's', text: 't', variables: ['ok', '1bad'] }, ['body', 'variables', 1]],
      ['POST', '/email/templates', { key: 'ok', subject: 's', text: 't', category: 'spam' }, ['body', 'category']], ['POST', '/email/send', { to: reader, inline }, ['body', 'to']],
      ['POST', '/email/send', { to: [reader], inline, variables: [] }, ['body', 'variables']], ['POST', '/email/send', { to: [reader], inline, variables: 'x' }, ['body', 'variables']],
      ['POST', '/email/send', { to: [reader], inline: { ...inline, attachments: ['/etc/passwd'] } }, ['body', 'inline']],
      ['POST', '/email/send', { to: many(10_001), templateKey: 'news' }, ['body', 'to']], ['POST', '/email/send', { to: many(51), inline }, ['body', 'to']],
      ['POST', '/email/suppressions', { email: reader, reason: 'r'.repeat(501) }, ['body', 'reason']], ['POST', '/email/templates/any/preview', { version: 1.5 }, ['body', 'version']],
      ['GET', '/email/messages?status=sent', undefined, ['query', 'status']], ['GET', '/email/suppressions?email=nope', undefined, ['query', 'email']],
      ['GET', '/email/layouts?limit=201', undefined, ['query', 'limit']],
    ];
    const before = await logLength(site.siteId);
    for (const [method, path, body, where] of cases) expectError(await site.admin(method, path, body), 400, 'VALIDATION_FAILED', where);
    expectError(await site.admin('POST', '/email/send', { to: [reader], inline: { subject: 's', text: 'x'.repeat(10_000_000) } }), 413, 'PAYLOAD_TOO_LARGE', ['body']);
    expect(await logLength(site.siteId)).toBe(before);
    expect(relayedTo(reader)).toEqual([]);
  });

  it('answers 404, never 500, to ids that are not UUIDs and addresses that are not suppressed', async () => {
    const site = await newSite();
    const before = await logLength(site.siteId);
    const probes: Call[] = [
      ['GET', '/email/layouts/not-a-uuid'], ['PATCH', '/email/layouts/not-a-uuid', { name: 'x' }], ['DELETE', `/email/layouts/${encodeURIComponent("1' OR '1'='1")}`],
      ['PATCH', '/email/templates/not-a-uuid', { subject: 'x' }], ['DELETE', '/email/templates/not-a-uuid'],
      ['GET', '/email/templates/not-a-uuid/versions'], ['GET', '/email/messages/not-a-uuid'], ['GET', '/email/messages/not-a-uuid/recipients'],
      ['POST', '/email/templates/no-such-key/preview', {}], ['DELETE', '/email/suppressions/not-an-email'], ['DELETE', `/email/suppressions/${encodeURIComponent(addressOf(site, 'never'))}`],
    ];
    for (const [method, path, body] of probes) expectError(await site.admin(method, path, body), 404, 'NOT_FOUND');
    // Text PostgreSQL cannot store is refused at its path before any route reads it (docs/architecture.md).
    expectError(await site.admin('GET', '/email/templates/%00'), 400, 'VALIDATION_FAILED', ['params', 'id']);
    expect(await logLength(site.siteId)).toBe(before);
  });

  it('answers 400 at body.version, not 500, to a preview of a version past the integer range', async () => {
    const site = await newSite();
    await created(site.admin('POST', '/email/templates', { key: 'v', subject: 's', text: 't' }));
    for (const version of [2 ** 31, Number.MAX_SAFE_INTEGER]) expectError(await site.admin('POST', '/email/templates/v/preview', { version }), 400, 'VALIDATION_FAILED', ['body', 'version']);
  });

  it('re-subscribes a valid address longer than the router’s path parameter limit (DELETE /email/suppressions/:email)', async () => {
    const site = await newSite();
    const long = `${'a'.repeat(60)}@${'b'.repeat(60)}.${site.siteId}.test`;
    expect((await site.admin('POST', '/email/suppressions', { email: long })).status).toBe(201);
    expect((await site.admin('DELETE', `/email/suppressions/${encodeURIComponent(long)}`)).status).toBe(204);
    expect(await suppressionsOf(site)).toEqual([]);
  });
});
