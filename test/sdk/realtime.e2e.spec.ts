// client.realtime against the real service: signals of the collection subscribed (filtered as asked),
// a reconnect with a new ticket after the server restarts (then `resync`, then signals again), and a
// subscribe the ticket does not allow ending the subscription with SUBSCRIBE_FORBIDDEN.
import { afterAll, describe, expect, it } from 'vitest';
import { createSvcClient, type RealtimeSignal, type RealtimeSubscription } from '../../sdk/src/index.ts';
import { createCollection } from '../support/contentModel.ts';
import { createTestSite, startTestService, type TestService, type TestSite } from '../support/testService.ts';

const services: TestService[] = [];
const subscriptions: RealtimeSubscription[] = [];
afterAll(async () => {
  for (const subscription of subscriptions) subscription.close();
  await Promise.all(services.map((service) => service.close()));
});

async function started(port?: number): Promise<TestService> {
  const service = await startTestService({}, port === undefined ? {} : { port });
  services.push(service);
  return service;
}

/** The signals a subscription received, and a way to wait for one that matches. */
function recorder() {
  const signals: RealtimeSignal[] = [];
  const waiters: { match: (signal: RealtimeSignal) => boolean; resolve: (signal: RealtimeSignal) => void }[] = [];
  return {
    signals,
    onEvent(signal: RealtimeSignal) {
      signals.push(signal);
      for (const waiter of waiters.filter((candidate) => candidate.match(signal))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(signal);
      }
    },
    next(match: (signal: RealtimeSignal) => boolean, timeoutMs = 10_000): Promise<RealtimeSignal> {
      const seen = signals.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching signal within ${timeoutMs} ms; got ${JSON.stringify(signals)}`)), timeoutMs);
        waiters.push({ match, resolve: (signal) => (clearTimeout(timer), resolve(signal)) });
      });
    },
  };
}

/**
 * Creates items until the subscription signals one: the service sends no acknowledgement of a
 * subscribe frame, so the first write may come before the subscription is in place.
 */
async function createUntilSignalled(service: TestService, site: TestSite, signals: ReturnType<typeof recorder>): Promise<string> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const created = await service.request('POST', '/items/articles', { site: site.siteId, token: site.adminToken, body: { title: `Attempt ${attempt}` } });
    const id = created.body.data.id as string;
    const signalled = await signals.next((signal) => signal.type === 'event' && signal.itemId === id, 1_000).then(() => true, () => false);
    if (signalled) return id;
  }
  throw new Error('no create was signalled');
}

describe('client.realtime', () => {
  it('signals changes of the collection, and after the server restarts connects again, says resync, and signals again', { timeout: 120_000 }, async () => {
    const first = await started();
    const port = Number(new URL(first.url).port);
    const site = await createTestSite(first, 'sdk');
    await createCollection(first, site, 'articles', [{ field: 'title', type: 'string' }]);
    const client = createSvcClient({ baseUrl: new URL(first.url).origin, site: site.siteId });
    await client.auth.login(site.adminEmail, site.adminPassword);
    const signals = recorder();
    const subscription = client.realtime.subscribe('articles', undefined, signals.onEvent, { minDelayMs: 200, maxDelayMs: 1_000 });
    subscriptions.push(subscription);
    await subscription.ready;
    const before = await createUntilSignalled(first, site, signals);
    expect(signals.signals.find((signal) => signal.type === 'event' && signal.itemId === before)).toEqual({ type: 'event', collection: 'articles', action: 'create', itemId: before });

    await first.close();
    services.splice(services.indexOf(first), 1);
    const second = await started(port);
    await signals.next((signal) => signal.type === 'resync', 30_000);
    const after = await createUntilSignalled(second, site, signals);
    await second.request('DELETE', `/items/articles/${after}`, { site: site.siteId, token: site.adminToken });
    await signals.next((signal) => signal.type === 'event' && signal.action === 'delete' && signal.itemId === after);
  });

  it('sends only what the filter admits, and ends a subscription the ticket does not allow', { timeout: 60_000 }, async () => {
    const service = await started();
    const site = await createTestSite(service, 'sdk');
    await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
    const admin = createSvcClient({ baseUrl: new URL(service.url).origin, site: site.siteId });
    await admin.auth.login(site.adminEmail, site.adminPassword);
    const deletes = recorder();
    const filtered = admin.realtime.subscribe('articles', { action: { _eq: 'delete' } }, deletes.onEvent);
    subscriptions.push(filtered);
    await filtered.ready;
    // Deletes until one is signalled (the subscribe may land after the first), then a create that must not be.
    let deleted: string | null = null;
    for (let attempt = 0; attempt < 20 && deleted === null; attempt += 1) {
      const created = await service.request('POST', '/items/articles', { site: site.siteId, token: site.adminToken, body: { title: 'Gone' } });
      await service.request('DELETE', `/items/articles/${created.body.data.id}`, { site: site.siteId, token: site.adminToken });
      if (await deletes.next((signal) => signal.type === 'event' && signal.itemId === created.body.data.id, 1_000).then(() => true, () => false)) deleted = created.body.data.id;
    }
    expect(deleted).not.toBeNull();
    const kept = await service.request('POST', '/items/articles', { site: site.siteId, token: site.adminToken, body: { title: 'Kept' } });
    await service.request('DELETE', `/items/articles/${kept.body.data.id}`, { site: site.siteId, token: site.adminToken });
    await deletes.next((signal) => signal.type === 'event' && signal.itemId === kept.body.data.id);
    expect(deletes.signals.every((signal) => signal.type === 'event' && signal.action === 'delete')).toBe(true);

    const role = await admin.api.POST('/api/v1/roles', { body: { name: 'No reads' } });
    const key = await admin.api.POST('/api/v1/api-keys', { body: { name: 'no reads', roleId: role.data!.data.id } });
    const reader = createSvcClient({ baseUrl: new URL(service.url).origin, site: site.siteId, apiKey: (key.data!.data as { key: string }).key });
    const ended = await new Promise<unknown>((resolve) => {
      const probe = reader.realtime.subscribe('articles', undefined, () => undefined, { onError: resolve });
      subscriptions.push(probe);
    });
    expect(ended).toMatchObject({ code: 'SUBSCRIBE_FORBIDDEN' });
  });
});
