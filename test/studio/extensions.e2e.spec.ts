// Job 12 of the Studio: extensions. An administrator uploads a signed bundle through the form (a bad
// signature and an untrusted signer refused and shown), enables it and grants a capability; its UI
// panels appear where the manifest declares them, each in a sandboxed frame (allow-scripts only) that
// cannot reach the Studio's page, storage or token. A member does not see the page and is refused.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';
import { adminOf, expectAccessible, expectNoProblems, openStudio, screenshot, signIn, useChromium } from '../support/studioBrowser.ts';
import { bundleBytes, communityKey, signatureOf, strangerKey, TRUSTED_KEYS } from '../modules/extensions/support.ts';
import { createMember } from '../modules/identity/support/identity.ts';

const service = await startTestServiceForFile({ SVC_EXTENSION_TRUSTED_KEYS: TRUSTED_KEYS });
const chromium = useChromium();
const folder = mkdtempSync(join(tmpdir(), 'studio-ext-'));

const UI = {
  panels: [
    { id: 'stats', title: 'Word stats', location: 'navigation' },
    { id: 'board', title: 'Board words', location: 'dashboard' },
    { id: 'item', title: 'Item words', location: 'item.sidebar' },
    { id: 'list', title: 'List words', location: 'collection.toolbar' },
  ],
};
const CODE = "module.exports.run = async (input, api) => { await api.log('panel', input.panel); return { panel: input.panel, words: 42, top: ['alpha', 'beta'] }; };";

