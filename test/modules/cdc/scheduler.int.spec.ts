// The scheduler tick: each task runs on one instance at a time; the CDC retention task prunes every
// site with entries past the horizon (on a database of its own: it looks at every site).
import { describe, expect, it } from 'vitest';
import { scheduledTasks, startScheduler, type ScheduledTask } from '../../../src/boot/scheduler.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { appendItemEvent } from './support.ts';

const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: database.url });

describe('scheduler', () => {
  it('runs a task on one instance at a time', async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    let release: () => void = () => undefined;
    let started: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const running1 = new Promise<void>((resolve) => (started = resolve));
    const task: ScheduledTask = {
      name: `exclusive-${Math.random()}`,
      async run() {
        started();
        runs += 1;
        running += 1;
        most = Math.max(most, running);
        await gate;
        running -= 1;
      },
    };
    const first = startScheduler(service.context, { intervalMs: 3_600_000, tasks: [task] });
    const second = startScheduler(service.context, { intervalMs: 3_600_000, tasks: [task] });
    const ticking = first.tick();
    await running1;
    await second.tick(); // finds the task taken and skips it
    release();
    await ticking;
    expect(runs).toBe(1);
    expect(most).toBe(1);
    await first.stop();
    await second.stop();
  });

  it('prunes change-feed entries past SVC_CDC_RETENTION for every site', async () => {
    const sites = [await createTestSite(service), await createTestSite(service)];
    for (const site of sites) await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
    await service.context.daemon.drain();
    const scheduler = startScheduler(service.context, { intervalMs: 3_600_000, tasks: scheduledTasks });
    await scheduler.tick(new Date(Date.now() + 8 * 86_400_000));
    await scheduler.stop();
    for (const site of sites) {
      const response = await service.request('GET', `/cdc/events?cursor=${Buffer.from('f1:0').toString('base64url')}`, { site: site.siteId, token: site.adminToken });
      expect(response.status).toBe(410);
    }
  });
});
