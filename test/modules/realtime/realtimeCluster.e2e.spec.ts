// Two running services sharing PostgreSQL and Redis: frames fan out across instances through Redis
// pub/sub, and the per-site connection limit counts both instances' connections.
import { afterAll, describe, expect, it } from 'vitest';
import { publishNotification } from '../../../src/modules/realtime/notifications.ts';
import { createTestSite, startTestServiceForFile, type TestService } from '../../support/testService.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { appendItemEvent, REDIS_URL } from '../cdc/support.ts';
import { connect, createCollections, subscribe, ticketFor, type RealtimeClient } from './support.ts';

const database = await createFreshDatabaseForFile();
const env = { DATABASE_URL: database.url, REDIS_URL, SVC_REALTIME_MAX_CONNECTIONS_PER_SITE: '3' };
const first = await startTestServiceForFile(env);
const second = await startTestServiceForFile(env);
const clients: RealtimeClient[] = [];
afterAll(() => {
  for (const client of clients) client.close();
});

async function open(service: TestService, ticket: string) {
  const client = await connect(service, ticket);
  clients.push(client);
  return client;
}

describe('realtime across instances (Redis)', () => {
  it('delivers a write committed through one instance to a socket on the other', async () => {
    const site = await createTestSite(first);
    await createCollections(first, site, ['articles']);
    const onSecond = await open(second, await ticketFor(second, site));
    const onFirst = await open(first, await ticketFor(first, site));
    await subscribe(onSecond, 'articles');
    await subscribe(onFirst, 'articles');
    const viaFirst = await appendItemEvent(first, site.siteId, { type: 'item.created', collection: 'articles' });
    const viaSecond = await appendItemEvent(second, site.siteId, { type: 'item.updated', collection: 'articles', itemId: viaFirst });
    expect(viaSecond).toBe(viaFirst);
    for (const client of [onFirst, onSecond]) {
      await client.next((frame) => frame.action === 'update');
      // Exactly once each, in order, whichever instance leads the fan-out.
      expect(client.frames).toEqual([
        { type: 'event', collection: 'articles', action: 'create', itemId: viaFirst, payload: null },
        { type: 'event', collection: 'articles', action: 'update', itemId: viaFirst, payload: null },
      ]);
    }
    await publishNotification(second.context, site.siteId, { kind: 'system', title: 'Everyone' }, { actor: { kind: 'system', id: null } });
    await onFirst.next((frame) => frame.type === 'notification');
    await onSecond.next((frame) => frame.type === 'notification');
  });

  it('counts connections of both instances against the site limit', async () => {
    const site = await createTestSite(first);
    const a = await open(first, await ticketFor(first, site));
    await open(second, await ticketFor(second, site));
    await open(first, await ticketFor(first, site));
    await expect(connect(second, await ticketFor(second, site))).rejects.toMatchObject({ status: 429 });
    a.close();
    await a.closed;
    // The slot comes back once the first instance has seen the close.
    let reopened: RealtimeClient | null = null;
    for (let attempt = 0; attempt < 50 && !reopened; attempt += 1) {
      reopened = await connect(second, await ticketFor(second, site)).catch(() => null);
      if (!reopened) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(reopened).not.toBeNull();
    clients.push(reopened!);
  });
});