describe('the Studio: extensions', () => {
  it('uploads a signed bundle (refusing a bad signature and an untrusted signer), enables it, grants a capability, and shows its panels in sandboxed frames', { timeout: 120_000 }, async () => {
    const site = await createTestSite(service, 'sext');
    const admin = { site: site.siteId, token: site.adminToken };
    const bytes = bundleBytes({ name: 'word-count', capabilities: ['log', 'items:read:articles'], ui: UI, code: CODE });
    const file = join(folder, `${site.siteId}.json`);
    writeFileSync(file, bytes);

    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, adminOf(site), '/studio/extensions');
    await page.getByRole('heading', { name: 'Extensions', level: 1 }).waitFor();
    await expect.poll(() => page.getByText('No extensions installed.').count()).toBe(1);

    // A signature by another key is refused at the signature; an unknown signer at the key id.
    const form = page.getByRole('form', { name: 'Upload extension' });
    await form.getByLabel('Bundle file').setInputFiles(file);
    await form.getByLabel('Signature').fill(signatureOf(bytes, strangerKey));
    await form.getByLabel('Signer key id').fill(communityKey.keyId);
    await form.getByRole('button', { name: 'Upload' }).click();
    await expect.poll(() => form.getByRole('alert').first().textContent()).toContain('bad_signature');
    await expect.poll(() => form.locator('.field-error').first().textContent()).toBeTruthy();
    await form.getByLabel('Signer key id').fill(strangerKey.keyId);
    await form.getByRole('button', { name: 'Upload' }).click();
    await expect.poll(() => form.getByRole('alert').first().textContent()).toContain('untrusted_signer');
    expect((await service.request('GET', '/extensions', admin)).body.data).toEqual([]);
    await expectAccessible(page);

    // The right signature installs it, disabled.
    await form.getByLabel('Signature').fill(signatureOf(bytes, communityKey));
    await form.getByLabel('Signer key id').fill(communityKey.keyId);
    await form.getByRole('button', { name: 'Upload' }).click();
    await page.getByText('Installed word-count 1.0.0').waitFor();
    const listed = (await service.request('GET', '/extensions', admin)).body.data;
    expect(listed.map((extension: any) => [extension.name, extension.status, extension.signerKeyId])).toEqual([['word-count', 'disabled', communityKey.keyId]]);
    const extensionId = listed[0].id as string;

    // Enable, and grant `log` only.
    await page.getByRole('button', { name: 'Enable word-count' }).click();
    await page.getByRole('button', { name: 'Disable word-count' }).waitFor();
    await page.getByRole('button', { name: 'Capabilities of word-count' }).click();
    await page.getByRole('dialog').getByRole('checkbox', { name: 'log' }).check();
    await page.getByRole('dialog').getByRole('button', { name: 'Save capabilities' }).click();
    await expect.poll(async () => (await service.request('GET', '/extensions', admin)).body.data[0].capabilities.granted).toEqual(['log']);
    expect((await service.request('GET', '/extensions', admin)).body.data[0].status).toBe('enabled');
    await page.getByRole('cell', { name: /^log of 2/ }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'insights-extensions');

    // Its navigation panel: a page of its own, drawn in the sandboxed frame.
    await page.getByRole('link', { name: 'Extension panels' }).click();
    await page.getByRole('link', { name: 'Word stats' }).click();
    await page.getByRole('heading', { name: 'Word stats', level: 1 }).waitFor();
    const iframe = page.locator('iframe[title="Word stats (extension word-count)"]');
    expect(await iframe.getAttribute('sandbox')).toBe('allow-scripts');
    const frame = page.frameLocator('iframe[title="Word stats (extension word-count)"]');
    await frame.getByRole('cell', { name: '42' }).waitFor();
    expect(await frame.getByRole('rowheader', { name: 'panel' }).count()).toBe(1);
    expect(await frame.getByRole('cell', { name: 'stats' }).count()).toBe(1);
    expect(await frame.locator('html').getAttribute('data-theme')).toBe('light');
    expect(await frame.locator('html').getAttribute('data-site')).toBe(site.siteId);
    await page.getByText('Log of the run (1)').waitFor();

    // The frame has an opaque origin: no parent document, no storage, no cookie, no token in its document.
    const handle = await iframe.elementHandle();
    const content = await handle!.contentFrame();
    const reach = await content!.evaluate(() => {
      const attempt = (read: () => unknown) => {
        try {
          return `read: ${String(read())}`;
        } catch (error) {
          return `refused: ${(error as Error).name}`;
        }
      };
      return {
        origin: window.origin,
        parentDocument: attempt(() => window.parent.document.title),
        parentStorage: attempt(() => window.parent.localStorage.length),
        storage: attempt(() => window.localStorage.length),
        cookie: attempt(() => document.cookie),
        html: document.documentElement.outerHTML,
      };
    });
    expect(reach.origin).toBe('null');
    expect(reach.parentDocument).toMatch(/^refused: SecurityError/);
    expect(reach.parentStorage).toMatch(/^refused: SecurityError/);
    expect(reach.storage).toMatch(/^refused: SecurityError/);
    expect(reach.cookie).toMatch(/^refused: SecurityError/);
    expect(reach.html).not.toMatch(/eyJ[\w-]+\.[\w-]+/);
    expect(reach.html).not.toContain(site.adminToken);
    await expectAccessible(page);
    await screenshot(page, 'insights-extension-panel');

    // Its dashboard panel appears on a dashboard.
    const dashboard = await service.request('POST', '/dashboards', { ...admin, body: { name: 'Board' } });
    await page.goto(`/studio/dashboards/${dashboard.body.data.id}`);
    await page.frameLocator('iframe[title="Board words (extension word-count)"]').getByRole('cell', { name: 'board' }).waitFor();
    await expectAccessible(page);

    // Its item and collection panels beside an item and above a collection's list.
    expect((await service.request('POST', '/collections', { ...admin, body: { name: 'notes', fields: [{ field: 'title', type: 'string' }] } })).status).toBe(201);
    const note = await service.request('POST', '/items/notes', { ...admin, body: { title: 'First' } });
    await page.goto(`/studio/collections/notes/${note.body.data.id}`);
    await page.frameLocator('iframe[title="Item words (extension word-count)"]').getByRole('cell', { name: 'item' }).waitFor();
    await page.goto('/studio/collections/notes');
    await page.frameLocator('iframe[title="List words (extension word-count)"]').getByRole('cell', { name: 'list' }).waitFor();
    await expectAccessible(page);

    // Disabled, its panels leave the manifest and the Studio.
    await page.goto('/studio/extensions');
    await page.getByRole('button', { name: 'Disable word-count' }).click();
    await page.getByRole('button', { name: 'Enable word-count' }).waitFor();
    expect((await service.request('GET', `/extensions/ui/manifest`, admin)).body.data.extensions).toEqual([]);
    await page.getByRole('link', { name: 'Extension panels' }).click();
    await page.getByText('No enabled extension adds a panel.').waitFor();
    expect(extensionId).toBeTruthy();
    expectNoProblems(studio);
    await studio.context.close();
  });

  it('does not show a member the extensions page, and the service refuses them', { timeout: 60_000 }, async () => {
    const site = await createTestSite(service, 'sexm');
    const member = await createMember(service, site);
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, { siteId: site.siteId, email: member.email, password: member.password }, '/studio/extension-panels');
    await page.getByRole('heading', { name: 'Extension panels' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Studio' }).getByRole('link', { name: 'Extensions', exact: true }).count()).toBe(0);
    await page.goto('/studio/extensions');
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('PERMISSION_DENIED');
    expect(await page.getByRole('form', { name: 'Upload extension' }).count()).toBe(0);
    expect((await service.request('GET', '/extensions', { site: site.siteId, token: member.token })).status).toBe(403);
    await expectAccessible(page);
    expectNoProblems(studio);
    await studio.context.close();
  });
});
