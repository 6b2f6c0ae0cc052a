// Job 1 of the Studio: sign in, stay signed in across a reload through the refresh cookie alone (no
// token in storage), the theme from the site and the user, sessions seen and revoked, switching sites,
// signing out; and the page's Content-Security-Policy.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestService, startTestServiceForFile } from '../support/testService.ts';
import { adminOf, expectAccessible, expectNoProblems, openStudio, screenshot, signIn, useChromium } from '../support/studioBrowser.ts';

const service = await startTestServiceForFile();
const chromium = useChromium();

describe('the Studio shell', () => {
  it('is served at /studio with a CSP that allows only itself and the API, and answers client paths with the page', async () => {
    const page = await fetch(`${service.url}/studio/collections/anything`);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    const html = await page.text();
    const asset = /src="(\/studio\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    const script = await fetch(`${service.url}${asset}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('cache-control')).toContain('immutable');
    expect(script.headers.get('content-security-policy')).toBe(csp);
    expect(script.headers.get('referrer-policy')).toBe('same-origin');
    expect((await fetch(`${service.url}/studio/assets/missing-123.js`)).status).toBe(404);
    for (const path of ['/studio', '/studio/']) {
      const root = await fetch(`${service.url}${path}`);
      expect(root.status).toBe(200);
      expect(root.headers.get('content-security-policy')).toBe(csp);
    }
  });

  it('answers 503 with the command to run where the Studio is not built', async () => {
    const bare = await startTestService({ SVC_STUDIO_DIR: mkdtempSync(join(tmpdir(), 'svc-no-studio-')) });
    try {
      for (const path of ['/studio', '/studio/collections/x']) {
        const answer = await fetch(`${bare.url}${path}`);
        expect(answer.status).toBe(503);
        expect(await answer.text()).toContain('npm run build:studio');
      }
    } finally {
      await bare.close();
    }
  });

  it('signs in, keeps the session across a reload with no token in storage, lists and revokes sessions, signs out', { timeout: 60_000 }, async () => {
    const site = await createTestSite(service, 'studio');
    // Two more sessions of the same user: the fixture's sign-in, and one from another device.
    const other = await service.request('POST', '/auth/login', { site: site.siteId, body: { email: site.adminEmail, password: site.adminPassword }, headers: { 'user-agent': 'OtherDevice/1.0' } });
    expect(other.status).toBe(200);
    const studio = await openStudio(chromium(), service);
    const { page } = studio;

    await page.goto('/studio/account');
    await expect.poll(() => page.url()).toContain('/studio/signin');
    await expectAccessible(page);
    await screenshot(page, 'signin');

    // A wrong password is refused on the form.
    await page.getByLabel('Site').fill(site.siteId);
    await page.getByLabel('Email').fill(site.adminEmail);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('INVALID_CREDENTIALS');

    await page.getByLabel('Password').fill(site.adminPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    expect(page.url()).toContain('/studio/account');

    // The access token lives in memory, the refresh token in the httpOnly cookie only.
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie);
    expect(stored).not.toMatch(/eyJ[\w-]+\.[\w-]+/);
    expect(stored).not.toContain('svc_refresh');
    const cookies = await studio.context.cookies();
    expect(cookies.find((cookie) => cookie.name === 'svc_refresh')?.httpOnly).toBe(true);

    await page.reload();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    const rows = page.getByRole('table', { name: 'Sessions' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    await expect.poll(() => page.getByText('this browser').count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'account');

    await page.getByRole('button', { name: /Revoke session from OtherDevice/ }).click();
    await expect.poll(() => rows.count()).toBe(2);
    const refused = await service.request('POST', '/auth/refresh', { site: site.siteId, body: { refreshToken: other.body.data.refreshToken } });
    expect(refused.status).toBe(401);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.reload();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expectNoProblems(studio);
    await studio.context.close();
  });

  it('takes the dark or light theme from the site and the user, with the site’s token overrides', { timeout: 60_000 }, async () => {
    const site = await createTestSite(service, 'studio');
    const patched = await service.request('PATCH', '/site', {
      site: site.siteId,
      token: site.adminToken,
      body: { defaultAppearance: 'dark', themeOverrides: { dark: { background: '240 30% 9%' }, light: {} }, displayTitle: 'Newsroom' },
    });
    expect(patched.status).toBe(200);
    const studio = await openStudio(chromium(), service, { colorScheme: 'light' });
    const { page } = studio;
    await signIn(studio, adminOf(site), '/studio/account');
    const theme = () => page.evaluate(() => [document.documentElement.dataset.theme, getComputedStyle(document.documentElement).getPropertyValue('--background').trim()]);
    await expect.poll(theme).toEqual(['dark', '240 30% 9%']);
    await expect.poll(() => page.title()).toBe('Newsroom · Studio');
    await expectAccessible(page);
    await screenshot(page, 'theme-dark');

    await page.getByLabel('Appearance').selectOption('light');
    await expect.poll(theme).toEqual(['light', '0 0% 100%']);
    const preferences = await service.request('GET', '/me/preferences', { site: site.siteId, token: site.adminToken });
    expect(preferences.body.data.appearance).toBe('light');
    await expectAccessible(page);
    expectNoProblems(studio);
    await studio.context.close();
  });

  it('switches to another site by signing in there, and remembers both', { timeout: 60_000 }, async () => {
    const first = await createTestSite(service, 'studio');
    const second = await createTestSite(service, 'studio');
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, adminOf(first), '/studio/account');
    await page.getByLabel('Switch site').selectOption('');
    await page.getByLabel('Site').fill(second.siteId);
    await page.getByLabel('Email').fill(second.adminEmail);
    await page.getByLabel('Password').fill(second.adminPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Studio' }).waitFor();
    await expect.poll(() => page.getByLabel('Switch site').inputValue()).toBe(second.siteId);
    const options = await page.getByLabel('Switch site').locator('option').allTextContents();
    expect(options).toEqual(expect.arrayContaining([first.siteId, second.siteId]));
    expectNoProblems(studio);
    await studio.context.close();
  });
});
