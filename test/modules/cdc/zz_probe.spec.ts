import { it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { createTestSite, startTestService } from '../../support/testService.ts';
import { appendItemEvent, createIsolatedDatabase } from './support.ts';
import { startWebhookReceiver } from './webhookReceiver.ts';
it('probe', async () => {
  const db = await createIsolatedDatabase();
  const service = await startTestService({ DATABASE_URL: db.url, SVC_WEBHOOK_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_SWEEP_MS: '60000', SVC_PROJECTION_POLL_MS: '1000' });
  const hooks = await startWebhookReceiver('whsec-test-secret-0123456789');
  const site = await createTestSite(service);
  await service.request('POST', '/cdc/subscriptions', { site: site.siteId, token: site.adminToken, body: { name: 'x', kind: 'webhook', webhook: { url: hooks.url, secret: 'whsec-test-secret-0123456789' } } });
  service.context.notifier.on('svc_checkpoints', (p) => console.log(Date.now() % 100000, 'checkpoint', p));
  service.context.notifier.on('svc_events', (p) => console.log(Date.now() % 100000, 'events', p));
  for (let i = 0; i < 3; i++) {
    const t0 = Date.now();
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'a' });
    console.log(t0 % 100000, 'committed');
    const before = hooks.requests.length;
    await hooks.waitFor((r) => r.requests.length > before, 20000);
    console.log(Date.now() % 100000, 'delivered after', Date.now() - t0);
  }
  await service.close(); await hooks.close(); await db.drop();
}, 120000);
