import { afterAll, describe, expect, it } from 'vitest';
import { streamId } from '../../../domain/shared/events.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { publishNotification } from '../../../src/modules/realtime/notifications.ts';
import { createTestSite, startTestService, startTestServiceForFile } from '../../support/testService.ts';
import { appendEvents, appendItemEvent, frontendToken } from '../cdc/support.ts';
import { createMember, createRole, grant, withHelpers } from '../access/support.ts';
import { connect, createCollections, subscribe, ticketFor, type RealtimeClient } from './support.ts';

const service = await startTestServiceForFile();
const clients: RealtimeClient[] = [];
afterAll(() => {
  for (const client of clients) client.close();
});

async function open(ticket: string, target = service) {
  const client = await connect(target, ticket);
  clients.push(client);
  return client;
}

describe('realtime tickets', () => {
  it('issues one-minute studio tickets embedding the readable collections, and audience tickets', async () => {
    const site = await createTestSite(service);
    await createCollections(service, site, ['news', 'articles']);
    const response = await service.request('POST', '/realtime/ticket', { site: site.siteId, token: site.adminToken });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ ticket: expect.stringMatching(new RegExp(`^${site.siteId}\\.`)), collections: ['articles', 'news'] });
    const lifetime = Date.parse(response.body.data.expiresAt) - Date.now();
    expect(lifetime).toBeGreaterThan(50_000);
    expect(lifetime).toBeLessThanOrEqual(60_000);
    const stored = await service.context.database.withSite(site.siteId, (tx) => tx.query<{ ticket_hash: string }>(sql`SELECT ticket_hash FROM realtime_tickets`));
    expect(stored).toHaveLength(1);
    expect(stored[0]!.ticket_hash).not.toContain(response.body.data.ticket.split('.')[1]);

    const frontend = await frontendToken(service, site);
    expect((await service.request('POST', '/realtime/ticket', { site: site.siteId, token: frontend })).status).toBe(403);
    const audience = await service.request('POST', '/realtime/audience-ticket', { site: site.siteId, token: frontend });
    expect(audience.status).toBe(200);
    expect((await service.request('POST', '/realtime/ticket', { site: site.siteId })).status).toBe(401);
    expect((await service.request('POST', '/realtime/audience-ticket', { site: site.siteId })).status).toBe(401);
  });

  it('refuses a used, unknown, expired or missing ticket before upgrading', async () => {
    const site = await createTestSite(service);
    const ticket = await ticketFor(service, site);
    await open(ticket);
    await expect(connect(service, ticket)).rejects.toMatchObject({ status: 401 });
    await expect(connect(service, `${site.siteId}.not-a-ticket`)).rejects.toMatchObject({ status: 401 });
    await expect(connect(service, 'garbage')).rejects.toMatchObject({ status: 401 });
    await expect(connect(service, null)).rejects.toMatchObject({ status: 400 });
    const expired = await ticketFor(service, site);
    await service.context.database.withSite(site.siteId, (tx) => tx.query(sql`UPDATE realtime_tickets SET expires_at = now() - interval '1 second' WHERE used_at IS NULL`));
    await expect(connect(service, expired)).rejects.toMatchObject({ status: 401 });
    const plain = await fetch(`${service.url}/api/v1/realtime?ticket=${await ticketFor(service, site)}`);
    expect(plain.status).toBe(400);
  });

  it('admits at most the configured number of connections per site', async () => {
    const limited = await startTestService({ SVC_REALTIME_MAX_CONNECTIONS_PER_SITE: '2' });
    try {
      const site = await createTestSite(limited);
      const other = await createTestSite(limited);
      const first = await open(await ticketFor(limited, site), limited);
      await open(await ticketFor(limited, site), limited);
      const refused = await connect(limited, await ticketFor(limited, site)).catch((error: { status: number; body: string }) => error);
      expect(refused).toMatchObject({ status: 429 });
      expect(JSON.parse((refused as { body: string }).body).errors[0].code).toBe('RATE_LIMITED');
      await open(await ticketFor(limited, other), limited);
      first.close();
      await first.closed;
      await new Promise((resolve) => setImmediate(resolve));
      await open(await ticketFor(limited, site), limited);
    } finally {
      await limited.close();
    }
  });
});

