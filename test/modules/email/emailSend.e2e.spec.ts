// Sending a site's email through a real SMTP relay (docs/email.md "Sending"): transactional messages
// delivered while the request waits, each recipient's outcome from the relay's answer, the degraded
// mode without SMTP_URL, test sends, the messages list and who may send. Marketing: emailMarketing.
import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createMember } from '../access/support.ts';
import { createRole } from '../identity/support/identity.ts';
import { addressOf, expectRefusal, isSettled, sendHelpers, startSendingServiceForFile, type Message } from './support/sendHarness.ts';
import { startSmtpSinkForFile } from './support/smtpSink.ts';

const sink = await startSmtpSinkForFile();
const service = await startSendingServiceForFile(sink);
const { newSite, createTemplate, createNewsletter, send, waitForMessage } = sendHelpers(service, sink);
const unconfigured = await startTestServiceForFile();

const FEATURES = ['layouts', 'templates', 'versions', 'marketing', 'one-click-unsubscribe', 'suppressions', 'delivery-status'];

describe('email capabilities', () => {
  it('say whether SMTP is configured, the transport, the From address and the features', async () => {
    const site = await newSite();
    const configured = await site.admin('GET', '/email/capabilities');
    expect(configured.status).toBe(200);
    expect(configured.body.data).toMatchObject({ configured: true, transport: 'smtp', from: expect.stringContaining('no-reply@localhost') });
    expect(configured.body.data.features).toEqual(expect.arrayContaining(FEATURES));

    const elsewhere = await newSite(unconfigured);
    const degraded = await elsewhere.admin('GET', '/email/capabilities');
    expect(degraded.status).toBe(200);
    expect(degraded.body.data).toMatchObject({ configured: false, transport: null, from: null });
  });
});

