// Jobs 4 of the Studio (item history): revisions with their field diffs, revert (verified through the
// API), time travel to an older revision, named versions created, edited, compared, promoted and
// deleted; and a member who may read but not update the item refused a revert.
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';
import { createCollection } from '../support/contentModel.ts';
import { adminOf, expectAccessible, expectNoProblems, openStudio, screenshot, signIn, useChromium } from '../support/studioBrowser.ts';
import { createMember, grant, withHelpers, type AccessSite } from '../modules/access/support.ts';

const service = await startTestServiceForFile();
const chromium = useChromium();

/** A site with `articles` (title, body) and one article written three times: First → Second → body added. */
async function seeded(): Promise<{ site: AccessSite; id: string }> {
  const site = withHelpers(service, await createTestSite(service, 'studio'));
  await createCollection(service, site, 'articles', [
    { field: 'title', type: 'string' },
    { field: 'body', type: 'text' },
  ]);
  const created = await site.admin('POST', '/items/articles', { title: 'First', body: 'Opening' });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.data.id as string;
  expect((await site.admin('PATCH', `/items/articles/${id}`, { title: 'Second' })).status).toBe(200);
  expect((await site.admin('PATCH', `/items/articles/${id}`, { body: 'More text' })).status).toBe(200);
  return { site, id };
}

