import { it } from 'vitest';
import { createTestSite, startTestService } from '../../support/testService.ts';
import { createIsolatedDatabase } from './support.ts';
it('probe', async () => {
  const db = await createIsolatedDatabase();
  const service = await startTestService({ DATABASE_URL: db.url, SVC_RATE_LIMIT_ITEMS_WRITE: '0', SVC_PROJECTION_POLL_MS: '1000' });
  const site = await createTestSite(service);
  const call = (m: string, p: string, b?: unknown) => service.request(m, p, { site: site.siteId, token: site.adminToken, body: b });
  await call('POST', '/collections', { name: 'articles', fields: [{ field: 'title', type: 'string' }, { field: 'body', type: 'text' }, { field: 'views', type: 'integer' }] });
  const commits = new Map<string, number>(); const seen = new Map<string, number>();
  let pulling = true;
  const puller = (async () => { let cursor = (await call('GET', '/cdc/events?limit=1&collections=none')).body.meta.nextCursor;
    while (pulling) { const page = await call('GET', `/cdc/events?limit=500&wait=2&operations=items.create&cursor=${cursor}`); const at = performance.now(); for (const e of page.body.data) seen.set(e.itemId, at); cursor = page.body.meta.nextCursor; } })();
  const started = performance.now(); const inflight: Promise<void>[] = [];
  for (let i = 0; i < 1000; i++) { const due = started + i * 5; const w = due - performance.now(); if (w > 0) await new Promise((r) => setTimeout(r, w));
    inflight.push((async () => { const r = await call('POST', '/items/articles', { title: `A ${i}`, body: 'lorem ipsum '.repeat(20), views: i }); commits.set(r.body.data.id, performance.now()); })()); }
  await Promise.all(inflight);
  const rate = 1000 / ((performance.now() - started) / 1000);
  while (seen.size < 1000) await new Promise((r) => setTimeout(r, 50));
  pulling = false; await puller;
  const lat = [...commits].map(([id, t]) => seen.get(id)! - t).sort((a, b) => a - b);
  console.log(`PROBE rate ${rate.toFixed(0)}/s  feed p50 ${lat[500]!.toFixed(0)} p90 ${lat[900]!.toFixed(0)} p99 ${lat[990]!.toFixed(0)} max ${lat[999]!.toFixed(0)}`);
  await service.close(); await db.drop();
}, 120000);
