// Administration, the site: its configuration saved (titles, save action, branding, a theme token),
// a bad token value refused at its input, a key/value setting added; and the config manifest exported,
// a changed one dry-run (its diff shown) and then applied.
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';
import { adminOf, expectAccessible, expectNoProblems, openStudio, screenshot, signIn, useChromium } from '../support/studioBrowser.ts';

const service = await startTestServiceForFile();
const chromium = useChromium();

describe('Studio administration: site settings and the config manifest', () => {
  it('saves the site configuration with theme overrides, refuses a bad token at its input, and adds a setting', { timeout: 90_000 }, async () => {
    const site = await createTestSite(service, 'studio');
    const api = (method: string, path: string) => service.request(method, path, { site: site.siteId, token: site.adminToken });
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, adminOf(site), '/studio/admin/settings');
    const form = page.getByRole('form', { name: 'Site' });
    await form.getByLabel('Display title').fill('Newsroom');
    await form.getByLabel('Site URL').fill('https://news.example.com');
    await form.getByLabel('Default save action').selectOption('return');
    await form.getByLabel('Brand color').fill('#3355ff');
    await form.getByLabel('primary (light)').fill('220 90% 56%');
    await form.getByLabel('background (dark)').fill('blue');
    await form.getByRole('button', { name: 'Save site' }).click();
    const tokenError = form.getByRole('row', { name: /^background/ }).getByRole('alert');
    await expect.poll(() => tokenError.textContent()).toContain("'H S% L%'");
    await expectAccessible(page);
    await screenshot(page, 'admin-settings');
    expect((await api('GET', '/site')).body.data.displayTitle).not.toBe('Newsroom');

    await form.getByLabel('background (dark)').fill('240 30% 9%');
    await form.getByRole('button', { name: 'Save site' }).click();
    await form.getByText('Saved').waitFor();
    const saved = (await api('GET', '/site')).body.data;
    expect(saved).toMatchObject({
      displayTitle: 'Newsroom',
      siteUrl: 'https://news.example.com',
      defaultSaveAction: 'return',
      branding: { brandColor: '#3355ff' },
      themeOverrides: { light: { primary: '220 90% 56%' }, dark: { background: '240 30% 9%' } },
    });
    await expect.poll(() => page.title()).toBe('Newsroom · Studio');

    const setting = page.getByRole('form', { name: 'Setting new setting' });
    await setting.getByLabel('Setting key').fill('homepage');
    await setting.getByLabel('Value (JSON)').fill('{"hero": true}');
    await setting.getByRole('button', { name: 'Add setting' }).click();
    await page.getByLabel('homepage (JSON)').waitFor();
    expect((await api('GET', '/settings/homepage')).body.data.value).toEqual({ hero: true });
    expectNoProblems(studio);
    await studio.context.close();
  });

  it('exports the config manifest, dry-runs a changed one showing its diff, then applies it', { timeout: 90_000 }, async () => {
    const site = await createTestSite(service, 'studio');
    const api = (method: string, path: string, body?: unknown) => service.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }) });
    expect((await api('POST', '/collections', { name: 'articles', fields: [{ field: 'title', type: 'string' }] })).status).toBe(201);
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, adminOf(site), '/studio/admin/config');
    const exported = page.getByLabel('Exported manifest');
    await expect.poll(() => exported.textContent()).toContain('svc.config@v1');
    const manifest = JSON.parse((await exported.textContent())!) as { collections: Record<string, unknown>[]; fields: Record<string, unknown>[] };
    expect(manifest.collections.map((collection) => collection.name)).toContain('articles');
    await expectAccessible(page);

    // A new collection with a field, and a changed interface.
    manifest.collections.push({ name: 'events', label: 'Events' });
    manifest.fields.push({ collection: 'events', field: 'title', type: 'string', interface: 'input' });
    const title = manifest.fields.find((field) => field.collection === 'articles' && field.field === 'title')!;
    title.interface = 'textarea';
    await page.getByLabel('Manifest (JSON)').fill(JSON.stringify(manifest, null, 2));
    await page.getByRole('button', { name: 'Dry run' }).click();
    const changes = page.getByRole('table', { name: 'Planned changes' });
    await changes.getByRole('cell', { name: 'events', exact: true }).waitFor();
    const update = changes.getByRole('row', { name: /articles\.title/ });
    await expect.poll(() => update.textContent()).toContain('interface');
    expect(await update.locator('.diff-added').first().textContent()).toContain('textarea');
    await expectAccessible(page);
    await screenshot(page, 'admin-config-dry-run');
    expect((await api('GET', '/collections/events')).status).toBe(404);

    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText(/^Applied: \d+ created/).waitFor();
    expect((await api('GET', '/collections/events')).status).toBe(200);
    expect((await api('GET', '/fields/articles/title')).body.data.interface).toBe('textarea');

    // A manifest that is not one: refused, shown.
    await page.getByLabel('Manifest (JSON)').fill('{"version": "nope"}');
    await page.getByRole('button', { name: 'Dry run' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toBeTruthy();
    expectNoProblems(studio);
    await studio.context.close();
  });
});