describe('the Studio item history', () => {
  it('shows revisions with their diff, reverts to one, and travels back in time', { timeout: 90_000 }, async () => {
    const { site, id } = await seeded();
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, adminOf(site), `/studio/collections/articles/${id}/history`);
    await page.getByRole('heading', { name: 'History of articles item' }).waitFor();

    const rows = page.getByRole('table', { name: 'Revisions' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    expect(await rows.nth(0).textContent()).toContain('body');
    expect(await rows.nth(2).textContent()).toContain('item.created');
    expect(await rows.nth(0).textContent()).toContain(`you (${site.adminEmail})`);

    // Version 2 against the one before it: the old title struck through, the new one added.
    await page.getByRole('button', { name: 'Show changes of version 2' }).click();
    const diff = page.getByRole('table', { name: 'Changes of version 2' });
    await expect.poll(() => diff.locator('.diff-removed').allTextContents()).toEqual(['First']);
    expect(await diff.locator('.diff-added').allTextContents()).toEqual(['Second']);
    // …and against the current item, whose body changed since.
    await page.getByLabel('Compare with').selectOption('current');
    const againstCurrent = page.getByRole('table', { name: 'Version 2 against the current item' });
    await expect.poll(() => againstCurrent.locator('.diff-added').allTextContents()).toEqual(['More text']);
    expect(await againstCurrent.locator('.diff-removed').allTextContents()).toEqual(['Opening']);
    await expectAccessible(page);
    await againstCurrent.scrollIntoViewIfNeeded();
    await screenshot(page, 'history-revisions');

    // Revert to version 1, after the confirmation that shows what it changes.
    await page.getByRole('button', { name: 'Revert to version 1' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revert to this revision?' });
    await expect.poll(() => dialog.locator('.diff-added').allTextContents()).toEqual(['Opening', 'First']);
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Revert', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Reverted to the revision' }).waitFor();
    const item = await site.admin('GET', `/items/articles/${id}`);
    expect(item.body.data).toMatchObject({ title: 'First', body: 'Opening' });
    await expect.poll(() => page.getByRole('table', { name: 'Current values' }).textContent()).toContain('First');
    await expect.poll(() => rows.count()).toBe(4);
    expect(await rows.nth(0).textContent()).toContain('item.reverted');

    // Time travel to version 2: the title was "Second" then.
    await page.getByRole('button', { name: 'Show the item as of version 2' }).click();
    const then = page.getByRole('table', { name: 'The item as it was then' });
    await expect.poll(() => then.textContent()).toContain('Second');
    expect(await then.textContent()).toContain('Opening');
    expect(await page.getByRole('table', { name: 'Changes since then' }).locator('.diff-added').allTextContents()).toEqual(['First']);
    await expectAccessible(page);
    await then.scrollIntoViewIfNeeded();
    await screenshot(page, 'history-time-travel');

    // A moment before the item existed: the service's 404 is shown.
    await page.getByLabel('Show the item as of').fill('2001-01-01T10:00:00.000');
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('RECORD_NOT_FOUND');
    expectNoProblems(studio);
    await studio.context.close();
  });

  it('creates, edits, compares, promotes and deletes a named version', { timeout: 90_000 }, async () => {
    const { site, id } = await seeded();
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, adminOf(site), `/studio/collections/articles/${id}/history`);
    await page.getByRole('tab', { name: 'Versions' }).click();
    await page.getByText('No named versions yet.').waitFor();

    // A key the service refuses: its message at the field.
    await page.getByLabel('Key').fill('Not A Key');
    await page.getByLabel('Name', { exact: true }).fill('Spring edit');
    await page.getByRole('button', { name: 'Create version' }).click();
    await expect.poll(() => page.locator('.field-error').first().textContent()).toBeTruthy();

    await page.getByLabel('Key').fill('spring');
    await page.getByRole('button', { name: 'Create version' }).click();
    await page.getByRole('heading', { name: /Version “Spring edit”/ }).waitFor();
    await expect.poll(() => page.getByRole('table', { name: 'Named versions' }).locator('tbody tr').count()).toBe(1);

    // Edit its data (JSON) and name; the item is untouched.
    await page.getByLabel('Version name').fill('Spring rewrite');
    await page.getByLabel('Version data (JSON)').fill(JSON.stringify({ title: 'Spring title', body: 'More text' }, null, 2));
    await page.getByRole('button', { name: 'Save version' }).click();
    await page.getByRole('status').filter({ hasText: 'Version saved.' }).waitFor();
    const version = await site.admin('GET', `/items/articles/${id}/versions/spring`);
    expect(version.body.data).toMatchObject({ name: 'Spring rewrite', data: { title: 'Spring title', body: 'More text' } });
    expect((await site.admin('GET', `/items/articles/${id}`)).body.data.title).toBe('Second');

    // A field the collection does not have: refused at the data field.
    await page.getByLabel('Version data (JSON)').fill('{ "nope": 1 }');
    await page.getByRole('button', { name: 'Save version' }).click();
    await expect.poll(() => page.locator('.field-error').first().textContent()).toBeTruthy();
    await page.getByLabel('Version data (JSON)').fill(JSON.stringify({ title: 'Spring title' }));

    await page.getByRole('button', { name: 'Compare with main' }).click();
    const compared = page.getByRole('table', { name: 'Main against version spring' });
    await expect.poll(() => compared.locator('.diff-added').allTextContents()).toEqual(['Spring title']);
    expect(await compared.locator('.diff-removed').allTextContents()).toEqual(['Second']);
    await expectAccessible(page);
    await compared.scrollIntoViewIfNeeded();
    await screenshot(page, 'history-versions');

    await page.getByRole('button', { name: 'Promote to main' }).click();
    await page.getByRole('heading', { name: 'Promoted to main' }).waitFor();
    expect(await page.getByRole('table', { name: 'The item after the promotion' }).textContent()).toContain('Spring title');
    const promoted = await site.admin('GET', `/items/articles/${id}`);
    expect(promoted.body.data.title).toBe('Spring title');
    const revisions = await site.admin('GET', `/items/articles/${id}/revisions`);
    expect(revisions.body.data[0].event).toBe('item.promoted');

    await page.getByRole('button', { name: 'Delete version' }).click();
    await page.getByRole('dialog', { name: 'Delete version spring?' }).getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByText('No named versions yet.').waitFor();
    expect((await site.admin('GET', `/items/articles/${id}/versions`)).body.data).toEqual([]);
    expectNoProblems(studio);
    await studio.context.close();
  });

  it('lets a member who may only read see the history, and shows the refusal of a revert', { timeout: 90_000 }, async () => {
    const { site, id } = await seeded();
    const reader = await createMember(service, site);
    await grant(site, { userId: reader.userId }, [{ collection: 'articles', action: 'read' }]);
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, { siteId: site.siteId, email: reader.email, password: reader.password }, `/studio/collections/articles/${id}/history`);
    const rows = page.getByRole('table', { name: 'Revisions' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    await page.getByRole('button', { name: 'Revert to version 1' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revert to this revision?' });
    await dialog.getByRole('button', { name: 'Revert', exact: true }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toContain('PERMISSION_DENIED');
    expect((await site.admin('GET', `/items/articles/${id}`)).body.data.title).toBe('Second');
    await expectAccessible(page);
    expectNoProblems(studio);
    await studio.context.close();
  });
});
