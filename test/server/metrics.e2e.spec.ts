// GET /metrics (spec "Utilities", docs/operations.md): off unless SVC_METRICS, for the instance
// token on the API's port, or alone on SVC_METRICS_PORT; each family moves with what it measures.
import { describe, expect, it } from 'vitest';
import { appendItemEvent } from '../modules/cdc/support.ts';
import { startWebhookReceiver } from '../modules/cdc/webhookReceiver.ts';
import { connect, ticketFor } from '../modules/realtime/support.ts';
import { createCollection } from '../support/contentModel.ts';
import { freePort } from '../support/freePort.ts';
import { createTestSite, INSTANCE_TOKEN, startTestService, startTestServiceForFile } from '../support/testService.ts';

const SECRET = 'whsec-metrics-test-0123456789';
const service = await startTestServiceForFile({ SVC_METRICS: 'true', SVC_WEBHOOK_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_SWEEP_MS: '500' });

async function scrape(): Promise<string> {
  const response = await fetch(`${service.url}/api/v1/metrics`, { headers: { authorization: `Bearer ${INSTANCE_TOKEN}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

/** The value of the sample `name{labels}` (labels in any order), or undefined. */
function valueOf(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const match = /^([^{\s]+)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

async function scrapeUntil(accept: (text: string) => boolean, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await scrape();
    if (accept(text)) return text;
    if (Date.now() > deadline) throw new Error(`metrics never matched within ${timeoutMs} ms:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('GET /api/v1/metrics with SVC_METRICS=true', () => {
  it('is refused without the instance token, with a site token, and with a wrong one', async () => {
    const site = await createTestSite(service);
    for (const authorization of [undefined, `Bearer ${site.adminToken}`, 'Bearer not-the-instance-token-at-all']) {
      const response = await fetch(`${service.url}/api/v1/metrics`, { headers: authorization ? { authorization } : {} });
      expect(response.status).toBe(401);
      expect((await response.json()).errors[0].code).toBe('UNAUTHENTICATED');
    }
  });

  it('counts request durations by route pattern and status, never by raw URL', async () => {
    const site = await createTestSite(service);
    const before = valueOf(await scrape(), 'svc_http_request_duration_seconds_count', { route: '/api/v1/items/:collection/:id', status: '404' }) ?? 0;
    for (const id of ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002']) {
      expect((await service.request('GET', `/items/nothing/${id}`, { site: site.siteId, token: site.adminToken })).status).toBe(404);
    }
    const text = await scrape();
    expect(valueOf(text, 'svc_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/items/:collection/:id', status: '404' })).toBe(before + 2);
    expect(text).not.toContain('00000000-0000-4000-8000-000000000001');
    expect(valueOf(text, 'svc_http_request_duration_seconds_bucket', { route: '/api/v1/items/:collection/:id', status: '404', le: '+Inf' })).toBe(before + 2);
  });

  it('reports the log’s head, each async projection’s lag reaching zero, the pool and the caches', async () => {
    const site = await createTestSite(service);
    await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
    const headBefore = valueOf(await scrape(), 'svc_log_events_total')!;
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles', fields: { title: 'one' } });
    const text = await scrapeUntil((current) => {
      const lags = current.split('\n').filter((line) => line.startsWith('svc_projection_lag_events{'));
      return lags.length > 0 && lags.every((line) => line.endsWith(' 0'));
    });
    expect(valueOf(text, 'svc_log_events_total')).toBeGreaterThan(headBefore);
    expect(valueOf(text, 'svc_projection_lag_seconds', { projection: 'search' })).toBe(0);
    expect(valueOf(text, 'svc_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
    expect(valueOf(text, 'svc_db_pool_max_connections')).toBe(service.context.config.SVC_DB_POOL_SIZE);

    const schemaLookups = (current: string) => ({
      hits: valueOf(current, 'svc_cache_lookups_total', { cache: 'schema', result: 'hit' }) ?? 0,
      misses: valueOf(current, 'svc_cache_lookups_total', { cache: 'schema', result: 'miss' }) ?? 0,
    });
    const lookupsBefore = schemaLookups(text);
    for (let index = 0; index < 3; index += 1) {
      expect((await service.request('GET', '/items/articles', { site: site.siteId, token: site.adminToken })).status).toBe(200);
    }
    const after = await scrape();
    // Each read looks the schema up; at most the first after the write misses.
    const lookupsAfter = schemaLookups(after);
    expect(lookupsAfter.hits + lookupsAfter.misses).toBeGreaterThanOrEqual(lookupsBefore.hits + lookupsBefore.misses + 3);
    expect(lookupsAfter.hits).toBeGreaterThanOrEqual(lookupsBefore.hits + 2);
    // Administrators need no grants: the grants cache is reported, and moves with other principals' reads.
    expect(valueOf(after, 'svc_cache_lookups_total', { cache: 'grants', result: 'hit' })).toBeDefined();
    expect(valueOf(after, 'svc_cache_lookups_total', { cache: 'delivery', result: 'miss' })).toBeDefined();
  });

  it('counts webhook deliveries by outcome, and the webhook queue’s runs and depth', async () => {
    const site = await createTestSite(service);
    const hooks = await startWebhookReceiver(SECRET);
    try {
    const before = await scrape();
    const succeeded = valueOf(before, 'svc_webhook_deliveries_total', { outcome: 'succeeded' }) ?? 0;
    const created = await service.request('POST', '/cdc/subscriptions', {
      site: site.siteId,
      token: site.adminToken,
      body: { name: 'metrics-hook', kind: 'webhook', webhook: { url: hooks.url, secret: SECRET } },
    });
    expect(created.status).toBe(201);
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles', fields: { index: 1 } });
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles', fields: { index: 2 } });
    await hooks.waitFor((receiver) => receiver.accepted().length === 2);
    const completedRuns = (current: string) =>
      current
        .split('\n')
        .filter((line) => line.startsWith('svc_job_runs_total{') && line.includes('outcome="completed"'))
        .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
    const runsBefore = completedRuns(before);
    // The delivery job ends once the subscription has nothing left to send.
    const text = await scrapeUntil(
      (current) => (valueOf(current, 'svc_webhook_deliveries_total', { outcome: 'succeeded' }) ?? 0) >= succeeded + 2 && completedRuns(current) > runsBefore,
    );
    expect(valueOf(text, 'svc_webhook_deliveries_total', { outcome: 'failed' })).toBeDefined();
    expect(text).toMatch(/^svc_queue_jobs\{queue="[^"]+",state="waiting"\} \d+$/m);
    } finally {
      await hooks.close();
    }
  });

  it('counts the realtime connections open on this instance', async () => {
    const site = await createTestSite(service);
    const before = valueOf(await scrape(), 'svc_realtime_connections')!;
    const client = await connect(service, await ticketFor(service, site));
    try {
      expect(valueOf(await scrape(), 'svc_realtime_connections')).toBe(before + 1);
    } finally {
      client.close();
      await client.closed;
    }
    await scrapeUntil((text) => valueOf(text, 'svc_realtime_connections') === before);
  });

  it('carries the Node process metrics', async () => {
    const text = await scrape();
    expect(valueOf(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
    expect(text).toContain('# TYPE nodejs_heap_size_used_bytes gauge');
  });
});

describe('GET /metrics on SVC_METRICS_PORT', () => {
  it('serves the metrics there alone, without a credential, and not on the API’s port', async () => {
    const port = await freePort();
    const own = await startTestService({ SVC_METRICS: 'true', SVC_METRICS_PORT: String(port) });
    try {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('# TYPE svc_log_events_total counter');
    expect((await fetch(`http://127.0.0.1:${port}/api/v1/items/articles`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST' })).status).toBe(404);
    const onApi = await fetch(`${own.url}/api/v1/metrics`, { headers: { authorization: `Bearer ${INSTANCE_TOKEN}` } });
    expect(onApi.status).toBe(404);
    } finally {
      await own.close();
    }
    // Closed with its service: the port is free again.
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });
});

describe('without SVC_METRICS', () => {
  it('has no metrics route', async () => {
    const plain = await startTestService();
    try {
      const response = await fetch(`${plain.url}/api/v1/metrics`, { headers: { authorization: `Bearer ${INSTANCE_TOKEN}` } });
      expect(response.status).toBe(404);
      expect((await response.json()).errors[0].code).toBe('NOT_FOUND');
    } finally {
      await plain.close();
    }
  });
});
