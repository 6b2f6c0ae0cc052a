// The built Studio in headless Chromium (playwright-core, Debian's /usr/bin/chromium): a page per test,
// signed in through the Studio's own form, with every console error and Content-Security-Policy
// violation collected so a test can insist there were none. `STUDIO_SCREENSHOTS=1` writes the main
// screens to docs/studio/ (the README shows them).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { TestService, TestSite } from './testService.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'docs', 'studio');

export interface StudioPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and CSP violations seen so far. */
  problems: string[];
}

/** One Chromium for the test file, closed after its last test. */
export function useChromium(): () => Browser {
  let browser: Browser | null = null;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('Chromium is not started yet');
    return browser;
  };
}

/** A fresh browser context (its own cookies) on the service's Studio. */
export async function openStudio(browser: Browser, service: TestService, options: { colorScheme?: 'light' | 'dark' } = {}): Promise<StudioPage> {
  const context = await browser.newContext({ baseURL: service.url, viewport: { width: 1280, height: 800 }, colorScheme: options.colorScheme ?? 'light' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    // A refused request (a 400 the page shows at its field, a 401 before sign-in) is logged by Chromium as
    // "Failed to load resource"; the page handles those. Anything else, CSP refusals included, is a problem.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { page, context, problems };
}

/** Signs in through the Studio's form and waits for the signed-in shell. */
export async function signIn(studio: StudioPage, site: { siteId: string; email: string; password: string }, next = '/studio/'): Promise<void> {
  const { page } = studio;
  await page.goto(next);
  await page.getByLabel('Site').fill(site.siteId);
  await page.getByLabel('Email').fill(site.email);
  await page.getByLabel('Password').fill(site.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Studio' }).waitFor();
}

export function adminOf(site: TestSite) {
  return { siteId: site.siteId, email: site.adminEmail, password: site.adminPassword };
}

/**
 * No serious or critical axe violation on the page as it is now (WCAG 2.1 A and AA rules). Failures
 * name the rule and the first elements it found.
 */
export async function expectAccessible(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const bad = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect(bad.map((violation) => `${violation.id}: ${violation.help} at ${violation.nodes.slice(0, 3).map((node) => node.target.join(' ')).join(', ')}`)).toEqual([]);
}

/** Writes docs/studio/<name>.png when STUDIO_SCREENSHOTS=1 (the committed screenshots of the README). */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.STUDIO_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
}

/** No console error and no CSP violation happened in the page. */
export function expectNoProblems(studio: StudioPage): void {
  expect(studio.problems).toEqual([]);
}
