// The email read models give the same rows when rebuilt from the log: layouts, templates and every
// version (a deleted template's included), the suppression list (manual, bounce, unsubscribe, and a
// lifted one), and sends with each recipient's outcome.
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { emailSendsProjection } from '../../../projections/emailSendsProjection.ts';
import { emailSuppressionsProjection } from '../../../projections/emailSuppressionsProjection.ts';
import { emailTemplatesProjection } from '../../../projections/emailTemplatesProjection.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { withHelpers, type AccessSite } from '../access/support.ts';
import { startSmtpSinkForFile, unsubscribeLinkOf } from './support/smtpSink.ts';

const sink = await startSmtpSinkForFile();
const service = await startTestServiceForFile({ SMTP_URL: sink.url, SVC_EMAIL_RETRY_BASE_MS: '200' });
const owner = openOwnerDatabaseForFile();

async function ok(site: AccessSite, method: string, path: string, body: unknown, status: number) {
  const response = await site.admin(method, path, body);
  expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBe(status);
  return response.body?.data;
}

/** Waits for the queued send to settle (every recipient sent, bounced or failed). */
async function waitForSettled(site: AccessSite, id: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await site.admin('GET', `/email/messages/${id}`)).body.data.status === 'queued') {
    if (Date.now() > deadline) throw new Error(`send ${id} still queued`);
    await delay(50);
  }
}

/** Each read model's rows of the site, as JSON lines in a stable order. */
async function snapshot(siteId: string): Promise<Record<string, string[]>> {
  const rows = (query: SqlFragment) => owner.query(query).then((found) => found.map((row) => JSON.stringify(row)));
  return {
    email_layouts: await rows(sql`SELECT * FROM email_layouts WHERE site_id = ${siteId} ORDER BY id`),
    email_templates: await rows(sql`SELECT * FROM email_templates WHERE site_id = ${siteId} ORDER BY id`),
    email_template_versions: await rows(sql`SELECT * FROM email_template_versions WHERE site_id = ${siteId} ORDER BY template_id, version`),
    email_suppressions: await rows(sql`SELECT * FROM email_suppressions WHERE site_id = ${siteId} ORDER BY email_hash`),
    email_sends: await rows(sql`SELECT * FROM email_sends WHERE site_id = ${siteId} ORDER BY id`),
    email_send_recipients: await rows(sql`SELECT * FROM email_send_recipients WHERE site_id = ${siteId} ORDER BY send_id, recipient_hash`),
  };
}

describe('email read models', () => {
  it('rebuild to the same rows', async () => {
    const site = withHelpers(service, await createTestSite(service, 'emailrb'));
    const address = (local: string) => `${local}@${site.siteId}.test`;

    const shell = await ok(site, 'POST', '/email/layouts', { name: 'Shell', html: '<main>{{content}}</main>' }, 201);
    await ok(site, 'PATCH', `/email/layouts/${shell.id}`, { html: '<main class="v2">{{ content }}</main>' }, 200);
    const gone = await ok(site, 'POST', '/email/layouts', { name: 'Gone', html: '{{content}}' }, 201);
    await ok(site, 'DELETE', `/email/layouts/${gone.id}`, undefined, 204);

    const receipt = await ok(site, 'POST', '/email/templates', { key: 'receipt', subject: 'Receipt', html: '<p>{{ n }}</p>', layoutId: shell.id, variables: ['n'] }, 201);
    await ok(site, 'PATCH', `/email/templates/${receipt.id}`, { subject: 'Your receipt', text: 'Receipt {{ n }}' }, 200);
    await ok(site, 'PATCH', `/email/templates/${receipt.id}`, { layoutId: null }, 200);
    const dropped = await ok(site, 'POST', '/email/templates', { key: 'dropped', subject: 'Old', text: 'old' }, 201);
    await ok(site, 'PATCH', `/email/templates/${dropped.id}`, { subject: 'Older' }, 200);
    await ok(site, 'DELETE', `/email/templates/${dropped.id}`, undefined, 204);
    await ok(site, 'POST', '/email/templates', { key: 'news', category: 'marketing', subject: 'News', html: '<a href="{{ unsubscribeUrl }}">x</a>' }, 201);

    await ok(site, 'POST', '/email/suppressions', { email: address('manual'), reason: 'asked by phone' }, 201);
    await ok(site, 'POST', '/email/suppressions', { email: address('lifted') }, 201);
    await ok(site, 'DELETE', `/email/suppressions/${encodeURIComponent(address('lifted'))}`, undefined, 204);

    await ok(site, 'POST', '/email/send', { to: [address('buyer')], cc: [address('accounts')], templateKey: 'receipt', variables: { n: 7 } }, 200);
    sink.refuse(address('bounced'), 550);
    try {
      const marketing = await ok(site, 'POST', '/email/send', { to: [address('reader'), address('bounced'), address('manual')], templateKey: 'news' }, 202);
      await waitForSettled(site, marketing.id);
    } finally {
      sink.accept(address('bounced'));
    }
    const [received] = await sink.waitForCount(1, 20_000, (message) => message.envelopeTo.includes(address('reader')));
    const unsubscribed = await service.request('POST', `/email/unsubscribe?token=${encodeURIComponent(unsubscribeLinkOf(received!).token)}`);
    expect(unsubscribed.status, JSON.stringify(unsubscribed.body)).toBe(200);

    const before = await snapshot(site.siteId);
    expect(before.email_template_versions).toHaveLength(6);
    expect(before.email_suppressions).toHaveLength(3);
    expect(before.email_send_recipients).toHaveLength(4);

    await expectRebuildToGiveSameRows({
      service,
      owner,
      projections: [emailTemplatesProjection, emailSuppressionsProjection, emailSendsProjection],
      tablesWithRows: Object.keys(before),
      snapshot: () => snapshot(site.siteId),
    });
  });
});
