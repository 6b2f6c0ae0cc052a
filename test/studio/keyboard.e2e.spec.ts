// The Studio with the keyboard alone: sign in, skip to the content, reach a collection from the
// navigation, open an item, change a field and save it, close a dialog with Escape: Tab, Shift+Tab,
// Enter and Escape only, no mouse.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createCollection } from '../support/contentModel.ts';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';
import { expectNoProblems, openStudio, useChromium } from '../support/studioBrowser.ts';

const service = await startTestServiceForFile();
const chromium = useChromium();

/** Presses Tab until the focused element's accessible text matches, at most 80 times. */
async function tabTo(page: Page, name: RegExp): Promise<void> {
  for (let presses = 0; presses < 80; presses += 1) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement | null;
      if (!element) return '';
      const labelled = element.getAttribute('aria-label') ?? (element.id ? document.querySelector(`label[for="${element.id}"]`)?.textContent : null);
      return (labelled ?? element.textContent ?? '').trim();
    });
    if (name.test(focused)) return;
  }
  throw new Error(`no element named ${name} in 80 presses of Tab`);
}

describe('the Studio with the keyboard', () => {
  it('signs in, moves through the navigation, edits and saves an item, and closes a dialog with Escape', { timeout: 90_000 }, async () => {
    const site = await createTestSite(service, 'skey');
    await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
    const created = await service.request('POST', '/items/articles', { site: site.siteId, token: site.adminToken, body: { title: 'Typed' } });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;

    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await page.goto('/studio/');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await tabTo(page, /^Site$/);
    await page.keyboard.type(site.siteId);
    await page.keyboard.press('Tab');
    await page.keyboard.type(site.adminEmail);
    await page.keyboard.press('Tab');
    await page.keyboard.type(site.adminPassword);
    await page.keyboard.press('Enter');
    await page.getByRole('navigation', { name: 'Studio' }).waitFor();

    // The first Tab reaches the skip link, which moves focus to the page's content.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await tabTo(page, /^Collections$/);
    await page.keyboard.press('Enter');
    await page.getByRole('table', { name: 'Collections' }).waitFor();
    await tabTo(page, /^articles$/i);
    await page.keyboard.press('Enter');
    await page.getByRole('table', { name: 'articles items' }).waitFor();
    await tabTo(page, new RegExp(`^Open item ${id}$`));
    await page.keyboard.press('Enter');
    await page.getByRole('form', { name: 'Edit item' }).waitFor();
    await tabTo(page, /^Title$/);
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('Typed with the keyboard');
    await tabTo(page, /^Save$/);
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await service.request('GET', `/items/articles/${id}`, { site: site.siteId, token: site.adminToken })).body.data.title).toBe('Typed with the keyboard');

    // A dialog takes the focus and gives it back on Escape.
    await page.goto('/studio/admin/roles');
    await tabTo(page, /^(New role|Create role|Add role)$/);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await page.evaluate(() => Boolean(document.activeElement?.closest('dialog')))).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expectNoProblems(studio);
    await studio.context.close();
  });
});
