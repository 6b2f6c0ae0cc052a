// Agent events reach people (docs/agent-goals.md "Notifications"): an agent incident and a staged
// action each become a notification that a realtime session of the site receives as a `notification`
// frame and that the site's push subscriptions receive as a web push (encrypted, VAPID-signed, at a
// local push endpoint), once per event; another site's browsers get nothing of it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import webpush from 'web-push';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../../domain/shared/events.ts';
import { pushNotification } from '../../../src/modules/agents/agentNotifications.ts';
import { browserKeys, decryptPush, type PushBrowser as Browser } from '../../support/pushBrowser.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { connect, ticketFor } from '../realtime/support.ts';
import { createAgentRole, ok, type AgentSite } from './gateSupport.ts';
import { createWorkSite, until } from './goalsSupport.ts';

const vapid = webpush.generateVAPIDKeys();
const service = await startTestServiceForFile({
  SVC_VAPID_PUBLIC_KEY: vapid.publicKey,
  SVC_VAPID_PRIVATE_KEY: vapid.privateKey,
  SVC_VAPID_SUBJECT: 'mailto:ops@example.com',
  SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
});
let endpointServer: http.Server;
let endpointBase = '';
const received: { path: string; headers: http.IncomingHttpHeaders; body: Buffer }[] = [];

beforeAll(async () => {
  endpointServer = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(201).end();
    });
  });
  await new Promise<void>((resolve) => endpointServer.listen(0, '127.0.0.1', () => resolve()));
  endpointBase = `http://127.0.0.1:${(endpointServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  endpointServer.closeAllConnections();
  await new Promise<void>((resolve) => endpointServer.close(() => resolve()));
});

async function subscribedSite(): Promise<{ site: AgentSite; browser: Browser; path: string }> {
  const site = await createWorkSite(service, 'notify');
  const browser = browserKeys();
  const path = `/push/${site.siteId}`;
  const subscribed = await site.admin('POST', '/push/subscriptions', { endpoint: `${endpointBase}${path}`, keys: browser.keys });
  expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(201);
  return { site, browser, path };
}

/** The pushes a browser received at `path`, decrypted. */
const pushesAt = (path: string, browser: Browser) => received.filter((request) => request.path === path).map((request) => JSON.parse(decryptPush(request.body, browser)) as Record<string, unknown>);

describe('agent notifications', () => {
  it('sends an incident to the site’s realtime sessions as a frame and to its browsers as a web push, once', async () => {
    const { site, browser, path } = await subscribedSite();
    const other = await subscribedSite();
    const client = await connect(service, await ticketFor(service, site));
    try {
      const incident = await ok(site, 'POST', '/agent/incidents', 201, { role: 'git-sync', severity: 'critical', title: 'CI failed' });
      const frame = await client.next((candidate) => candidate.type === 'notification');
      const notification = frame.notification as Record<string, unknown>;
      expect(notification).toMatchObject({ kind: 'agents.incident', severity: 'critical', title: 'Agent incident (git-sync): CI failed', entityId: incident.id });

      const [pushed] = await until(
        async () => pushesAt(path, browser),
        (pushes) => pushes.length > 0,
      );
      expect(pushed).toEqual(notification);
      const request = received.find((candidate) => candidate.path === path)!;
      expect(request.headers.authorization).toMatch(/^vapid t=/);
      expect(request.headers.urgency).toBe('high');

      // Another site's incident later: this browser gets nothing of it, and nothing twice.
      await ok(other.site, 'POST', '/agent/incidents', 201, { role: 'x', severity: 'info', title: 'Elsewhere' });
      await until(
        async () => pushesAt(other.path, other.browser),
        (pushes) => pushes.length > 0,
      );
      expect(pushesAt(path, browser)).toEqual([notification]);
      expect(pushesAt(other.path, other.browser).map((push) => push.entityId)).not.toContain(incident.id);
    } finally {
      client.close();
    }
  });

  it('pushes a staged action’s notification, and a second delivery of one event sends nothing', async () => {
    const { site, browser, path } = await subscribedSite();
    await createAgentRole(site, { name: 'writer', skills: ['items.*'], collections: ['articles'] });
    await ok(site, 'PUT', '/agent/autonomy/writer', 200, { level: 'stage' });
    const goal = await site.admin('POST', '/agent/goals', {
      title: 'Stage it',
      steps: [{ skill: 'items.create', input: { collection: 'articles', items: { title: 'Later' } } }],
      role: 'writer',
      execution: 'sync',
    });
    expect(goal.status, JSON.stringify(goal.body)).toBe(202);
    const [pushed] = await until(
      async () => pushesAt(path, browser),
      (pushes) => pushes.length > 0,
    );
    expect(pushed).toMatchObject({ kind: 'agents.staged', entityId: goal.body.data.stagedId, deepLink: `/agent/staged/${goal.body.data.stagedId}` });

    const [row] = await service.context.database.withSiteReads(site.siteId, (tx) =>
      tx.query<{ event_id: string; data: StoredEvent<'notification.published'>['data']; recorded_at: Date }>({
        text: "SELECT event_id, data, recorded_at FROM events WHERE site_id = $1 AND type = 'notification.published'",
        values: [site.siteId],
      }),
    );
    const again = { eventId: row!.event_id, siteId: site.siteId, type: 'notification.published', data: row!.data, recordedAt: row!.recorded_at } as StoredEvent<'notification.published'>;
    const unusedSender = { publicKey: vapid.publicKey, send: () => Promise.reject(new Error('a claimed delivery is never sent again')) };
    expect(await pushNotification(service.context, unusedSender, again)).toBeNull();
    expect(pushesAt(path, browser)).toHaveLength(1);
  });
});
