// Job 7 of the Studio, a file's detail: tags added and removed, the folder changed, image transforms
// previewed (the rendered width checked in the page), a preset created by an administrator and
// previewed, a bad transform parameter shown at its field, and the file deleted.
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';
import { adminOf, expectAccessible, expectNoProblems, openStudio, screenshot, signIn, useChromium } from '../support/studioBrowser.ts';
import { seedImage } from '../support/studiofiles.ts';

const service = await startTestServiceForFile();
const chromium = useChromium();
/** Waits on the page or the API (a loaded machine may take a while); no sleeps. */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 100 });

describe('a file in the Studio', () => {
  it('edits its tags and folder, previews transforms and a preset, shows a bad parameter, and deletes it', { timeout: 120_000 }, async () => {
    const site = await createTestSite(service, 'studio');
    const seeded = await seedImage(service, site, 'lighthouse.png', 400, 300, { tags: ['coast'] });
    const fileOf = () => service.request('GET', `/files/${seeded.id}`, { site: site.siteId, token: site.adminToken });
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, adminOf(site), '/studio/files');
    await page.getByRole('table', { name: 'Files' }).getByRole('link', { name: 'lighthouse.png' }).click();
    await page.getByRole('heading', { name: 'lighthouse.png', level: 1 }).waitFor();
    expect(page.url()).toContain(`/studio/files/${seeded.id}`);

    // The original, fetched with the bearer and shown from an object URL.
    const original = page.getByRole('img', { name: 'Original of lighthouse.png' });
    await poll(() => original.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBe(400);

    // Tags added and removed; the title and folder saved.
    await page.getByLabel('New tag').fill('night');
    await page.getByRole('button', { name: 'Add tag' }).click();
    await poll(async () => (await fileOf()).body.data.tags).toEqual(['coast', 'night']);
    await page.getByRole('button', { name: 'Remove tag coast' }).click();
    await poll(async () => (await fileOf()).body.data.tags).toEqual(['night']);
    await page.getByLabel('Title', { exact: true }).fill('The lighthouse');
    await page.getByLabel('Folder', { exact: true }).fill('Landmarks');
    await page.getByRole('button', { name: 'Save details' }).click();
    await poll(async () => (await fileOf()).body.data).toMatchObject({ title: 'The lighthouse', folder: 'Landmarks' });

    // An ad-hoc transform: 120 px wide webp.
    await page.getByLabel('Width').fill('120');
    await page.getByLabel('Format').selectOption('webp');
    await page.getByRole('button', { name: 'Preview' }).click();
    const preview = page.getByRole('img', { name: 'Transformed lighthouse.png' });
    await poll(() => preview.evaluate((image: HTMLImageElement) => image.complete && [image.naturalWidth, image.naturalHeight])).toEqual([120, 90]);
    await page.getByText('Preview, 120 × 90').waitFor();
    await expectAccessible(page);
    await screenshot(page, 'files-detail');

    // A bad parameter: over 5000 px, refused by the service and shown at the field.
    await page.getByLabel('Width').fill('6000');
    await page.getByRole('button', { name: 'Preview' }).click();
    const widthField = page.locator('.field', { has: page.getByLabel('Width') });
    await poll(() => widthField.getByRole('alert').count()).toBe(1);
    expect(await widthField.getByLabel('Width').getAttribute('aria-describedby')).toBeTruthy();

    // A preset made from the parameters (administrators), then previewed by its key alone.
    await page.getByLabel('Width').fill('64');
    await page.getByLabel('Height').fill('64');
    await page.getByLabel('Fit').selectOption('cover');
    await page.getByLabel('Preset key').fill('Bad Key');
    await page.getByLabel('Preset name').fill('Square thumbnail');
    await page.getByRole('button', { name: 'Create preset' }).click();
    const keyField = page.locator('.field', { has: page.getByLabel('Preset key') });
    await poll(() => keyField.getByRole('alert').count()).toBe(1);
    await page.getByLabel('Preset key').fill('square-thumb');
    await page.getByRole('button', { name: 'Create preset' }).click();
    await page.getByText('Preset square-thumb created').waitFor();
    const presets = await service.request('GET', '/transform-presets', { site: site.siteId, token: site.adminToken });
    expect(presets.body.data).toEqual([expect.objectContaining({ key: 'square-thumb', name: 'Square thumbnail', dsl: { width: 64, height: 64, fit: 'cover', format: 'webp' } })]);
    await page.getByLabel('Width').fill('');
    await page.getByLabel('Height').fill('');
    await page.getByLabel('Fit').selectOption('');
    await page.getByLabel('Format').selectOption('');
    await poll(() => page.getByLabel('Preset', { exact: true }).inputValue()).toBe('square-thumb');
    await page.getByRole('button', { name: 'Preview' }).click();
    await poll(() => preview.evaluate((image: HTMLImageElement) => image.complete && [image.naturalWidth, image.naturalHeight])).toEqual([64, 64]);
    await expectAccessible(page);

    // Deleted: the record and its asset are gone.
    await page.getByRole('button', { name: 'Delete file' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete lighthouse.png?' });
    await dialog.getByRole('button', { name: 'Delete for good' }).click();
    await page.getByRole('heading', { name: 'Files', level: 1 }).waitFor();
    await poll(async () => (await fileOf()).status).toBe(404);
    await poll(() => page.getByRole('table', { name: 'Files' }).getByRole('link').count()).toBe(0);
    expectNoProblems(studio);
    await studio.context.close();
  });
});