describe('realtime frames', () => {
  it('sends a signal-only event frame for each committed change of a subscribed collection', async () => {
    const site = await createTestSite(service);
    await createCollections(service, site, ['articles', 'news']);
    const client = await open(await ticketFor(service, site));
    await subscribe(client, 'articles');
    const itemId = await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles', fields: { title: 'secret' } });
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'news' });
    await appendItemEvent(service, site.siteId, { type: 'item.updated', collection: 'articles', itemId, fields: { title: 'x' } });
    await appendItemEvent(service, site.siteId, { type: 'item.deleted', collection: 'articles', itemId });
    await client.next((frame) => frame.action === 'delete');
    expect(client.frames).toEqual([
      { type: 'event', collection: 'articles', action: 'create', itemId, payload: null },
      { type: 'event', collection: 'articles', action: 'update', itemId, payload: null },
      { type: 'event', collection: 'articles', action: 'delete', itemId, payload: null },
    ]);
  });

  it('applies a subscription filter over action, collection and itemId', async () => {
    const site = await createTestSite(service);
    await createCollections(service, site, ['articles']);
    const client = await open(await ticketFor(service, site));
    await subscribe(client, 'articles', { _or: [{ action: { _eq: 'delete' } }, { itemId: { _eq: 'watched' } }] });
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
    await appendItemEvent(service, site.siteId, { type: 'item.updated', collection: 'articles', itemId: 'watched' });
    const deleted = await appendItemEvent(service, site.siteId, { type: 'item.deleted', collection: 'articles' });
    await client.next((frame) => frame.itemId === deleted);
    expect(client.frames.map((frame) => `${frame.action}:${frame.itemId}`)).toEqual(['update:watched', `delete:${deleted}`]);
  });

  it('answers bad frames with error frames and keeps the connection', async () => {
    const site = await createTestSite(service);
    await createCollections(service, site, ['articles']);
    const client = await open(await ticketFor(service, site));
    client.socket.send('not json');
    client.socket.send(JSON.stringify({ type: 'shout' }));
    client.socket.send(JSON.stringify({ type: 'subscribe', collection: 'articles', filter: { title: { _eq: 'x' } } }));
    client.socket.send(JSON.stringify({ type: 'subscribe', collection: 'articles', filter: { action: { _nope: 1 } } }));
    await client.sync();
    expect(client.frames).toHaveLength(4);
    expect(client.frames.every((frame) => frame.type === 'error' && frame.code === 'VALIDATION_FAILED')).toBe(true);
    expect(client.frames[2]).toMatchObject({ path: ['filter', 'title'] });
    await subscribe(client, 'articles');
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
    await client.next((frame) => frame.type === 'event');
  });

  it('embeds the collections the member may read, and refuses others with SUBSCRIBE_FORBIDDEN', async () => {
    const site = withHelpers(service, await createTestSite(service));
    await createCollections(service, site, ['articles', 'news']);
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [{ collection: 'news', action: 'read', fields: ['*'] }]);
    const member = await createMember(service, site, { roleId: role.id });
    const issued = await service.request('POST', '/realtime/audience-ticket', { site: site.siteId, token: member.token });
    expect(issued.body.data.collections).toEqual(['news']);
    const client = await open(issued.body.data.ticket);
    await subscribe(client, 'news');
    client.socket.send(JSON.stringify({ type: 'subscribe', collection: 'articles' }));
    const error = await client.next((frame) => frame.type === 'error');
    expect(error).toMatchObject({ type: 'error', code: 'SUBSCRIBE_FORBIDDEN', collection: 'articles' });
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
    const newsId = await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'news' });
    // It still gets the site's notifications, and never the forbidden collection's events.
    await publishNotification(service.context, site.siteId, { kind: 'system', title: 'Hello' }, { actor: { kind: 'system', id: null } });
    await client.next((frame) => frame.type === 'notification');
    expect(client.frames.filter((frame) => frame.type === 'event')).toEqual([{ type: 'event', collection: 'news', action: 'create', itemId: newsId, payload: null }]);

    // An administrator's ticket holds the site's collections as they were when it was issued.
    const admin = await open(await ticketFor(service, site));
    admin.socket.send(JSON.stringify({ type: 'subscribe', collection: 'ghosts' }));
    expect(await admin.next((frame) => frame.type === 'error')).toMatchObject({ code: 'SUBSCRIBE_FORBIDDEN', collection: 'ghosts' });
  });

  it('broadcasts notification frames to every session of the site, and only that site', async () => {
    const site = await createTestSite(service);
    await createCollections(service, site, ['articles']);
    const other = await createTestSite(service);
    const subscribed = await open(await ticketFor(service, site));
    await subscribe(subscribed, 'articles');
    const idle = await open(await ticketFor(service, site, 'audience-ticket'));
    const elsewhere = await open(await ticketFor(service, other));
    const id = await publishNotification(
      service.context,
      site.siteId,
      { kind: 'agent.approval', severity: 'warning', title: 'Approval needed', body: 'A change waits', deepLink: '/approvals/1', entityId: 'a1' },
      { actor: { kind: 'system', id: null } },
    );
    for (const client of [subscribed, idle]) {
      const frame = await client.next((candidate) => candidate.type === 'notification');
      expect(frame).toEqual({
        type: 'notification',
        notification: { id, kind: 'agent.approval', severity: 'warning', title: 'Approval needed', body: 'A change waits', deepLink: '/approvals/1', entityId: 'a1', ts: expect.any(String) },
      });
    }
    await elsewhere.sync();
    await publishNotification(service.context, other.siteId, { kind: 'system', title: 'Theirs' }, { actor: { kind: 'system', id: null } });
    await elsewhere.next((frame) => frame.type === 'notification');
    expect(elsewhere.frames).toHaveLength(1);
    expect(idle.frames).toHaveLength(1);
  });
});

