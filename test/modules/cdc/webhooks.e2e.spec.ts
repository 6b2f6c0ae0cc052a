// Webhook delivery against a real local receiver, on a database of its own (the delivery workers
// of other test files' services must not pick these jobs up with their own settings).
import { afterAll, describe, expect, it } from 'vitest';
import { createTestSite, startTestService, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { appendItemEvent, until, feedCaughtUp } from './support.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhookReceiver.ts';

const SECRET = 'whsec-test-secret-0123456789';
const receivers: WebhookReceiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});
const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({
  DATABASE_URL: database.url,
  SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
  SVC_WEBHOOK_TIMEOUT_MS: '300',
  SVC_WEBHOOK_BACKOFF_BASE_MS: '40',
  SVC_WEBHOOK_BACKOFF_MAX_MS: '150',
  SVC_WEBHOOK_MAX_ATTEMPTS: '4',
  SVC_WEBHOOK_SWEEP_MS: '500',
});

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(SECRET);
  receivers.push(started);
  return started;
}

async function createWebhook(site: TestSite, url: string, extra: Record<string, unknown> = {}) {
  const response = await service.request('POST', '/cdc/subscriptions', {
    site: site.siteId,
    token: site.adminToken,
    body: { name: `hook-${Math.random().toString(36).slice(2)}`, kind: 'webhook', webhook: { url, secret: SECRET }, ...extra },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data as { id: string; webhook: { url: string; hasSecret: boolean } };
}

async function writeItems(site: TestSite, count: number, collection = 'articles'): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) ids.push(await appendItemEvent(service, site.siteId, { type: 'item.created', collection, fields: { index } }));
  return ids;
}

function deliveries(site: TestSite, id: string, query = '') {
  return service.request('GET', `/cdc/subscriptions/${id}/deliveries${query}`, { site: site.siteId, token: site.adminToken });
}

