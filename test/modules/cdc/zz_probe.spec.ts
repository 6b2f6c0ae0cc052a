import { it } from 'vitest';
import pg from 'pg';
import { createTestSite, startTestService } from '../../support/testService.ts';
import { createIsolatedDatabase } from './support.ts';
it('probe', async () => {
  const db = await createIsolatedDatabase();
  const service = await startTestService({ DATABASE_URL: db.url });
  const site = await createTestSite(service);
  const owner = new pg.Client({ connectionString: db.url }); await owner.connect();
  await owner.query(`INSERT INTO cdc_feed (site_id, seq, position, event_id, type, collection, item_id, occurred_at, envelope)
    SELECT $1, g, g, gen_random_uuid(), 'items.create', 'articles', g::text, now(),
      json_build_object('id', gen_random_uuid(), 'type', 'items.create', 'cursor', 'abc', 'sequence', g, 'snapshot', jsonb_build_object('id', g::text, 'title', 'Article ' || g, 'body', repeat('lorem ipsum ', 20), 'views', g))::text
      FROM generate_series(1, 50000) g`, [site.siteId]);
  await owner.query(`INSERT INTO cdc_feed_sites VALUES ($1, 50000, 0) ON CONFLICT (site_id) DO UPDATE SET last_seq = 50000`, [site.siteId]); const plan = await owner.query(`EXPLAIN ANALYZE SELECT f.seq, f.event_id, f.type, f.item_id, f.envelope FROM cdc_feed f WHERE f.site_id = $1 AND f.seq > 20000 AND true ORDER BY f.seq LIMIT 501`, [site.siteId]); console.log('PROBE plan\n' + plan.rows.map((r: any) => r['QUERY PLAN']).join('\n')); await owner.end();
  for (const mode of ['inject', 'fetch']) {
    let cursor = ''; let n = 0; const t0 = performance.now(); let pages = 0;
    for (;;) {
      let body: any;
      if (mode === 'inject') { const r = await service.server.inject({ method: 'GET', url: `/api/v1/cdc/events?limit=500${cursor ? `&cursor=${cursor}` : ''}`, headers: { 'x-svc-site': site.siteId, authorization: `Bearer ${site.adminToken}` } }); body = JSON.parse(r.body); }
      else { body = (await service.request('GET', `/cdc/events?limit=500${cursor ? `&cursor=${cursor}` : ''}`, { site: site.siteId, token: site.adminToken })).body; }
      n += body.data.length; pages++; cursor = body.meta.nextCursor; if (!body.meta.hasMore) break;
    }
    const s = (performance.now() - t0) / 1000;
    console.log(`PROBE ${mode}: ${n} in ${s.toFixed(2)} s = ${Math.round(n / s)}/s, ${(s * 1000 / pages).toFixed(1)} ms/page`);
  }
  {
    const t0 = performance.now(); let bytes = 0;
    for (let i = 0; i < 100; i++) { const r = await fetch(`${service.url}/api/v1/cdc/events?limit=500&cursor=${Buffer.from('f1:' + i * 500).toString('base64url')}`, { headers: { 'x-svc-site': site.siteId, authorization: `Bearer ${site.adminToken}` } }); bytes += (await r.arrayBuffer()).byteLength; }
    const s = (performance.now() - t0) / 1000; console.log(`PROBE noparse: ${Math.round(50000 / s)}/s, ${(s * 10).toFixed(1)} ms/page, ${Math.round(bytes / 100 / 1024)} KiB/page`);
  }
  {
    const { readFeedPage } = await import('../../../src/modules/cdc/feedQueries.ts');
    const t0 = performance.now();
    for (let i = 0; i < 100; i++) await service.context.database.withSite(site.siteId, (tx) => readFeedPage(tx, site.siteId, { afterSeq: i * 500, filter: { collections: null, operations: null }, limit: 500 }));
    const s = (performance.now() - t0) / 1000; console.log(`PROBE dbonly: ${Math.round(50000 / s)}/s, ${(s * 10).toFixed(1)} ms/page`);
  }
  const before = service.context.database.stats.queries;
  const db2 = service.context.database as any;
  const texts: string[] = [];
  const origQuery = db2.query.bind(db2); db2.query = (q: any) => { texts.push('Q ' + q.text.replace(/\s+/g, ' ').slice(0, 90)); return origQuery(q); };
  const origWithSite = db2.withSite.bind(db2); db2.withSite = (site: string, work: any) => origWithSite(site, (tx: any) => work({ ...tx, query: (q: any) => { texts.push('T ' + q.text.replace(/\s+/g, ' ').slice(0, 90)); return tx.query(q); }, setSite: tx.setSite, notifyAfterCommit: tx.notifyAfterCommit }));
  await service.request('GET', `/cdc/events?limit=500`, { site: site.siteId, token: site.adminToken });
  console.log('PROBE texts\n' + texts.join('\n'));
  console.log('PROBE queries per page', service.context.database.stats.queries - before);
  await service.close(); await db.drop();
}, 120000);
