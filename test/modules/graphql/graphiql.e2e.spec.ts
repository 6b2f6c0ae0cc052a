// GraphiQL served by the service: the page names no other host and carries a self-only CSP, its
// assets (the installed @graphql-yoga/graphiql) answer with their types and immutable caching, the
// headers pane starts with the site (`?site=`, else the request's site), and headless Chromium with
// every other host blocked loads the editor, its title and the prefilled X-Svc-Site. Chromium must be
// installed (/usr/bin/chromium): without it the browser test fails, it never skips.
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSite, startTestService, startTestServiceForFile } from '../../support/testService.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const service = await startTestServiceForFile();

async function page(path: string, headers: Record<string, string> = {}) {
  const response = await service.request('GET', path, { headers: { accept: 'text/html', ...headers } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  return { html: String(response.body), headers: response.headers };
}

/** The options the page hands GraphiQL (its JSON script). */
function optionsOf(html: string): { title: string; endpoint: string; headers: string } {
  const json = /<script id="graphiql-options" type="application\/json">(.*?)<\/script>/s.exec(html)?.[1];
  expect(json, html).toBeDefined();
  return JSON.parse(json!);
}

const assetPaths = (html: string) => [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => match[1]!).filter((path) => !path.startsWith('data:'));

describe('the page', () => {
  it('names no other host, renders its title and loads its assets from the service under a self-only CSP', async () => {
    const { html, headers } = await page('/graphql');
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toContain('__TITLE__');
    expect(html).toContain('<title>Svc GraphiQL</title>');
    const csp = headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/https?:|\*/);
    expect(headers.get('cache-control')).toBe('no-store');
    const assets = assetPaths(html);
    expect(assets.length).toBe(2);
    for (const path of assets) expect(path).toMatch(/^\/api\/v1\/graphql\/assets\/[0-9.]+\/(graphiql\.css|graphiql-start\.js)$/);
    expect(optionsOf(html)).toMatchObject({ title: 'Svc GraphiQL', endpoint: '/api/v1/graphql' });
  });

  it('prefills X-Svc-Site from ?site=, else from the request\'s site, and never a value that is not a site', async () => {
    const site = await createTestSite(service, 'graphiql');
    const prefilled = async (path: string, headers: Record<string, string> = {}) => JSON.parse(optionsOf((await page(path, headers)).html).headers);
    expect(await prefilled(`/graphql?site=${site.siteId}`)).toEqual({ 'X-Svc-Site': site.siteId });
    expect(await prefilled('/graphql', { 'x-svc-site': site.siteId })).toEqual({ 'X-Svc-Site': site.siteId });
    expect(await prefilled('/graphql?site=other-site', { 'x-svc-site': site.siteId })).toEqual({ 'X-Svc-Site': 'other-site' });
    expect(await prefilled('/graphql')).toEqual({ 'X-Svc-Site': '' });
    const hostile = await page(`/graphql?site=${encodeURIComponent('</script><script>alert(1)</script>')}`);
    expect(JSON.parse(optionsOf(hostile.html).headers)).toEqual({ 'X-Svc-Site': '' });
    expect(hostile.html).not.toContain('alert(1)');
  });
});

describe('the assets', () => {
  it('answers every asset the page and its script name with its type and immutable caching', async () => {
    const { html } = await page('/graphql');
    const base = assetPaths(html)[0]!.replace(/\/[^/]+$/, '').replace(/^\/api\/v1/, '');
    const expected: [string, RegExp][] = [
      ['graphiql.css', /^text\/css/],
      ['graphiql-start.js', /^text\/javascript/],
      ['yoga-graphiql.es.js', /^text\/javascript/],
      ['editor.worker.js', /^text\/javascript/],
      ['json.worker.js', /^text\/javascript/],
      ['graphql.worker.js', /^text\/javascript/],
    ];
    for (const [file, type] of expected) {
      const response = await fetch(`${service.url}/api/v1${base}/${file}`);
      expect(response.status, file).toBe(200);
      expect(response.headers.get('content-type'), file).toMatch(type);
      expect(response.headers.get('cache-control'), file).toBe('public, max-age=31536000, immutable');
      expect((await response.text()).length, file).toBeGreaterThan(100);
    }
  });

  it('answers 404 NOT_FOUND for a file it does not serve or another version', async () => {
    const { html } = await page('/graphql');
    const version = /assets\/([0-9.]+)\//.exec(html)![1]!;
    for (const [path, at] of [
      [`/graphql/assets/${version}/package.json`, 'file'],
      [`/graphql/assets/${version}/..%2Fpackage.json`, 'file'],
      ['/graphql/assets/0.0.1/graphiql.css', 'version'],
    ] as const) {
      const response = await service.request('GET', path);
      expect(response.status, path).toBe(404);
      expect(response.body.errors[0], path).toMatchObject({ code: 'NOT_FOUND', path: ['params', at] });
    }
  });
});

describe('in production', () => {
  it('serves neither the page nor its assets', async () => {
    const production = await startTestService({ NODE_ENV: 'production' });
    try {
      const { html } = await page('/graphql');
      const asset = assetPaths(html).find((path) => path.endsWith('graphiql.css'))!;
      const pageThere = await production.request('GET', '/graphql', { headers: { accept: 'text/html' } });
      expect(pageThere.headers.get('content-type')).toMatch(/^application\/json/);
      expect(String(JSON.stringify(pageThere.body))).not.toContain('GraphiQL');
      expect(pageThere.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION', status: 400 });
      const assetThere = await fetch(`${production.url}${asset}`);
      expect(assetThere.status).toBe(404);
    } finally {
      await production.close();
    }
  });
});

describe('in a browser with no other host reachable', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('loads the editor with its title and sends the prefilled X-Svc-Site', { timeout: 60_000 }, async () => {
    const site = await createTestSite(service, 'graphiql-browser');
    const context = await browser.newContext();
    const tab = await context.newPage();
    const blocked: string[] = [];
    const problems: string[] = [];
    const loaded: string[] = [];
    context.on('requestfinished', (request) => loaded.push(new URL(request.url()).pathname));
    await tab.route('**/*', async (route) => {
      const url = route.request().url();
      if (url.startsWith(`${service.url}/`) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      blocked.push(url);
      return route.abort();
    });
    tab.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy|Failed to load/i.test(message.text())) problems.push(message.text());
    });
    tab.on('pageerror', (error) => problems.push(error.message));
    const introspection = tab.waitForRequest((request) => request.url().startsWith(`${service.url}/api/v1/graphql`) && request.method() === 'POST');

    await tab.goto(`${service.url}/api/v1/graphql?site=${site.siteId}`);
    await tab.waitForSelector('.graphiql-container .monaco-editor', { timeout: 30_000 });
    expect(await tab.title()).toBe('Svc GraphiQL');
    expect(await tab.textContent('body')).not.toContain('__TITLE__');
    expect(await tab.textContent('.graphiql-logo')).toContain('Svc GraphiQL');
    // GraphiQL's first request (the schema's introspection) carries the prefilled header.
    const sent = await introspection;
    expect(sent.headers()['x-svc-site']).toBe(site.siteId);
    // The script, the styles and Monaco's editor worker came from the service.
    await expect.poll(() => loaded.filter((path) => path.includes('/graphql/assets/')).map((path) => path.replace(/.*\//, '')).sort(), { timeout: 20_000 }).toEqual(
      expect.arrayContaining(['editor.worker.js', 'graphiql-start.js', 'graphiql.css', 'yoga-graphiql.es.js']),
    );
    expect(blocked).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
