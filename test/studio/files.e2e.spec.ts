// Job 7 of the Studio, the files library: uploads through the UI (a multipart form and the presigned
// flow, each with its progress element reaching done), folders (created, a file moved in, browsed,
// renamed), tags and the filters, refused uploads shown, and a user without media rights refused.
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile, type TestService, type TestSite } from '../support/testService.ts';
import { adminOf, expectAccessible, expectNoProblems, openStudio, screenshot, signIn, useChromium } from '../support/studioBrowser.ts';
import { memberWithoutMedia, pngBytes, seedImage } from '../support/studiofiles.ts';

const service = await startTestServiceForFile();
const chromium = useChromium();
/** Waits on the page or the API (a loaded machine may take a while); no sleeps. */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 100 });

interface FileRow {
  id: string;
  key: string;
  filename: string;
  title: string | null;
  folder: string | null;
  tags: string[];
  width: number | null;
}

async function filesOf(svc: TestService, site: TestSite): Promise<FileRow[]> {
  const listed = await svc.request('GET', '/files?limit=100', { site: site.siteId, token: site.adminToken });
  expect(listed.status).toBe(200);
  return listed.body.data as FileRow[];
}

describe('the Studio files library', () => {
  it('uploads by multipart and by presigned URL with progress, then files them in folders and filters by tag', { timeout: 120_000 }, async () => {
    const site = await createTestSite(service, 'studio');
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    const signedPuts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PUT' && request.url().includes('/api/v1/files/upload/')) signedPuts.push(request.url());
    });
    await signIn(studio, adminOf(site), '/studio/files');
    await page.getByRole('heading', { name: 'Files', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Files', exact: true }).waitFor();

    // A multipart upload with a title and a tag.
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'harbour.png', mimeType: 'image/png', buffer: await pngBytes(64, 48) });
    await page.getByLabel('Title', { exact: true }).fill('Harbour at dawn');
    await page.getByLabel('Tags', { exact: true }).fill('hero, sea');
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    const progress = page.getByLabel('Upload progress');
    await poll(() => page.getByRole('status').filter({ hasText: 'Uploaded harbour.png' }).count()).toBe(1);
    await poll(() => progress.evaluate((element: HTMLProgressElement) => [element.value === element.max, element.dataset.state])).toEqual([true, 'done']);
    const table = page.getByRole('table', { name: 'Files' });
    await table.getByRole('link', { name: 'Harbour at dawn' }).waitFor();
    let stored = await filesOf(service, site);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ filename: 'harbour.png', title: 'Harbour at dawn', tags: ['hero', 'sea'], folder: null, width: 64 });
    expect(signedPuts).toEqual([]);

    // The presigned flow: a signed URL, the bytes PUT to it, the record registered.
    await page.getByLabel('Signed URL (presigned)').check();
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'meadow.png', mimeType: 'image/png', buffer: await pngBytes(80, 40) });
    await page.getByLabel('Tags', { exact: true }).fill('field');
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await poll(() => page.getByRole('status').filter({ hasText: 'Uploaded meadow.png' }).count()).toBe(1);
    await poll(() => progress.evaluate((element: HTMLProgressElement) => [element.value === element.max, element.dataset.state])).toEqual([true, 'done']);
    await table.getByRole('link', { name: 'meadow.png' }).waitFor();
    expect(signedPuts).toHaveLength(1);
    stored = await filesOf(service, site);
    const meadow = stored.find((file) => file.filename === 'meadow.png')!;
    expect(meadow).toMatchObject({ tags: ['field'], width: 80, folder: null });
    expect(signedPuts[0]).toContain(meadow.key);
    await expectAccessible(page);
    await screenshot(page, 'files-library');

    // A folder: created, a file moved into it, browsed.
    await page.getByRole('button', { name: 'New folder' }).click();
    await page.getByLabel('New folder name').fill('Covers');
    await page.getByRole('button', { name: 'Create folder' }).click();
    await page.getByRole('heading', { name: 'Folder Covers' }).waitFor();
    await poll(() => table.locator('tbody tr').count()).toBe(0);
    await page.getByRole('button', { name: 'All files' }).click();
    await page.getByLabel('Folder of harbour.png').selectOption('Covers');
    await poll(async () => (await filesOf(service, site)).find((file) => file.filename === 'harbour.png')?.folder).toBe('Covers');
    const folders = page.getByRole('navigation', { name: 'Folders' });
    await folders.getByRole('button', { name: 'Covers', exact: true }).click();
    await page.getByRole('heading', { name: 'Folder Covers' }).waitFor();
    await poll(() => table.locator('tbody tr').count()).toBe(1);
    await table.getByRole('link', { name: 'Harbour at dawn' }).waitFor();
    await folders.getByRole('button', { name: 'No folder' }).click();
    await table.getByRole('link', { name: 'meadow.png' }).waitFor();
    await poll(() => table.locator('tbody tr').count()).toBe(1);

    // Renamed: every file of the folder moves to the new name.
    await folders.getByRole('button', { name: 'Rename folder Covers' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rename folder Covers' });
    await dialog.getByLabel('Folder name').fill('Banners');
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Rename' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await poll(async () => (await filesOf(service, site)).find((file) => file.filename === 'harbour.png')?.folder).toBe('Banners');
    await folders.getByRole('button', { name: 'Banners', exact: true }).waitFor();
    expect(await folders.getByRole('button', { name: 'Covers', exact: true }).count()).toBe(0);

    // Filtered by tag (typed, or a row's tag clicked) and by title.
    await folders.getByRole('button', { name: 'All files' }).click();
    await poll(() => table.locator('tbody tr').count()).toBe(2);
    await page.getByLabel('Tag', { exact: true }).fill('field');
    await poll(() => table.locator('tbody tr').count()).toBe(1);
    await table.getByRole('link', { name: 'meadow.png' }).waitFor();
    await page.getByLabel('Tag', { exact: true }).fill('');
    await poll(() => table.locator('tbody tr').count()).toBe(2);
    await table.getByRole('button', { name: 'Filter by tag hero' }).click();
    await poll(() => table.locator('tbody tr').count()).toBe(1);
    await table.getByRole('link', { name: 'Harbour at dawn' }).waitFor();
    await page.getByLabel('Tag', { exact: true }).fill('');
    await page.getByLabel('Title starts with').fill('Harb');
    await poll(() => table.locator('tbody tr').count()).toBe(1);
    await expectAccessible(page);
    expectNoProblems(studio);
    await studio.context.close();
  });

  it('shows refused uploads: a type the guard cannot verify, and a file over the site’s size limit', { timeout: 90_000 }, async () => {
    const site = await createTestSite(service, 'studio');
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, adminOf(site), '/studio/files');
    await page.getByRole('heading', { name: 'Upload a file' }).waitFor();

    // HTML is never stored as it cannot be verified: 415 at body.file, shown at the file field.
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'page.html', mimeType: 'text/html', buffer: Buffer.from('<html><body><script>alert(1)</script></body></html>') });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    const fileField = page.locator('.field', { has: page.getByLabel('File', { exact: true }) });
    await poll(() => fileField.getByRole('alert').textContent()).toContain('text/html is not a type the upload guard can verify');
    await poll(() => page.getByRole('status').filter({ hasText: 'Upload failed' }).count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'files-refused');

    // Over the policy's size: the presigned request is refused at once (413 at body.size).
    const policy = await service.request('PUT', '/uploads/config', { site: site.siteId, token: site.adminToken, body: { maxBytes: 300 } });
    expect(policy.status).toBe(200);
    await page.reload();
    await page.getByText('Up to 300 B').waitFor();
    await page.getByLabel('Signed URL (presigned)').check();
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'big.png', mimeType: 'image/png', buffer: await pngBytes(400, 400) });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await poll(() => fileField.getByRole('alert').textContent()).toContain('300 bytes');

    // And by the form: the streamed count passes the limit (413 at body.file).
    await page.getByLabel('Form upload (multipart)').check();
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'big2.png', mimeType: 'image/png', buffer: await pngBytes(400, 400) });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await poll(() => page.getByRole('status').filter({ hasText: 'Upload failed' }).count()).toBe(1);
    await poll(() => fileField.getByRole('alert').textContent()).toContain('larger than the 300 bytes this site takes');
    expect(await filesOf(service, site)).toEqual([]);
    expectNoProblems(studio);
    await studio.context.close();
  });

  it('refuses a member whose role holds no media capability, and shows no upload form', { timeout: 60_000 }, async () => {
    const site = await createTestSite(service, 'studio');
    const seeded = await seedImage(service, site, 'secret.png', 20, 20);
    const member = await memberWithoutMedia(service, site);
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    const rightsKnown = page.waitForResponse((response) => response.url().endsWith('/api/v1/permissions/me') && response.status() === 200);
    await signIn(studio, member, '/studio/files');
    await page.getByRole('heading', { name: 'Files', level: 1 }).waitFor();
    await poll(() => page.getByRole('alert').allTextContents()).toEqual([expect.stringContaining('PERMISSION_DENIED')]);
    // Its rights are known (GET /permissions/me answered) and hold no media:create: no upload form.
    await rightsKnown;
    await poll(() => page.getByRole('heading', { name: 'Upload a file' }).count()).toBe(0);
    expect(await page.getByRole('table', { name: 'Files' }).count()).toBe(0);
    await expectAccessible(page);

    await page.goto(`/studio/files/${seeded.id}`);
    await poll(() => page.getByRole('alert').allTextContents()).toEqual([expect.stringContaining('PERMISSION_DENIED')]);
    expect(await page.getByRole('button', { name: 'Delete file' }).count()).toBe(0);
    expect(await filesOf(service, site)).toHaveLength(1);
    expectNoProblems(studio);
    await studio.context.close();
  });
  it('pages through the library, 25 files a page', { timeout: 90_000 }, async () => {
    const site = await createTestSite(service, 'studio');
    for (let index = 1; index <= 27; index += 1) await seedImage(service, site, `tile-${String(index).padStart(2, '0')}.png`, 4, 4);
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, adminOf(site), '/studio/files');
    const rows = page.getByRole('table', { name: 'Files' }).locator('tbody tr');
    await page.getByText('Page 1 of 2 (27 files)').waitFor();
    await poll(() => rows.count()).toBe(25);
    // Newest first: the last seeded opens the first page.
    await page.getByRole('link', { name: 'tile-27.png' }).waitFor();
    expect(await page.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2 of 2 (27 files)').waitFor();
    await poll(() => rows.count()).toBe(2);
    await page.getByRole('link', { name: 'tile-01.png' }).waitFor();
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await expectAccessible(page);
    expectNoProblems(studio);
    await studio.context.close();
  });
});
