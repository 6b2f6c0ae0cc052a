// What the send tests share (emailSend and emailMarketing): a service with SMTP_URL on a local sink,
// the shapes they read, and helpers that create sites, templates and sends and wait for outcomes.
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'vitest';
import { createFreshDatabaseForFile } from '../../../support/databases.ts';
import { createTestSite, startTestServiceForFile, type TestResponse, type TestService } from '../../../support/testService.ts';
import { withHelpers, type AccessSite, type Member } from '../../access/support.ts';
import type { SinkMessage, SmtpSink } from './smtpSink.ts';

export const PUBLIC_URL = 'https://cms.example.test';

/** The settings of a service that sends to `sink`: quick retries, enough of them for the deferral test. */
export const sendingServiceSettings = (sink: SmtpSink) => ({
  SMTP_URL: sink.url,
  SVC_EMAIL_RETRY_BASE_MS: '200',
  SVC_EMAIL_MAX_ATTEMPTS: '8',
  SVC_PUBLIC_URL: PUBLIC_URL,
});

/**
 * A service sending to `sink` on a database of the file's own. The send queue is shared by every
 * service of a deployment (one database, one Redis namespace): on the run's shared database another
 * file's service with a mailer of its own could take this file's batches and deliver them elsewhere.
 */
export async function startSendingServiceForFile(sink: SmtpSink): Promise<TestService> {
  const database = await createFreshDatabaseForFile();
  return startTestServiceForFile({ ...sendingServiceSettings(sink), DATABASE_URL: database.url });
}

export interface Message {
  id: string;
  category: string;
  templateKey: string | null;
  templateVersion: number | null;
  test: boolean;
  status: 'queued' | 'completed' | 'failed';
  counts: Record<'recipients' | 'queued' | 'sent' | 'deferred' | 'bounced' | 'failed' | 'skipped', number>;
  skipped: Record<'suppressed' | 'noConsent' | 'restricted', number>;
  completedAt: string | null;
}

export interface Recipient {
  hash: string;
  status: string;
  messageId: string | null;
  response: string | null;
  attempts: number;
}

/** An address of the site's own test domain: unique across the file, so the shared sink never mixes tests. */
export const addressOf = (site: AccessSite, local: string) => `${local}@${site.siteId}.test`;

export function expectRefusal(response: TestResponse, status: number, code: string, path?: (string | number)[]): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.errors[0].code).toBe(code);
  if (path) expect(response.body.errors[0].path).toEqual(path);
}

export const isSettled = (message: Message) => message.status !== 'queued';

export function sendHelpers(service: TestService, sink: SmtpSink) {
  async function newSite(on: TestService = service): Promise<AccessSite> {
    return withHelpers(on, await createTestSite(on, 'mail'));
  }

  async function createTemplate(site: AccessSite, body: Record<string, unknown>): Promise<{ id: string; key: string }> {
    const created = await site.admin('POST', '/email/templates', { subject: 'Hello', ...body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.data;
  }

  /** A marketing template that shows the recipient and its unsubscribe link (the variables every marketing message gets). */
  function createNewsletter(site: AccessSite, key = 'newsletter') {
    return createTemplate(site, {
      key,
      category: 'marketing',
      subject: 'News of {{ site }}',
      html: '<p>News for {{ email }}</p><p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>',
    });
  }

  async function send(site: AccessSite, body: Record<string, unknown>, expectedStatus: number): Promise<Message> {
    const response = await site.admin('POST', '/email/send', body);
    expect(response.status, JSON.stringify(response.body)).toBe(expectedStatus);
    return response.body.data;
  }

  /** Polls the message until `done` says so, or fails at the deadline with what it last saw. */
  async function waitForMessage(site: AccessSite, id: string, done: (message: Message) => boolean, timeoutMs = 20_000): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const response = await site.admin('GET', `/email/messages/${id}`);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      if (done(response.body.data)) return response.body.data;
      if (Date.now() > deadline) throw new Error(`message ${id} still ${JSON.stringify(response.body.data)} after ${timeoutMs} ms`);
      await delay(50);
    }
  }

  async function recipientsOf(site: AccessSite, id: string, query = ''): Promise<Recipient[]> {
    const response = await site.admin('GET', `/email/messages/${id}/recipients${query}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data;
  }

  /** The messages the sink received for any of `addresses`, once `count` of them have arrived. */
  function waitForMessagesTo(addresses: string[], count: number): Promise<SinkMessage[]> {
    return sink.waitForCount(count, 20_000, (message) => message.envelopeTo.some((recipient) => addresses.includes(recipient)));
  }

  async function grantMarketing(site: AccessSite, member: Member, granted = true): Promise<void> {
    const put = await site.as(member.token, 'PUT', '/me/consents/marketing', { granted, source: 'test', version: '1' });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  }

  return { newSite, createTemplate, createNewsletter, send, waitForMessage, recipientsOf, waitForMessagesTo, grantMarketing };
}
