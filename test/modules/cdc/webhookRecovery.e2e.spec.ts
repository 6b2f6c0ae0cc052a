// Restarts in the middle of a delivery stream (in-process queue and BullMQ) and on-demand dispatch
// past a long backoff, each on a database of its own.
import { afterAll, describe, expect, it } from 'vitest';
import { createTestSite, startTestService, type TestService } from '../../support/testService.ts';
import { createFreshDatabase } from '../../projections/freshDatabase.ts';
import { appendItemEvent, REDIS_URL, until } from './support.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhookReceiver.ts';

const SECRET = 'whsec-recovery-secret-0123456789';
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function setup(settings: Record<string, string>) {
  const database = await createFreshDatabase();
  cleanups.push(database.drop);
  const hooks = await startWebhookReceiver(SECRET);
  cleanups.push(() => hooks.close());
  const env = { DATABASE_URL: database.url, SVC_WEBHOOK_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_SWEEP_MS: '300', ...settings };
  const start = async () => {
    const service = await startTestService(env);
    return service;
  };
  return { hooks, start };
}

async function restartMidStream(hooks: WebhookReceiver, start: () => Promise<TestService>) {
  let service = await start();
  const site = await createTestSite(service);
  const created = await service.request('POST', '/cdc/subscriptions', {
    site: site.siteId,
    token: site.adminToken,
    body: { name: 'restart', kind: 'webhook', webhook: { url: hooks.url, secret: SECRET } },
  });
  expect(created.status).toBe(201);
  hooks.delayMs = 25;
  const ids: string[] = [];
  for (let index = 0; index < 30; index += 1) ids.push(await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles', fields: { index } }));
  await hooks.waitFor((r) => r.accepted().length >= 8);
  await service.close();
  const acceptedBeforeRestart = hooks.accepted().length;
  expect(acceptedBeforeRestart).toBeLessThan(30);

  service = await start();
  try {
    await hooks.waitFor((r) => r.accepted().length >= 30, 20_000);
    const accepted = hooks.accepted();
    expect(accepted.map((delivery) => delivery.body.itemId)).toEqual(ids);
    expect(new Set(accepted.map((delivery) => delivery.deliveryId)).size).toBe(30);
    const attempts = await until(
      () => service.request('GET', `/cdc/subscriptions/${created.body.data.id}/deliveries?limit=200`, { site: site.siteId, token: site.adminToken }),
      (response) => response.body.meta.total >= 30,
    );
    expect(attempts.body.meta.total).toBe(30);
    expect(attempts.body.data.every((attempt: { outcome: string }) => attempt.outcome === 'succeeded')).toBe(true);
  } finally {
    await service.close();
  }
}

describe('webhook delivery across a restart', () => {
  it('loses nothing and sends nothing twice on the in-process queue', async () => {
    const { hooks, start } = await setup({});
    await restartMidStream(hooks, start);
  }, 60_000);

  it('loses nothing and sends nothing twice on BullMQ', async () => {
    const { hooks, start } = await setup({ REDIS_URL });
    await restartMidStream(hooks, start);
  }, 60_000);
});

describe('POST /cdc/subscriptions/:id/dispatch', () => {
  it('answers 202 and delivers at once, skipping the current backoff', async () => {
    const { hooks, start } = await setup({ SVC_WEBHOOK_BACKOFF_BASE_MS: '600000', SVC_WEBHOOK_BACKOFF_MAX_MS: '600000' });
    const service = await start();
    try {
      const site = await createTestSite(service);
      const created = await service.request('POST', '/cdc/subscriptions', {
        site: site.siteId,
        token: site.adminToken,
        body: { name: 'dispatch', kind: 'webhook', webhook: { url: hooks.url, secret: SECRET } },
      });
      hooks.failNext(1);
      const itemId = await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
      await hooks.waitFor((r) => r.requests.length === 1);
      const id = created.body.data.id;
      const view = await service.request('GET', `/cdc/subscriptions/${id}`, { site: site.siteId, token: site.adminToken });
      expect(view.body.data.delivery.consecutiveFailures).toBeLessThanOrEqual(1);

      const dispatched = await service.request('POST', `/cdc/subscriptions/${id}/dispatch`, { site: site.siteId, token: site.adminToken });
      expect(dispatched.status).toBe(202);
      await hooks.waitFor((r) => r.accepted().length === 1, 5_000);
      expect(hooks.accepted()[0]!.body.itemId).toBe(itemId);

      const unknown = await service.request('POST', '/cdc/subscriptions/00000000-0000-4000-8000-000000000000/dispatch', {
        site: site.siteId,
        token: site.adminToken,
      });
      expect(unknown.status).toBe(404);
      await service.request('PATCH', `/cdc/subscriptions/${id}`, { site: site.siteId, token: site.adminToken, body: { action: 'pause' } });
      const pausedDispatch = await service.request('POST', `/cdc/subscriptions/${id}/dispatch`, { site: site.siteId, token: site.adminToken });
      expect(pausedDispatch.status).toBe(409);
    } finally {
      await service.close();
    }
  }, 30_000);
});