describe('transactional sends', () => {
  it('deliver one message to every to and cc address, in the layout, escaped, with a derived text part', async () => {
    const site = await newSite();
    const layout = await site.admin('POST', '/email/layouts', { name: 'Shell', html: '<div class="shell">{{content}}</div><footer>{{ site }}</footer>' });
    await createTemplate(site, {
      key: 'receipt',
      subject: 'Receipt for {{ name }}',
      html: '<p>Thanks {{ name }}</p>',
      layoutId: layout.body.data.id,
      variables: ['name'],
    });
    const buyer = addressOf(site, 'buyer');
    const accounts = addressOf(site, 'accounts');
    const message = await send(site, { to: [` ${buyer.toUpperCase()} `], cc: [accounts], templateKey: 'receipt', variables: { name: '<b>Ada</b>', site: 'Acme' } }, 200);
    expect(message).toMatchObject({
      category: 'transactional',
      templateKey: 'receipt',
      templateVersion: 1,
      test: false,
      status: 'completed',
      counts: { recipients: 2, queued: 0, sent: 2, deferred: 0, bounced: 0, failed: 0, skipped: 0 },
      skipped: { suppressed: 0, noConsent: 0, restricted: 0 },
    });
    expect(message.completedAt).not.toBeNull();

    // Delivered while the request waited: already at the relay, as one message.
    const received = sink.messages.filter((mail) => mail.envelopeTo.includes(buyer));
    expect(received).toHaveLength(1);
    const mail = received[0]!;
    expect(mail.envelopeTo.sort()).toEqual([accounts, buyer].sort());
    expect(mail.rawHeaders.get('to')?.[0]).toContain(buyer);
    expect(mail.rawHeaders.get('cc')?.[0]).toContain(accounts);
    expect(mail.subject).toBe('Receipt for <b>Ada</b>');
    expect(mail.html).toContain('<div class="shell"><p>Thanks &lt;b&gt;Ada&lt;/b&gt;</p></div>');
    expect(mail.html).toContain('<footer>Acme</footer>');
    expect(mail.html).not.toContain('<b>Ada</b>');
    expect(mail.hasTextPart).toBe(true);
    expect(mail.text).toContain('Thanks <b>Ada</b>');
    expect(mail.listUnsubscribe).toBeNull();
    expect(mail.listUnsubscribePost).toBeNull();
    expect(mail.messageId).toBeTruthy();

    // A send names the version it used.
    const templates = await site.admin('GET', '/email/templates');
    await site.admin('PATCH', `/email/templates/${templates.body.data[0].id}`, { subject: 'Your receipt, {{ name }}' });
    const again = await send(site, { to: [buyer], templateKey: 'receipt', variables: { name: 'Ada' } }, 200);
    expect(again.templateVersion).toBe(2);
    expect(sink.messagesTo(buyer).map((received) => received.subject)).toContain('Your receipt, Ada');
  });

  it('deliver an inline message (text only, or html only) with the variables rendered', async () => {
    const site = await newSite();
    const reader = addressOf(site, 'reader');
    const textOnly = await send(site, { to: [reader], replyTo: addressOf(site, 'support'), inline: { subject: 'Code {{ code }}', text: 'Your code is {{ code }}' }, variables: { code: 42 } }, 200);
    expect(textOnly).toMatchObject({ category: 'transactional', templateKey: null, templateId: null, templateVersion: null, status: 'completed', counts: { recipients: 1, sent: 1 } });
    const htmlOnly = await send(site, { to: [reader], inline: { subject: 'Second', html: '<p>Hi {{ who }}</p>' }, variables: { who: '<i>you</i>' } }, 200);
    expect(htmlOnly.status).toBe('completed');

    const [first, second] = sink.messagesTo(reader);
    expect(first).toMatchObject({ subject: 'Code 42', html: null });
    expect(first!.text.trim()).toBe('Your code is 42');
    expect(first!.rawHeaders.get('reply-to')?.[0]).toContain(addressOf(site, 'support'));
    expect(second!.subject).toBe('Second');
    expect(second!.html).toContain('<p>Hi &lt;i&gt;you&lt;/i&gt;</p>');
    expect(second!.hasTextPart).toBe(true);
  });

  it('carry a variable with line breaks in the subject as one line: no header is injected', async () => {
    const site = await newSite();
    await createTemplate(site, { key: 'hello', subject: 'Hello {{ name }}', text: 'Hi' });
    const reader = addressOf(site, 'reader');
    const evil = addressOf(site, 'evil');
    await send(site, { to: [reader], templateKey: 'hello', variables: { name: `Ada\r\nBcc: ${evil}\r\nX-Injected: yes` } }, 200);
    const [mail] = sink.messagesTo(reader);
    expect(mail!.envelopeTo).toEqual([reader]);
    expect(mail!.rawHeaders.has('bcc')).toBe(false);
    expect(mail!.rawHeaders.has('x-injected')).toBe(false);
    expect(mail!.subject).toContain('Hello Ada');
    expect(sink.messagesTo(evil)).toHaveLength(0);
  });

  it('drop repeated addresses after normalizing them', async () => {
    const site = await newSite();
    const reader = addressOf(site, 'twice');
    const message = await send(site, { to: [reader, ` ${reader.toUpperCase()}`], cc: [reader], inline: { subject: 'Once', text: 'once' } }, 200);
    expect(message.counts.recipients).toBe(1);
    expect(sink.messagesTo(reader)).toHaveLength(1);
    expect(sink.messagesTo(reader)[0]!.envelopeTo).toEqual([reader]);
  });

  it('reach a suppressed address', async () => {
    const site = await newSite();
    const suppressed = addressOf(site, 'suppressed');
    expect((await site.admin('POST', '/email/suppressions', { email: suppressed })).status).toBe(201);
    const message = await send(site, { to: [suppressed], inline: { subject: 'Your password reset', text: 'Reset it' } }, 200);
    expect(message).toMatchObject({ status: 'completed', counts: { sent: 1, skipped: 0 } });
    expect(sink.messagesTo(suppressed).map((mail) => mail.subject)).toEqual(['Your password reset']);
  });

  it('record a recipient the relay refused with a 5xx as bounced (and suppressed), the others as sent', async () => {
    const site = await newSite();
    const good = addressOf(site, 'good');
    const gone = addressOf(site, 'gone');
    sink.refuse(gone, 550);
    try {
      const message = await send(site, { to: [good, gone], inline: { subject: 'Partial', text: 'x' } }, 200);
      expect(message).toMatchObject({ status: 'completed', counts: { recipients: 2, sent: 1, bounced: 1 } });
    } finally {
      sink.accept(gone);
    }
    expect(sink.messagesTo(good)).toHaveLength(1);
    expect(sink.messagesTo(gone)).toHaveLength(0);
    const suppressions = await site.admin('GET', `/email/suppressions?email=${encodeURIComponent(gone)}`);
    expect(suppressions.body.data).toEqual([expect.objectContaining({ email: gone, reason: 'bounce' })]);
  });
});

