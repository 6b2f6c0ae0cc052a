// The SDK in a real browser: sdk/src bundled for the browser by esbuild (a Node-only import would fail
// the bundle), loaded by headless Chromium from a page on another port, calling the service across
// origins. It signs in with the refresh token in the service's httpOnly cookie, refreshes through the
// cookie and X-Svc-Refresh, reads typed REST, and receives realtime signals over the browser's WebSocket.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCollection } from '../support/contentModel.ts';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const service = await startTestServiceForFile();
const serviceOrigin = new URL(service.url).origin;

let browser: Browser;
let page: Page;
let pageServer: Server;
let pageOrigin = '';

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL('../../sdk/src/index.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
  });
  const script = bundle.outputFiles[0]!.text;
  pageServer = createServer((request, response) => {
    if (request.url === '/sdk.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
    } else {
      // The page loads the bundle as a module and hands it to the tests' evaluations.
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!doctype html><title>sdk in a browser</title><script type="module">import * as sdk from "/sdk.js"; window.svcSdk = sdk;</script>');
    }
  });
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  page = await browser.newPage();
  await page.goto(`${pageOrigin}/`);
  await page.waitForFunction(() => 'svcSdk' in globalThis);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => pageServer?.close(resolve));
});

describe('the SDK in Chromium', () => {
  it('signs in with the refresh cookie, refreshes through it, reads REST and gets realtime signals', { timeout: 60_000 }, async () => {
    const site = await createTestSite(service, 'sdk');
    await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
    const allowed = await service.request('PUT', '/settings/corsOrigins', { site: site.siteId, token: site.adminToken, body: { value: [pageOrigin] } });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);

    // The page signs in and subscribes; the test then writes from here and waits for the page's signal.
    const signedIn = await page.evaluate(
      async ({ baseUrl, site, email, password }) => {
        const { createSvcClient } = (globalThis as unknown as { svcSdk: typeof import('../../sdk/src/index.ts') }).svcSdk;
        const client = createSvcClient({ baseUrl, site });
        const { user, tokens } = await client.auth.login(email, password);
        const me = await client.api.GET('/api/v1/auth/me');
        // Only the cookie carries the refresh token here: without it the service answers 400.
        const refreshed = await client.auth.refresh();
        const afterRefresh = await client.api.GET('/api/v1/auth/me');
        const signals: unknown[] = [];
        const subscription = client.realtime.subscribe('articles', undefined, (signal) => signals.push(signal));
        await subscription.ready;
        Object.assign(globalThis, { sdkTest: { client, signals, subscription } });
        return {
          userId: user.id,
          refreshTokenInBody: tokens.refreshToken,
          meEmail: me.data!.data.email,
          refreshed: refreshed.refreshToken === null && client.auth.token === refreshed.token,
          afterRefreshEmail: afterRefresh.data!.data.email,
          cookieVisible: document.cookie,
        };
      },
      { baseUrl: serviceOrigin, site: site.siteId, email: site.adminEmail, password: site.adminPassword },
    );
    expect(signedIn).toEqual({
      userId: site.adminUserId,
      // Cookie mode: the client keeps no refresh token, and the page cannot read the httpOnly cookie.
      refreshTokenInBody: null,
      meEmail: site.adminEmail,
      refreshed: true,
      afterRefreshEmail: site.adminEmail,
      cookieVisible: '',
    });

    let itemId = '';
    for (let attempt = 0; attempt < 20 && itemId === ''; attempt += 1) {
      const created = await service.request('POST', '/items/articles', { site: site.siteId, token: site.adminToken, body: { title: `From Node ${attempt}` } });
      const id = created.body.data.id as string;
      const seen = await page
        .waitForFunction((wanted) => (globalThis as unknown as { sdkTest: { signals: { itemId?: string }[] } }).sdkTest.signals.some((signal) => signal.itemId === wanted), id, { timeout: 1_000 })
        .then(() => true, () => false);
      if (seen) itemId = id;
    }
    expect(itemId).not.toBe('');
    const typedRead = await page.evaluate(async (id) => {
      const { client, subscription } = (globalThis as unknown as { sdkTest: { client: any; subscription: { close(): void } } }).sdkTest;
      subscription.close();
      const { data, version } = await client.items('articles').get(id, { fields: ['title'] });
      const refused = await client.items('articles').get('0190a0a0-0000-7000-8000-000000000000').catch((error: { name: string; status: number; code: string }) => ({ name: error.name, status: error.status, code: error.code }));
      return { data, version, refused };
    }, itemId);
    expect(typedRead).toEqual({ data: { title: expect.stringMatching(/^From Node/) }, version: 1, refused: { name: 'SvcError', status: 404, code: 'RECORD_NOT_FOUND' } });
  });
});