describe('webhook delivery', () => {
  it('POSTs each entry once, signed, in feed order, and records every attempt', async () => {
    const hooks = await receiver();
    const site = await createTestSite(service);
    const subscription = await createWebhook(site, hooks.url);
    expect(subscription.webhook).toEqual({ url: hooks.url, hasSecret: true });
    const ids = await writeItems(site, 6);
    await hooks.waitFor((r) => r.accepted().length === 6);

    const accepted = hooks.accepted();
    expect(accepted.map((delivery) => delivery.body.itemId)).toEqual(ids);
    expect(accepted.every((delivery) => delivery.signatureValid)).toBe(true);
    expect(new Set(accepted.map((delivery) => delivery.deliveryId)).size).toBe(6);
    expect(accepted[0]!.headers['x-svc-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(accepted[0]!.headers['x-svc-event']).toBe('items.create');
    expect(accepted[0]!.body).toMatchObject({ type: 'items.create', collection: 'articles', site: site.siteId, snapshot: { index: 0 } });

    // The page and its total are read by two statements: wait until both have seen the sixth attempt.
    const page = await until(
      () => deliveries(site, subscription.id, '?limit=4&page=1'),
      (response) => response.body.meta.total === 6 && response.body.data[0]?.sequence === accepted[5]!.body.sequence,
    );
    expect(page.status).toBe(200);
    expect(page.body.meta).toEqual({ total: 6, page: 1, pageSize: 4 });
    expect(page.body.data.map((attempt: { sequence: number }) => attempt.sequence)).toEqual(
      [...accepted.slice(2).map((delivery) => delivery.body.sequence)].reverse(),
    );
    expect(page.body.data[0]).toMatchObject({ outcome: 'succeeded', statusCode: 200, attempt: 1, deliveryId: accepted[5]!.deliveryId });
    const second = await deliveries(site, subscription.id, '?limit=4&page=2');
    expect(second.body.data).toHaveLength(2);
    const detail = await until(
      async () => (await service.request('GET', `/cdc/subscriptions/${subscription.id}`, { site: site.siteId, token: site.adminToken })).body.data,
      (value) => value.lag.events === 0,
    );
    expect(detail).toMatchObject({ lag: { events: 0 }, delivery: { consecutiveFailures: 0, lastError: null } });
    expect(detail.cursor).toBe(accepted[5]!.body.cursor);
  });

  it('created with from: start, delivers the entries already in the feed, then what comes next', async () => {
    const hooks = await receiver();
    const site = await createTestSite(service);
    const earlier = await writeItems(site, 3);
    await feedCaughtUp(service);
    const subscription = await createWebhook(site, hooks.url, { from: 'start' });
    expect((subscription as unknown as { lag: { events: number } }).lag.events).toBe(3);
    const later = await writeItems(site, 1);
    await hooks.waitFor((r) => r.accepted().length === 4);
    expect(hooks.accepted().map((delivery) => delivery.body.itemId)).toEqual([...earlier, ...later]);
  });

  it('delivers every entry exactly once in feed order under 8 concurrent writers', async () => {
    const hooks = await receiver();
    const site = await createTestSite(service);
    await createWebhook(site, hooks.url);
    await Promise.all(
      Array.from({ length: 8 }, async (_, writer) => {
        for (let index = 0; index < 10; index += 1) await appendItemEvent(service, site.siteId, { type: 'item.created', collection: `w${writer}` });
      }),
    );
    await hooks.waitFor((r) => r.accepted().length === 80, 30_000);
    await feedCaughtUp(service);
    const feed = await service.request('GET', '/cdc/events?limit=500', { site: site.siteId, token: site.adminToken });
    const accepted = hooks.accepted();
    expect(accepted.map((delivery) => delivery.body.cursor)).toEqual(feed.body.data.map((entry: { cursor: string }) => entry.cursor));
    expect(new Set(accepted.map((delivery) => delivery.deliveryId)).size).toBe(80);
    expect(hooks.requests).toHaveLength(80);
  }, 40_000);

  it('retries a failing receiver with backoff, keeps the order, and records failed attempts', async () => {
    const hooks = await receiver();
    const site = await createTestSite(service);
    const subscription = await createWebhook(site, hooks.url);
    hooks.failNext(2);
    const ids = await writeItems(site, 3);
    await hooks.waitFor((r) => r.accepted().length === 3);
    expect(hooks.accepted().map((delivery) => delivery.body.itemId)).toEqual(ids);
    // The first entry was tried three times with one delivery id; nothing later was sent before it succeeded.
    expect(hooks.requests.slice(0, 3).map((delivery) => delivery.body.itemId)).toEqual([ids[0], ids[0], ids[0]]);
    expect(new Set(hooks.requests.slice(0, 3).map((delivery) => delivery.deliveryId)).size).toBe(1);
    const attempts = (await until(() => deliveries(site, subscription.id), (response) => response.body.meta.total === 5 && response.body.data.length === 5)).body.data.reverse();
    expect(attempts.map((attempt: { outcome: string; attempt: number; statusCode: number }) => [attempt.outcome, attempt.attempt, attempt.statusCode])).toEqual([
      ['failed', 1, 500],
      ['failed', 2, 500],
      ['succeeded', 3, 200],
      ['succeeded', 1, 200],
      ['succeeded', 1, 200],
    ]);
    expect(attempts[0].error).toBe('HTTP 500');
  });

  it('times out a receiver that does not answer, then recovers', async () => {
    const hooks = await receiver();
    const site = await createTestSite(service);
    const subscription = await createWebhook(site, hooks.url);
    hooks.failNext(1, 'hang');
    const [id] = await writeItems(site, 1);
    await hooks.waitFor((r) => r.accepted().length === 1);
    expect(hooks.requests.map((delivery) => delivery.body.itemId)).toEqual([id, id]);
    const attempts = (await until(() => deliveries(site, subscription.id), (response) => response.body.meta.total === 2 && response.body.data.length === 2)).body.data;
    expect(attempts[1]).toMatchObject({ outcome: 'failed', statusCode: null, error: expect.stringMatching(/^TIMEOUT/) });
    expect(attempts[1].durationMs).toBeGreaterThanOrEqual(250);
    expect(attempts[0]).toMatchObject({ outcome: 'succeeded', attempt: 2 });
  });

  it('marks a subscription that keeps failing dead; replay brings it back and redelivers', async () => {
    const hooks = await receiver();
    const site = await createTestSite(service);
    const subscription = await createWebhook(site, hooks.url);
    hooks.mode = 'fail';
    const ids = await writeItems(site, 2);
    const detail = async () =>
      (await service.request('GET', `/cdc/subscriptions/${subscription.id}`, { site: site.siteId, token: site.adminToken })).body.data;
    await hooks.waitFor((r) => r.requests.length >= 4);
    const view = await until(detail, (value) => value.state === 'dead');
    expect(view).toMatchObject({ state: 'dead', delivery: { consecutiveFailures: 4, lastError: 'HTTP 500' } });
    expect(hooks.requests).toHaveLength(4);
    expect((await service.request('PATCH', `/cdc/subscriptions/${subscription.id}`, { site: site.siteId, token: site.adminToken, body: { action: 'resume' } })).status).toBe(409);

    hooks.mode = 'ok';
    const events = await service.request('GET', '/cdc/events', { site: site.siteId, token: site.adminToken });
    const beforeFirst = Buffer.from(`f1:${events.body.data[0].sequence - 1}`).toString('base64url');
    const replay = await service.request('POST', `/cdc/subscriptions/${subscription.id}/replay`, {
      site: site.siteId,
      token: site.adminToken,
      body: { cursor: beforeFirst },
    });
    expect(replay.status).toBe(200);
    expect(replay.body.data.state).toBe('active');
    await hooks.waitFor((r) => r.accepted().length === 2);
    expect(hooks.accepted().map((delivery) => delivery.body.itemId)).toEqual(ids);
    // A replayed delivery is a new delivery: a new id.
    expect(hooks.accepted()[0]!.deliveryId).not.toBe(hooks.requests[0]!.deliveryId);
  });

  it('sends only what the filters select, and nothing while paused', async () => {
    const hooks = await receiver();
    const site = await createTestSite(service);
    const subscription = await createWebhook(site, hooks.url, { filters: { collections: ['news'], operations: ['update'] } });
    const [newsId] = await writeItems(site, 1, 'news');
    await writeItems(site, 2, 'articles');
    await appendItemEvent(service, site.siteId, { type: 'item.updated', collection: 'news', itemId: newsId, fields: { title: 'x' } });
    await hooks.waitFor((r) => r.accepted().length === 1);
    expect(hooks.accepted()[0]!.body).toMatchObject({ type: 'items.update', itemId: newsId });

    await service.request('PATCH', `/cdc/subscriptions/${subscription.id}`, { site: site.siteId, token: site.adminToken, body: { action: 'pause' } });
    await appendItemEvent(service, site.siteId, { type: 'item.updated', collection: 'news', itemId: newsId, fields: { title: 'y' } });
    await feedCaughtUp(service);
    const paused = await service.request('GET', `/cdc/subscriptions/${subscription.id}`, { site: site.siteId, token: site.adminToken });
    expect(paused.body.data.lag.events).toBe(1);
    await service.request('PATCH', `/cdc/subscriptions/${subscription.id}`, { site: site.siteId, token: site.adminToken, body: { action: 'resume' } });
    await hooks.waitFor((r) => r.accepted().length === 2);
    expect(hooks.accepted()[1]!.body.snapshot).toMatchObject({ title: 'y' });
    const done = await until(
      async () => (await service.request('GET', `/cdc/subscriptions/${subscription.id}`, { site: site.siteId, token: site.adminToken })).body.data,
      (value) => value.lag.events === 0,
    );
    expect(done.lag.events).toBe(0);
  });
});

describe('webhook URL guard', () => {
  it('refuses loopback, private, link-local and metadata targets unless private targets are allowed', async () => {
    const strict = await startTestService({ SVC_WEBHOOK_ALLOW_PRIVATE: 'false' });
    try {
      const site = await createTestSite(strict);
      for (const url of [
        'http://127.0.0.1:8080/hook',
        'http://localhost/hook',
        'http://10.1.2.3/hook',
        'http://192.168.1.10/hook',
        'http://169.254.169.254/latest/meta-data',
        'http://metadata.google.internal/computeMetadata/v1',
        'http://[::1]/hook',
        'http://[::ffff:127.0.0.1]/hook',
        'http://2130706433/hook',
      ]) {
        const response = await strict.request('POST', '/cdc/subscriptions', {
          site: site.siteId,
          token: site.adminToken,
          body: { name: 'guarded', kind: 'webhook', webhook: { url, secret: SECRET } },
        });
        expect(response.status, url).toBe(400);
        expect(response.body.errors[0], url).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'webhook', 'url'] });
      }
      expect((await strict.request('GET', '/cdc/subscriptions', { site: site.siteId, token: site.adminToken })).body.data).toEqual([]);
    } finally {
      await strict.close();
    }
  });
});
