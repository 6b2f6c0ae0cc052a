// Web push against a local push endpoint (node:http): the request arrives encrypted (aes128gcm,
// RFC 8291) with a VAPID Authorization header, and decrypts to the notification.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import webpush from 'web-push';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserKeys, decryptPush } from '../../support/pushBrowser.ts';
import { createTestSite, startTestServiceForFile, type TestService, type TestSite } from '../../support/testService.ts';

interface PushRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

const vapid = webpush.generateVAPIDKeys();
const service = await startTestServiceForFile({
  SVC_VAPID_PUBLIC_KEY: vapid.publicKey,
  SVC_VAPID_PRIVATE_KEY: vapid.privateKey,
  SVC_VAPID_SUBJECT: 'mailto:ops@example.com',
  SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
});
const unconfigured = await startTestServiceForFile();
let endpointServer: http.Server;
let endpointBase = '';
const received: PushRequest[] = [];
const goneEndpoints = new Set<string>();

beforeAll(async () => {
  endpointServer = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(goneEndpoints.has(request.url ?? '') ? 410 : 201).end();
    });
  });
  await new Promise<void>((resolve) => endpointServer.listen(0, '127.0.0.1', () => resolve()));
  endpointBase = `http://127.0.0.1:${(endpointServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  endpointServer.closeAllConnections();
  await new Promise<void>((resolve) => endpointServer.close(() => resolve()));
});

function call(target: TestService, site: TestSite, method: string, path: string, body?: unknown) {
  return target.request(method, path, { site: site.siteId, token: site.adminToken, body });
}

describe('web push', () => {
  it('serves the VAPID public key, and 404 PUSH_NOT_CONFIGURED without one', async () => {
    const site = await createTestSite(service);
    const key = await call(service, site, 'GET', '/push/vapid-public-key');
    expect(key.status).toBe(200);
    expect(key.body.data.publicKey).toBe(vapid.publicKey);
    const otherSite = await createTestSite(unconfigured);
    const missing = await call(unconfigured, otherSite, 'GET', '/push/vapid-public-key');
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].code).toBe('PUSH_NOT_CONFIGURED');
    const test = await call(unconfigured, otherSite, 'POST', '/push/test');
    expect(test.body.errors[0].code).toBe('PUSH_NOT_CONFIGURED');
    const status = await call(unconfigured, otherSite, 'GET', '/push/status');
    expect(status.body.data).toEqual({ vapidConfigured: false, realtimeAvailable: true, subscriptions: 0 });
    expect((await unconfigured.request('GET', '/push/status', { site: otherSite.siteId })).status).toBe(401);
  });

  it('upserts and removes subscriptions by endpoint, per user', async () => {
    const site = await createTestSite(service);
    const browser = browserKeys();
    const endpoint = `${endpointBase}/push/${site.siteId}/a`;
    const created = await call(service, site, 'POST', '/push/subscriptions', { endpoint, keys: browser.keys });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ endpoint, keys: browser.keys });
    const again = await call(service, site, 'POST', '/push/subscriptions', { endpoint, keys: browserKeys().keys });
    expect(again.status).toBe(200);
    expect((await call(service, site, 'GET', '/push/status')).body.data).toEqual({ vapidConfigured: true, realtimeAvailable: true, subscriptions: 1 });

    const other = await createTestSite(service);
    expect((await call(service, other, 'DELETE', '/push/subscriptions', { endpoint })).status).toBe(404);
    expect((await call(service, site, 'DELETE', '/push/subscriptions', { endpoint })).status).toBe(204);
    expect((await call(service, site, 'DELETE', '/push/subscriptions', { endpoint })).status).toBe(404);
    expect((await call(service, site, 'GET', '/push/status')).body.data.subscriptions).toBe(0);
  });

  it('refuses malformed subscriptions with a path, and writes nothing', async () => {
    const site = await createTestSite(service);
    const { keys } = browserKeys();
    for (const [body, path] of [
      [{ endpoint: 'not a url', keys }, ['body', 'endpoint']],
      [{ endpoint: `${endpointBase}/x`, keys: { ...keys, p256dh: 'abc' } }, ['body', 'keys', 'p256dh']],
      [{ endpoint: `${endpointBase}/x`, keys: { ...keys, auth: Buffer.alloc(8).toString('base64url') } }, ['body', 'keys', 'auth']],
      [{ endpoint: `${endpointBase}/x` }, ['body', 'keys']],
    ] as const) {
      const response = await call(service, site, 'POST', '/push/subscriptions', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path });
    }
    expect((await call(service, site, 'GET', '/push/status')).body.data.subscriptions).toBe(0);
  });

  it('sends an encrypted test notification with a VAPID signature, and forgets gone endpoints', async () => {
    const site = await createTestSite(service);
    const browser = browserKeys();
    const live = `${endpointBase}/push/${site.siteId}/live`;
    const gone = `${endpointBase}/push/${site.siteId}/gone`;
    goneEndpoints.add(new URL(gone).pathname);
    await call(service, site, 'POST', '/push/subscriptions', { endpoint: live, keys: browser.keys });
    await call(service, site, 'POST', '/push/subscriptions', { endpoint: gone, keys: browserKeys().keys });

    const result = await call(service, site, 'POST', '/push/test', { title: 'Hi', body: 'From the test' });
    expect(result.status).toBe(200);
    expect(result.body.data).toEqual({ sent: 1, failed: 1, removed: 1 });

    const request = received.find((candidate) => candidate.path === new URL(live).pathname)!;
    expect(request.headers['content-encoding']).toBe('aes128gcm');
    expect(request.headers.ttl).toBeDefined();
    const authorization = String(request.headers.authorization);
    const match = /^vapid t=([^,]+), k=(.+)$/.exec(authorization);
    expect(match).not.toBeNull();
    expect(match![2]).toBe(vapid.publicKey);
    expect(decodeProtectedHeader(match![1]!).alg).toBe('ES256');
    expect(decodeJwt(match![1]!)).toMatchObject({ aud: endpointBase, sub: 'mailto:ops@example.com' });
    const payload = JSON.parse(decryptPush(request.body, browser));
    expect(payload).toMatchObject({ kind: 'push.test', title: 'Hi', body: 'From the test' });

    expect((await call(service, site, 'GET', '/push/status')).body.data.subscriptions).toBe(1);
  });
});