describe('realtime connection health', () => {
  it('pings peers and drops one that stops answering', async () => {
    const quick = await startTestService({ SVC_REALTIME_HEARTBEAT_MS: '100' });
    try {
      const site = await createTestSite(quick);
      const healthy = await connect(quick, await ticketFor(quick, site));
      const silent = await connect(quick, await ticketFor(quick, site), { autoPong: false });
      clients.push(healthy, silent);
      let pings = 0;
      const pinged = new Promise<void>((resolve) => healthy.socket.on('ping', () => (++pings === 4 ? resolve() : undefined)));
      const dropped = await silent.closed;
      expect(dropped.code).toBe(1006);
      await pinged;
      expect(healthy.socket.readyState).toBe(healthy.socket.OPEN);
    } finally {
      await quick.close();
    }
  });

  it('drops a slow consumer whose unsent frames pass the bound', async () => {
    const bounded = await startTestService({ SVC_REALTIME_MAX_BUFFERED_BYTES: '65536' });
    try {
      const site = await createTestSite(bounded);
      const slow = await connect(bounded, await ticketFor(bounded, site));
      const fast = await connect(bounded, await ticketFor(bounded, site));
      clients.push(slow, fast);
      const raw = (client: typeof slow) => (client.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
      raw(slow).pause();
      // A burst larger than the socket buffers: the paused reader leaves most of it unsent.
      const body = 'x'.repeat(8_000);
      const notifications = Array.from({ length: 600 }, (_, index) => ({
        type: 'notification.published',
        data: { notificationId: `n-${index}`, kind: 'bulk', severity: 'info', title: `n${index}`, body, deepLink: null, entityId: null },
      }));
      await appendEvents(bounded, site.siteId, streamId(site.siteId, 'notification', 'bulk'), notifications);
      await fast.next((frame) => (frame.notification as { id?: string } | undefined)?.id === 'n-599', 15_000);
      // The next delivery finds the slow reader still behind by more than the bound: it is dropped.
      const id = await publishNotification(bounded.context, site.siteId, { kind: 'system', title: 'after' }, { actor: { kind: 'system', id: null } });
      await fast.next((frame) => (frame.notification as { id?: string } | undefined)?.id === id);
      raw(slow).resume();
      const closed = await slow.closed;
      expect(closed.code).toBe(1006);
      expect(slow.frames.some((frame) => (frame.notification as { id?: string }).id === id)).toBe(false);
      expect(fast.socket.readyState).toBe(fast.socket.OPEN);
    } finally {
      await bounded.close();
    }
  }, 30_000);
});
