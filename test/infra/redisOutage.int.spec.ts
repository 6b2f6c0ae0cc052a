// Redis is optional infrastructure: with a real redis-server of its own (never the shared one on
// 6379), the service starts while it is down, serves delivery and realtime from this instance
// (in-process cache, local fan-out, fail-open rate limits) and says so in its health answer, takes
// Redis back when it returns, and keeps answering within a bound when Redis dies under load.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, redisReady, type Redis } from '../../infra/redis/redis.ts';
import { appendItemEvent, until } from '../modules/cdc/support.ts';
import { createArticle, createDeliverySite, createPage, deliver, type DeliverySite } from '../modules/delivery/support.ts';
import { createFlowSite, createManualFlow, logGraph, runsOf, startRun, waitForRun } from '../modules/flows/support/flowHelpers.ts';
import { startPrivateRedis, type PrivateRedis } from '../modules/identity/support/redisServer.ts';
import { connect, createCollections, subscribe, ticketFor, type RealtimeClient } from '../modules/realtime/support.ts';
import { createTestSite, startTestService, type TestService } from '../support/testService.ts';

/** What a delivery request may take while Redis is away (a command fails at once, or within its 1 s timeout). */
const DELIVERY_BOUND_MS = 3_000;

let redis: PrivateRedis;
let service: TestService | null = null;
const clients: RealtimeClient[] = [];

beforeAll(async () => {
  redis = await startPrivateRedis();
});

afterAll(async () => {
  for (const client of clients) client.close();
  await service?.close();
  await redis.stop();
});

async function health(target: TestService) {
  const response = await target.request('GET', '/utils/health');
  return { status: response.status, body: response.body.data };
}

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = Date.now();
  const result = await work();
  return { result, ms: Date.now() - started };
}

/** Channels of this Redis with a subscriber (the delivery purge channel, the realtime frames). */
async function subscribedChannels(client: Redis): Promise<string[]> {
  return (await client.pubsub('CHANNELS', 'svc:*')) as string[];
}

