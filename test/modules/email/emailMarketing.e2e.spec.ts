// Marketing sends through a real SMTP relay (docs/email.md "Sending"): queued one message per
// recipient with RFC 8058 headers, filtered (suppressions, consent, restriction), bounces and
// deferrals from the relay's answer, records that name recipients by hash only, and tenancy.
import { describe, expect, it } from 'vitest';
import { createMember } from '../access/support.ts';
import { auditActions } from '../identity/support/identity.ts';
import { addressOf, isSettled, PUBLIC_URL, sendHelpers, startSendingServiceForFile, type Message } from './support/sendHarness.ts';
import { startSmtpSinkForFile, unsubscribeLinkOf } from './support/smtpSink.ts';

const sink = await startSmtpSinkForFile();
const service = await startSendingServiceForFile(sink);
const { newSite, createNewsletter, send, waitForMessage, recipientsOf, waitForMessagesTo, grantMarketing } = sendHelpers(service, sink);

describe('marketing sends', () => {
  it('queue one message per recipient, each with RFC 8058 one-click unsubscribe headers, and complete', async () => {
    const site = await newSite();
    const template = await createNewsletter(site);
    const readers = ['ann', 'bob', 'cat'].map((local) => addressOf(site, local));
    const queued = await send(site, { to: readers, templateKey: 'newsletter', variables: { site: 'Acme' } }, 202);
    expect(queued).toMatchObject({ category: 'marketing', templateKey: 'newsletter', templateId: template.id, templateVersion: 1, status: 'queued' });
    expect(queued.counts).toMatchObject({ recipients: 3, skipped: 0 });

    const received = await waitForMessagesTo(readers, 3);
    expect(received.map((mail) => mail.envelopeTo)).toEqual(expect.arrayContaining(readers.map((reader) => [reader])));
    const tokens = new Set<string>();
    for (const mail of received) {
      const [reader] = mail.envelopeTo;
      expect(mail.subject).toBe('News of Acme');
      expect(mail.html).toContain(`News for ${reader}`);
      expect(mail.listUnsubscribe).toMatch(/^<https:\/\/cms\.example\.test\/api\/v1\/email\/unsubscribe\?token=[^>]+>,\s*<mailto:[^>]+>$/);
      expect(mail.listUnsubscribePost).toBe('List-Unsubscribe=One-Click');
      const link = unsubscribeLinkOf(mail);
      expect(link.url.origin).toBe(PUBLIC_URL);
      expect(link.mailto).toMatch(/^mailto:no-reply\+unsubscribe@localhost/);
      expect(mail.html).toContain(link.token);
      tokens.add(link.token);
    }
    expect(tokens.size, 'each recipient has its own link').toBe(3);

    const done = await waitForMessage(site, queued.id, isSettled);
    expect(done).toMatchObject({ status: 'completed', counts: { recipients: 3, queued: 0, sent: 3, deferred: 0, bounced: 0, failed: 0, skipped: 0 } });
    expect(done.completedAt).not.toBeNull();

    const recipients = await recipientsOf(site, queued.id);
    expect(recipients).toHaveLength(3);
    for (const recipient of recipients) {
      expect(recipient).toMatchObject({ status: 'sent', attempts: 1, messageId: expect.any(String) });
      expect(recipient.hash).toMatch(/^[A-Za-z0-9_-]{22}$/);
    }
    expect(new Set(recipients.map((recipient) => recipient.hash)).size).toBe(3);
    expect(await recipientsOf(site, queued.id, '?status=bounced')).toEqual([]);

    // The records name recipients by hash: no address in any answer of the messages routes.
    const answers = [
      await site.admin('GET', '/email/messages'),
      await site.admin('GET', `/email/messages/${queued.id}`),
      await site.admin('GET', `/email/messages/${queued.id}/recipients`),
      await site.admin('GET', '/email/messages?category=marketing'),
    ];
    for (const answer of answers) {
      const json = JSON.stringify(answer.body).toLowerCase();
      for (const reader of readers) expect(json).not.toContain(reader);
      expect(json).not.toContain(site.siteId + '.test');
    }
  });

  it('skip suppressed addresses, which transactional sends still reach', async () => {
    const site = await newSite();
    await createNewsletter(site);
    const suppressed = addressOf(site, 'suppressed');
    const reader = addressOf(site, 'reader');
    expect((await site.admin('POST', '/email/suppressions', { email: suppressed.toUpperCase() })).status).toBe(201);

    const queued = await send(site, { to: [suppressed, reader], templateKey: 'newsletter' }, 202);
    expect(queued).toMatchObject({ counts: { recipients: 1, skipped: 1 }, skipped: { suppressed: 1, noConsent: 0, restricted: 0 } });
    await waitForMessagesTo([reader], 1);
    expect(await waitForMessage(site, queued.id, isSettled)).toMatchObject({ status: 'completed', counts: { sent: 1, skipped: 1 } });
    expect(sink.messagesTo(suppressed)).toHaveLength(0);

    await send(site, { to: [suppressed], inline: { subject: 'Receipt', text: 'Paid' } }, 200);
    expect(sink.messagesTo(suppressed).map((mail) => mail.subject)).toEqual(['Receipt']);
  });

  it('complete at once when every recipient is skipped', async () => {
    const site = await newSite();
    await createNewsletter(site);
    const suppressed = addressOf(site, 'only');
    await site.admin('POST', '/email/suppressions', { email: suppressed });
    const message = await send(site, { to: [suppressed], templateKey: 'newsletter' }, 202);
    expect(message).toMatchObject({ status: 'completed', counts: { recipients: 0, skipped: 1 }, skipped: { suppressed: 1 } });
  });

  it('skip site users without marketing consent (never given or withdrawn) and with restricted processing', async () => {
    const site = await newSite();
    await createNewsletter(site);
    const consenting = await createMember(service, site);
    const neverAsked = await createMember(service, site);
    const withdrew = await createMember(service, site);
    const restricted = await createMember(service, site);
    await grantMarketing(site, consenting);
    await grantMarketing(site, withdrew);
    await grantMarketing(site, withdrew, false);
    await grantMarketing(site, restricted);
    const restriction = await site.as(restricted.token, 'PUT', '/me/restriction', { restricted: true });
    expect(restriction.status, JSON.stringify(restriction.body)).toBe(200);
    const stranger = addressOf(site, 'stranger');

    const to = [consenting.email.toUpperCase(), neverAsked.email, withdrew.email, restricted.email, stranger];
    const queued = await send(site, { to, templateKey: 'newsletter' }, 202);
    expect(queued).toMatchObject({ counts: { recipients: 2, skipped: 3 }, skipped: { suppressed: 0, noConsent: 2, restricted: 1 } });

    await waitForMessagesTo([consenting.email, stranger], 2);
    expect(await waitForMessage(site, queued.id, isSettled)).toMatchObject({ status: 'completed', counts: { sent: 2 } });
    for (const skipped of [neverAsked, withdrew, restricted]) expect(sink.messagesTo(skipped.email)).toHaveLength(0);
  });

  it('record a 5xx recipient as bounced and suppress it with reason bounce (audited)', async () => {
    const site = await newSite();
    await createNewsletter(site);
    const good = addressOf(site, 'good');
    const gone = addressOf(site, 'gone');
    sink.refuse(gone, 550);
    let done: Message;
    try {
      const queued = await send(site, { to: [good, gone], templateKey: 'newsletter' }, 202);
      done = await waitForMessage(site, queued.id, isSettled);
      expect(done).toMatchObject({ status: 'completed', counts: { recipients: 2, sent: 1, bounced: 1, queued: 0, deferred: 0 } });
    } finally {
      sink.accept(gone);
    }
    const bounced = await recipientsOf(site, done.id, '?status=bounced');
    expect(bounced).toHaveLength(1);
    expect(bounced[0]!.response).toContain('550');

    const suppressions = await site.admin('GET', '/email/suppressions');
    expect(suppressions.body.data).toEqual([expect.objectContaining({ email: gone, reason: 'bounce' })]);
    expect((await auditActions(service, site, '&filter[action][_eq]=email_suppressed')).map((entry) => entry.action)).toEqual(['email_suppressed']);

    // The next marketing send skips it.
    const next = await send(site, { to: [gone], templateKey: 'newsletter' }, 202);
    expect(next.skipped.suppressed).toBe(1);
  });

  it('record a 4xx recipient as deferred, and sent on a retry once the relay accepts it', async () => {
    const site = await newSite();
    await createNewsletter(site);
    const slow = addressOf(site, 'slow');
    sink.refuse(slow, 451);
    let id: string;
    try {
      id = (await send(site, { to: [slow], templateKey: 'newsletter' }, 202)).id;
      const deferred = await waitForMessage(site, id, (message) => message.counts.deferred === 1);
      expect(deferred).toMatchObject({ status: 'queued', counts: { deferred: 1, sent: 0 } });
      const [recipient] = await recipientsOf(site, id);
      expect(recipient!.status).toBe('deferred');
      expect(recipient!.response).toContain('451');
    } finally {
      sink.accept(slow);
    }
    const done = await waitForMessage(site, id, isSettled);
    expect(done).toMatchObject({ status: 'completed', counts: { sent: 1, deferred: 0, bounced: 0 } });
    const [recipient] = await recipientsOf(site, id);
    expect(recipient!.status).toBe('sent');
    expect(recipient!.attempts).toBeGreaterThanOrEqual(2);
    expect(sink.messagesTo(slow)).toHaveLength(1);
    expect((await site.admin('GET', '/email/suppressions')).body.data).toEqual([]);
  });

  it('never skip a recipient of one site for another site’s suppressions', async () => {
    const siteA = await newSite();
    const siteB = await newSite();
    await createNewsletter(siteB);
    const shared = `shared-${siteA.siteId}@example.test`;
    expect((await siteA.admin('POST', '/email/suppressions', { email: shared })).status).toBe(201);
    const queued = await send(siteB, { to: [shared], templateKey: 'newsletter' }, 202);
    expect(queued).toMatchObject({ counts: { recipients: 1, skipped: 0 } });
    await waitForMessagesTo([shared], 1);
    expect(await waitForMessage(siteB, queued.id, isSettled)).toMatchObject({ counts: { sent: 1 } });
  });
});

