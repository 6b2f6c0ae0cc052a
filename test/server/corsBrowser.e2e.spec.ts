// CORS in a real browser: headless Chromium loads a page from one localhost port and calls the API on
// another with fetch. The browser, not this test, decides what the page may read: an origin the site
// lists reads its answers with credentials and custom headers (a preflighted PATCH included), an
// origin it does not list is blocked, and public delivery is readable from anywhere without
// credentials. Chromium must be installed (/usr/bin/chromium; .ci/run installs it): without it this
// file fails, it never skips.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, dataOf } from '../modules/settings/support.ts';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const service = await startTestServiceForFile();
const api = `${service.url}/api/v1`;

/** A page server of its own on a free localhost port: its origin is what the browser sends as Origin. */
async function startPageServer(): Promise<{ origin: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>cors test page</title><p>calling the API</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

let browser: Browser;
let allowedPage: Page;
let strangerPage: Page;
const pageServers: Server[] = [];
let allowedOrigin = '';

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const allowed = await startPageServer();
  const stranger = await startPageServer();
  pageServers.push(allowed.server, stranger.server);
  allowedOrigin = allowed.origin;
  allowedPage = await browser.newPage();
  await allowedPage.goto(`${allowed.origin}/`);
  strangerPage = await browser.newPage();
  await strangerPage.goto(`${stranger.origin}/`);
});

afterAll(async () => {
  await browser?.close();
  await Promise.all(pageServers.map((server) => new Promise((resolve) => server.close(resolve))));
});

interface FetchOutcome {
  ok: boolean;
  status?: number;
  body?: any;
  requestId?: string | null;
  error?: string;
}

/** Runs fetch in the page: what the page can read of the answer, or the error the browser gave it. */
function fetchFrom(page: Page, url: string, init: { method?: string; headers?: Record<string, string>; body?: string; credentials?: 'include' | 'omit' }): Promise<FetchOutcome> {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const response = await fetch(url, init);
        const text = await response.text();
        return { ok: true, status: response.status, body: text ? JSON.parse(text) : null, requestId: response.headers.get('x-request-id') };
      } catch (error) {
        return { ok: false, error: String(error) };
      }
    },
    { url, init },
  );
}

describe('CORS in Chromium', () => {
  it('lets a listed origin read answers with credentials and custom headers, and send a preflighted PATCH', async () => {
    const site = await createTestSite(service);
    dataOf(await caller(service, site)('PUT', '/settings/corsOrigins', { value: [allowedOrigin] }));
    const headers = { authorization: `Bearer ${site.adminToken}`, 'x-svc-site': site.siteId };

    const me = await fetchFrom(allowedPage, `${api}/auth/me`, { headers, credentials: 'include' });
    expect(me, JSON.stringify(me)).toMatchObject({ ok: true, status: 200, body: { data: { id: site.adminUserId } } });
    // An exposed header is readable.
    expect(me.requestId).toMatch(/^[0-9a-f-]{36}$/);

    const patched = await fetchFrom(allowedPage, `${api}/settings`, {
      method: 'PATCH',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ 'studio.theme': 'dark' }),
      credentials: 'include',
    });
    expect(patched, JSON.stringify(patched)).toMatchObject({ ok: true, status: 200, body: { data: { 'studio.theme': 'dark' } } });
    expect(dataOf(await caller(service, site)('GET', '/settings/studio.theme'))).toMatchObject({ value: 'dark' });

    // A refusal is readable too: the page learns why.
    const refused = await fetchFrom(allowedPage, `${api}/settings`, { headers: { 'x-svc-site': site.siteId }, credentials: 'include' });
    expect(refused).toMatchObject({ ok: true, status: 401, body: { errors: [{ code: 'UNAUTHENTICATED' }] } });
  });

  it('blocks an origin the site does not list, and one that only another site lists', async () => {
    const site = await createTestSite(service);
    const headers = { authorization: `Bearer ${site.adminToken}`, 'x-svc-site': site.siteId };
    const blocked = await fetchFrom(strangerPage, `${api}/auth/me`, { headers });
    expect(blocked.ok, JSON.stringify(blocked)).toBe(false);
    expect(blocked.error).toMatch(/TypeError/);
    const patch = await fetchFrom(strangerPage, `${api}/settings`, {
      method: 'PATCH',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ 'studio.theme': 'evil' }),
    });
    expect(patch.ok).toBe(false);
    // The preflight failed: the PATCH was never sent.
    expect(dataOf(await caller(service, site)('GET', '/settings'))).not.toHaveProperty('studio.theme');

    // The allowed page's origin is listed by another site (the first test's), not by this one: its
    // preflight passes (no site on a preflight), the request itself is blocked.
    const lister = await createTestSite(service);
    dataOf(await caller(service, lister)('PUT', '/settings/corsOrigins', { value: [allowedOrigin] }));
    const otherSite = await fetchFrom(allowedPage, `${api}/auth/me`, { headers, credentials: 'include' });
    expect(otherSite.ok, JSON.stringify(otherSite)).toBe(false);
  });

  it('lets any page read public delivery without credentials, and never with them', async () => {
    const site = await createTestSite(service);
    dataOf(await caller(service, site)('PUT', '/settings/menus', { value: { main: { items: [{ label: 'Home', url: '/' }] } } }));
    const menu = await fetchFrom(strangerPage, `${api}/deliver/menu/main`, { headers: { 'x-svc-site': site.siteId } });
    expect(menu, JSON.stringify(menu)).toMatchObject({ ok: true, status: 200, body: { data: { items: [{ label: 'Home', url: '/' }] } } });
    // `*` is never credentialed: the browser refuses a credentialed read of it.
    const credentialed = await fetchFrom(strangerPage, `${api}/deliver/menu/main`, { headers: { 'x-svc-site': site.siteId }, credentials: 'include' });
    expect(credentialed.ok).toBe(false);
  });
});