describe('what a send refuses', () => {
  it('takes exactly one of templateKey and inline', async () => {
    const site = await newSite();
    await createTemplate(site, { key: 'welcome', text: 'Welcome' });
    const to = [addressOf(site, 'x')];
    expectRefusal(await site.admin('POST', '/email/send', { to, templateKey: 'welcome', inline: { subject: 'S', text: 'T' } }), 400, 'VALIDATION_FAILED', ['body', 'inline']);
    expectRefusal(await site.admin('POST', '/email/send', { to }), 400, 'VALIDATION_FAILED', ['body', 'templateKey']);
    expectRefusal(await site.admin('POST', '/email/send', { to, inline: { subject: 'No body' } }), 400, 'VALIDATION_FAILED');
    expectRefusal(await site.admin('POST', '/email/send', { to, templateKey: 'unknown' }), 400, 'VALIDATION_FAILED', ['body', 'templateKey']);
    expectRefusal(await site.admin('POST', '/email/send', { to, inline: { subject: 'Line\nBcc: x@example.test', text: 'T' } }), 400, 'VALIDATION_FAILED');
    expect(sink.messagesTo(to[0]!)).toHaveLength(0);
  });

  it('validates the addresses and the number of recipients', async () => {
    const site = await newSite();
    const inline = { subject: 'S', text: 'T' };
    const valid = addressOf(site, 'valid');
    expectRefusal(await site.admin('POST', '/email/send', { to: [valid, 'not an address'], inline }), 400, 'VALIDATION_FAILED', ['body', 'to', 1]);
    expectRefusal(await site.admin('POST', '/email/send', { to: [valid], cc: ['nope@'], inline }), 400, 'VALIDATION_FAILED', ['body', 'cc', 0]);
    expectRefusal(await site.admin('POST', '/email/send', { to: [valid], replyTo: 'nope', inline }), 400, 'VALIDATION_FAILED', ['body', 'replyTo']);
    expectRefusal(await site.admin('POST', '/email/send', { to: [], inline }), 400, 'VALIDATION_FAILED', ['body', 'to']);
    const many = (count: number, prefix: string) => Array.from({ length: count }, (_, index) => addressOf(site, `${prefix}${index}`));
    expectRefusal(await site.admin('POST', '/email/send', { to: many(51, 'to'), inline }), 400, 'VALIDATION_FAILED');
    expectRefusal(await site.admin('POST', '/email/send', { to: many(30, 'to'), cc: many(21, 'cc'), inline }), 400, 'VALIDATION_FAILED');
    await createNewsletter(site);
    expectRefusal(await site.admin('POST', '/email/send', { to: [valid], cc: [addressOf(site, 'copy')], templateKey: 'newsletter' }), 400, 'VALIDATION_FAILED', ['body', 'cc']);
    expectRefusal(await site.admin('POST', '/email/send', { to: many(10_001, 'm'), templateKey: 'newsletter' }), 400, 'VALIDATION_FAILED');
    expect(sink.messagesTo(valid)).toHaveLength(0);
    expect((await site.admin('GET', '/email/messages')).body.meta.total).toBe(0);
  });

  it('refuses a send that lacks a declared variable with 400 at body.variables.<name>', async () => {
    const site = await newSite();
    await createTemplate(site, { key: 'reset', text: 'Reset: {{ link }}', variables: ['link'] });
    const to = [addressOf(site, 'forgetful')];
    expectRefusal(await site.admin('POST', '/email/send', { to, templateKey: 'reset' }), 400, 'VALIDATION_FAILED', ['body', 'variables', 'link']);
    expect(sink.messagesTo(to[0]!)).toHaveLength(0);
  });

  it('answers 503 EMAIL_NOT_CONFIGURED without SMTP_URL, after checking the body, and records nothing', async () => {
    const site = await newSite(unconfigured);
    await createTemplate(site, { key: 'welcome', text: 'Welcome' });
    await site.admin('POST', '/email/templates', { key: 'news', category: 'marketing', subject: 'News', text: 'News' });
    const to = [addressOf(site, 'nobody')];
    expectRefusal(await site.admin('POST', '/email/send', { to: ['bad'], templateKey: 'welcome' }), 400, 'VALIDATION_FAILED', ['body', 'to', 0]);
    expectRefusal(await site.admin('POST', '/email/send', { to, templateKey: 'welcome' }), 503, 'EMAIL_NOT_CONFIGURED');
    expectRefusal(await site.admin('POST', '/email/send', { to, templateKey: 'news' }), 503, 'EMAIL_NOT_CONFIGURED');
    expectRefusal(await site.admin('POST', '/email/send', { to, inline: { subject: 'S', text: 'T' } }), 503, 'EMAIL_NOT_CONFIGURED');
    expectRefusal(await site.admin('POST', '/email/test', {}), 503, 'EMAIL_NOT_CONFIGURED');
    const listed = await site.admin('GET', '/email/messages');
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ data: [], meta: { total: 0 } });
    // Templates and previews still work.
    expect((await site.admin('POST', '/email/templates/welcome/preview', {})).status).toBe(200);
  });

  for (const stage of ['rcpt', 'data'] as const) {
    it(`answers 502 DELIVERY_FAILED when the relay refuses the message (554 at ${stage}), and records the send as failed`, async () => {
      const site = await newSite();
      const to = [addressOf(site, 'one'), addressOf(site, 'two')];
      sink.refuseAll(554, stage);
      try {
        expectRefusal(await site.admin('POST', '/email/send', { to, inline: { subject: 'Lost', text: 'x' } }), 502, 'DELIVERY_FAILED');
      } finally {
        sink.acceptAll();
      }
      expect(sink.messagesTo(to[0]!)).toHaveLength(0);
      const listed = await site.admin('GET', '/email/messages');
      expect(listed.body.data).toHaveLength(1);
      expect(listed.body.data[0]).toMatchObject({ category: 'transactional', status: 'failed', counts: { recipients: 2, sent: 0 } });
      expect((await site.admin('GET', '/email/messages?status=failed')).body.data).toEqual(listed.body.data);
    });
  }
});