describe('Redis down at start, then back', () => {
  let site: DeliverySite;
  let slug: string;

  it('starts without Redis, serves delivery quickly from memory and reports the cache as down', { timeout: 60_000 }, async () => {
    await redis.stop();
    const started = await timed(() => startTestService({ REDIS_URL: redis.url }));
    service = started.result;
    // Before: "Plugin did not start in time" after ~10 s (a subscribe waiting in the offline queue).
    expect(started.ms).toBeLessThan(8_000);

    site = await createDeliverySite(service);
    await createArticle(site, { title: 'Hello' });
    slug = (await createPage(site, { slug: 'home', title: 'Home' })).slug;
    await service.context.daemon.drain();

    for (let round = 0; round < 3; round += 1) {
      const page = await timed(() => deliver(service!, `/deliver/page/${site.siteId}/${slug}`));
      expect(page.result.status, page.result.text).toBe(200);
      expect(page.ms).toBeLessThan(DELIVERY_BOUND_MS);
      const missing = await timed(() => deliver(service!, `/deliver/page/${site.siteId}/no-such-page-${round}`));
      expect(missing.result.status).toBe(404);
      expect(missing.ms).toBeLessThan(DELIVERY_BOUND_MS);
    }

    const down = await health(service);
    expect(down.status).toBe(200);
    expect(down.body).toMatchObject({ status: 'degraded', checks: { database: 'ok', cache: 'down', queue: 'down' }, failing: ['cache', 'queue'] });
  });

  it('fans realtime frames out on this instance while Redis is down', { timeout: 30_000 }, async () => {
    const realtimeSite = await createTestSite(service!);
    await createCollections(service!, realtimeSite, ['articles']);
    const client = await connect(service!, await ticketFor(service!, realtimeSite));
    clients.push(client);
    await subscribe(client, 'articles');
    const itemId = await appendItemEvent(service!, realtimeSite.siteId, { type: 'item.created', collection: 'articles' });
    await client.next((frame) => frame.itemId === itemId);
  });

  it('takes Redis back when it returns: health ok, channels subscribed again, answers shared', { timeout: 60_000 }, async () => {
    await redis.start();
    const probe = createRedis(redis.url);
    try {
      await redisReady(probe);
      const back = await until(
        () => health(service!),
        (answer) => answer.body.checks.cache === 'ok',
      );
      expect(back).toMatchObject({ status: 200, body: { status: 'ok', checks: { cache: 'ok', queue: 'ok' } } });
      // Re-subscribed on reconnection: the delivery purge channel and the realtime frames.
      const channels = await until(
        () => subscribedChannels(probe),
        (names) => names.some((name) => name.endsWith(':delivery:purge')) && names.some((name) => name.endsWith(':realtime:frames')),
      );
      expect(channels.some((name) => name.endsWith(':delivery:purge'))).toBe(true);
      expect(channels.some((name) => name.endsWith(':realtime:frames'))).toBe(true);

      // The response cache writes to Redis again (a new answer, so not one held in memory).
      await createArticle(site, { title: 'After the outage' });
      await service!.context.daemon.drain();
      const answers = await until(
        async () => {
          const page = await deliver(service!, `/deliver/page/${site.siteId}/${slug}`);
          expect(page.status).toBe(200);
          return probe.keys(`svc:*:delivery:answer:${site.siteId}:*`);
        },
        (keys) => keys.length > 0,
      );
      expect(answers.length).toBeGreaterThan(0);
    } finally {
      probe.disconnect();
    }
  });

  it('keeps answering delivery within a bound when Redis is killed under load', { timeout: 60_000 }, async () => {
    const running = service!;
    const durations: number[] = [];
    const statuses = new Set<number>();
    let stop = false;
    const load = Array.from({ length: 4 }, async (_, worker) => {
      for (let request = 0; !stop; request += 1) {
        const path = request % 2 === 0 ? `/deliver/page/${site.siteId}/${slug}` : `/deliver/page/${site.siteId}/gone-${worker}-${request}`;
        const answer = await timed(() => deliver(running, path));
        durations.push(answer.ms);
        statuses.add(answer.result.status);
      }
    });
    let afterKill = 0;
    let down: Awaited<ReturnType<typeof health>>;
    try {
      await until(async () => durations.length, (count) => count >= 20);
      await redis.stop();
      afterKill = durations.length;
      await until(async () => durations.length, (count) => count >= afterKill + 40, 30_000);
      down = await health(running);
    } finally {
      // The load stops whatever failed above, so a failed wait leaves no request loops running.
      stop = true;
      await Promise.all(load);
    }

    expect(durations.length).toBeGreaterThanOrEqual(afterKill + 40);
    expect(Math.max(...durations)).toBeLessThan(DELIVERY_BOUND_MS);
    // Rate limits fail open: nothing but answers and misses.
    expect([...statuses].sort()).toEqual([200, 404]);
    expect(down).toMatchObject({ status: 200, body: { status: 'degraded', checks: { database: 'ok', cache: 'down' }, failing: ['cache', 'queue'] } });
  });
});

describe('work recorded while Redis is down', () => {
  it('answers a flow run and a report as queued, not 503 (a retry would record them twice), and runs each once when Redis is back', { timeout: 60_000 }, async () => {
    const flowRedis = await startPrivateRedis();
    await flowRedis.stop();
    const flowService = await startTestService({ REDIS_URL: flowRedis.url });
    try {
      const site = await createFlowSite(flowService);
      const flow = await createManualFlow(site, logGraph());
      const started = await startRun(site, flow.id);
      expect(started.status).toBe('queued');
      const requested = await site.admin('POST', '/reports/compliance', { from: new Date(Date.now() - 86_400_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString(), format: 'json' });
      expect(requested.status, JSON.stringify(requested.body)).toBe(202);
      expect(requested.body.data.status).toBe('queued');
      await flowRedis.start();
      expect((await waitForRun(site, flow.id, started.runId, 30_000)).status).toBe('succeeded');
      expect((await runsOf(site, flow.id)).map((run) => run.id)).toEqual([started.runId]);
      const report = await until(
        async () => (await site.admin('GET', `/reports/${requested.body.data.id}`)).body.data,
        (current) => current.status === 'completed',
        30_000,
      );
      expect(report.status).toBe('completed');
      expect((await site.admin('GET', '/reports')).body.data).toHaveLength(1);
    } finally {
      await flowService.close();
      await flowRedis.stop();
    }
  });
});