describe('test sends', () => {
  it('send to the caller’s own address: a built-in message, or a template marked [test], unfiltered', async () => {
    const site = await newSite();
    const builtIn = await site.admin('POST', '/email/test', {});
    expect(builtIn.status, JSON.stringify(builtIn.body)).toBe(200);
    expect(builtIn.body.data).toMatchObject({ test: true, status: 'completed', counts: { recipients: 1, sent: 1 } });
    expect(sink.messagesTo(site.adminEmail)).toHaveLength(1);

    // The administrator never gave marketing consent: a test send is not filtered.
    await createNewsletter(site);
    const templated = await site.admin('POST', '/email/test', { templateKey: 'newsletter', variables: { site: 'Acme' } });
    expect(templated.status, JSON.stringify(templated.body)).toBe(200);
    expect(templated.body.data).toMatchObject({ test: true, templateKey: 'newsletter', status: 'completed', counts: { sent: 1, skipped: 0 } });
    const mails = sink.messagesTo(site.adminEmail);
    expect(mails).toHaveLength(2);
    expect(mails[1]!.subject).toContain('[test]');
    expect(mails[1]!.subject).toContain('News of Acme');

    expectRefusal(await site.admin('POST', '/email/test', { templateKey: 'unknown' }), 400, 'VALIDATION_FAILED', ['body', 'templateKey']);
  });

  it('refuse an API key bound to a role: it has no address of its own', async () => {
    const site = await newSite();
    const roleId = await createRole(service, site.siteId, { admin: true });
    const created = await site.admin('POST', '/api-keys', { name: 'automation', roleId });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const key = created.body.data.key;
    expect((await site.as(key, 'GET', '/email/capabilities')).status).toBe(200);
    expectRefusal(await site.as(key, 'POST', '/email/test', {}), 400, 'VALIDATION_FAILED');
    expect((await site.admin('GET', '/email/messages')).body.meta.total).toBe(0);
  });
});

describe('the messages list', () => {
  it('filters by status and category, newest first, and shows nothing of another site', async () => {
    const site = await newSite();
    const other = await newSite();
    await createNewsletter(site);
    const first = await send(site, { to: [addressOf(site, 'a')], inline: { subject: 'One', text: '1' } }, 200);
    const marketing = await send(site, { to: [addressOf(site, 'b')], templateKey: 'newsletter' }, 202);
    await waitForMessage(site, marketing.id, isSettled);
    const listed = await site.admin('GET', '/email/messages');
    expect(listed.body.data.map((message: Message) => message.id)).toEqual([marketing.id, first.id]);
    expect((await site.admin('GET', '/email/messages?category=transactional')).body.data.map((message: Message) => message.id)).toEqual([first.id]);
    expect((await site.admin('GET', '/email/messages?status=completed&limit=1&page=2')).body).toMatchObject({ meta: { total: 2, page: 2, pageSize: 1 } });

    expect((await other.admin('GET', '/email/messages')).body).toMatchObject({ data: [], meta: { total: 0 } });
    expectRefusal(await other.admin('GET', `/email/messages/${first.id}`), 404, 'NOT_FOUND');
    expectRefusal(await other.admin('GET', `/email/messages/${first.id}/recipients`), 404, 'NOT_FOUND');
    expectRefusal(await site.admin('GET', '/email/messages/not-a-uuid'), 404, 'NOT_FOUND');
  });
});

describe('who may send', () => {
  it('refuses a caller without credentials (401) and a user who is not an administrator (403)', async () => {
    const site = await newSite();
    const member = await createMember(service, site);
    const to = [addressOf(site, 'target')];
    const calls: [string, string, unknown?][] = [
      ['GET', '/email/capabilities'],
      ['POST', '/email/send', { to, inline: { subject: 'S', text: 'T' } }],
      ['POST', '/email/test', {}],
      ['GET', '/email/messages'],
    ];
    for (const [method, path, body] of calls) {
      expectRefusal(await site.as(null, method, path, body), 401, 'UNAUTHENTICATED');
      expectRefusal(await site.as(member.token, method, path, body), 403, 'PERMISSION_DENIED');
    }
    expect(sink.messagesTo(to[0]!)).toHaveLength(0);
    expect(sink.messagesTo(member.email)).toHaveLength(0);
  });
});
