// Job 6 of the Studio, releases: through the UI, create a release, add a pinned and a live item,
// schedule it within a maintenance window (a bad window refused at its field), unschedule, preview,
// publish and read the per-item outcomes, revert; an empty release's publish refused, a release
// deleted; and a member without the administrator role kept out. Each step checked against the API.
import { describe, expect, it } from 'vitest';
import { createCollection } from '../support/contentModel.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../support/testService.ts';
import { adminOf, expectAccessible, expectNoProblems, openStudio, screenshot, signIn, useChromium } from '../support/studioBrowser.ts';
import { createMember } from '../modules/identity/support/identity.ts';

const service = await startTestServiceForFile();
const chromium = useChromium();

async function api(site: TestSite, method: string, path: string, body?: unknown) {
  const response = await service.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }) });
  expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
  return response.body?.data;
}

/** A site with `articles`: Alpha (edited once, so its first revision differs) and Beta, both drafts. */
async function seed() {
  const site = await createTestSite(service, 'rel');
  await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
  const alpha = (await api(site, 'POST', '/items/articles', { title: 'Alpha first', status: 'draft' })).id as string;
  const firstRevision = (await api(site, 'GET', `/items/articles/${alpha}/revisions`))[0].revisionId as string;
  await api(site, 'PATCH', `/items/articles/${alpha}`, { title: 'Alpha second' });
  const beta = (await api(site, 'POST', '/items/articles', { title: 'Beta', status: 'draft' })).id as string;
  return { site, alpha, beta, firstRevision };
}

describe('the Studio releases', () => {
  it('creates a release, adds a pinned and a live item, schedules, unschedules, previews, publishes and reverts it', { timeout: 120_000 }, async () => {
    const { site, alpha, beta, firstRevision } = await seed();
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, adminOf(site), '/studio/releases');
    await page.getByRole('heading', { name: 'Releases', level: 1 }).waitFor();
    await page.getByText('No releases yet.').waitFor();
    await expectAccessible(page);

    // Create.
    await page.getByLabel('Release name').fill('Spring launch');
    await page.getByRole('button', { name: 'Create release' }).click();
    await page.getByRole('heading', { name: 'Spring launch', level: 1 }).waitFor();
    const [created] = await api(site, 'GET', '/releases');
    expect(created).toMatchObject({ name: 'Spring launch', status: 'draft', atomicityMode: 'all_or_nothing', itemCount: 0 });
    const releaseId = created.id as string;
    expect(page.url()).toContain(`/studio/releases/${releaseId}`);

    // A pinned item: Alpha at its first revision.
    const rows = page.getByRole('table', { name: 'Release items' }).locator('tbody tr');
    await page.getByLabel('Collection').selectOption('articles');
    await page.getByLabel('Item', { exact: true }).selectOption({ label: 'Alpha second (draft)' });
    await page.getByLabel(/^Pinned/).check();
    await page.getByLabel('Revision', { exact: true }).selectOption(firstRevision);
    await page.getByRole('button', { name: 'Add to release' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    // A live item: Beta.
    await page.getByLabel('Collection').selectOption('articles');
    await page.getByLabel('Item', { exact: true }).selectOption({ label: 'Beta (draft)' });
    await page.getByRole('button', { name: 'Add to release' }).click();
    await expect.poll(() => rows.count()).toBe(2);
    await expect.poll(() => rows.filter({ hasText: 'Pinned revision' }).textContent()).toContain('Alpha second');
    await expect.poll(() => rows.filter({ hasText: 'Beta' }).textContent()).toContain('Live');
    const withItems = await api(site, 'GET', `/releases/${releaseId}`);
    expect(withItems.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ collection: 'articles', itemId: alpha, targetStatus: 'published', revisionId: firstRevision }),
        expect.objectContaining({ collection: 'articles', itemId: beta, targetStatus: 'published', revisionId: null }),
      ]),
    );

    // Schedule: a window whose end is before its start is refused at its field, then a good one is saved.
    const tomorrow = new Date(Date.now() + 24 * 3600_000);
    const pad = (n: number) => String(n).padStart(2, '0');
    const local = `${tomorrow.getFullYear()}-${pad(tomorrow.getMonth() + 1)}-${pad(tomorrow.getDate())}T10:30`;
    await page.getByLabel('Publish at', { exact: true }).fill(local);
    await page.getByRole('button', { name: 'Add a window' }).click();
    await page.getByLabel('Window 1 day').selectOption('Saturday');
    await page.getByLabel('Window 1 start').fill('05:00');
    await page.getByLabel('Window 1 end').fill('04:00');
    await page.getByRole('button', { name: 'Schedule', exact: true }).click();
    await expect.poll(() => page.locator('.field-error').textContent()).toContain('end must be after start');
    expect((await api(site, 'GET', `/releases/${releaseId}`)).status).toBe('draft');
    await page.getByLabel('Window 1 end').fill('07:00');
    await page.getByRole('button', { name: 'Schedule', exact: true }).click();
    await page.getByRole('button', { name: 'Unschedule' }).waitFor();
    await expect.poll(() => page.locator('.badge').first().textContent()).toBe('Scheduled');
    const expectedAt = await page.evaluate((value) => new Date(value).toISOString(), local);
    const scheduled = await api(site, 'GET', `/releases/${releaseId}`);
    expect(scheduled).toMatchObject({ status: 'scheduled', maintenanceWindow: { windows: [{ dow: 6, start: '05:00', end: '07:00' }] } });
    expect(new Date(scheduled.publishAt).toISOString()).toBe(expectedAt);
    await expect.poll(() => page.locator('.release-facts').first().textContent()).toContain('Saturday 05:00–07:00');

    // Unschedule: a draft again.
    await page.getByRole('button', { name: 'Unschedule' }).click();
    await expect.poll(() => page.locator('.badge').first().textContent()).toBe('Draft');
    expect(await api(site, 'GET', `/releases/${releaseId}`)).toMatchObject({ status: 'draft', publishAt: null });

    // Preview: Alpha comes back to its first title, both go published; nothing is written.
    await page.getByRole('button', { name: 'Preview the release' }).click();
    const previewed = page.getByRole('list', { name: 'Previewed items' });
    await expect.poll(() => previewed.locator('li').count()).toBe(2);
    const alphaPreview = previewed.locator('li').filter({ hasText: 'Alpha first' });
    await expect.poll(() => alphaPreview.locator('.diff-removed').allTextContents()).toEqual(['draft', 'Alpha second']);
    expect(await alphaPreview.locator('.diff-added').allTextContents()).toEqual(['published', 'Alpha first']);
    expect(await previewed.locator('li').filter({ hasText: 'Beta' }).textContent()).toContain('Unchanged');
    expect(await api(site, 'GET', `/items/articles/${alpha}`)).toMatchObject({ title: 'Alpha second', status: 'draft' });
    await expectAccessible(page);
    await screenshot(page, 'releases-detail');

    // Publish: per-item outcomes shown; the items hold what the release said.
    await page.getByRole('button', { name: 'Publish now' }).click();
    const outcomes = page.getByRole('table', { name: 'Publish outcomes' }).locator('tbody tr');
    await expect.poll(() => outcomes.count()).toBe(2);
    await expect.poll(() => outcomes.filter({ hasText: 'Alpha first' }).textContent()).toContain('published');
    expect(await outcomes.filter({ hasText: 'Beta' }).textContent()).toContain('1 → 2');
    await page.getByText('Publish finished: published (2 of 2 items published).').waitFor();
    expect(await api(site, 'GET', `/items/articles/${alpha}`)).toMatchObject({ title: 'Alpha first', status: 'published' });
    expect(await api(site, 'GET', `/items/articles/${beta}`)).toMatchObject({ title: 'Beta', status: 'published' });
    expect(await api(site, 'GET', `/releases/${releaseId}`)).toMatchObject({ status: 'published', publishedAt: expect.any(String) });
    // A published release is a record: no publish, no item edits, no schedule, no delete.
    expect(await page.getByRole('button', { name: /Publish/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add to release' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete release' }).count()).toBe(0);
    expect(await page.getByLabel('Publish at', { exact: true }).count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'releases-published');

    // Revert: Beta changed since, so the first try is refused (shown), and "Revert anyway" forces it.
    await api(site, 'PATCH', `/items/articles/${beta}`, { title: 'Beta edited' });
    await page.getByRole('button', { name: 'Revert release' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revert this release?' });
    await dialog.getByRole('button', { name: 'Revert', exact: true }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toContain('CONFLICT');
    expect((await api(site, 'GET', `/releases/${releaseId}`)).revertedAt).toBeNull();
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Revert anyway' }).click();
    await page.getByText('Release reverted: 2 items restored.').waitFor();
    expect(await api(site, 'GET', `/items/articles/${alpha}`)).toMatchObject({ title: 'Alpha second', status: 'draft' });
    expect(await api(site, 'GET', `/items/articles/${beta}`)).toMatchObject({ title: 'Beta', status: 'draft' });
    expect((await api(site, 'GET', `/releases/${releaseId}`)).revertedAt).toEqual(expect.any(String));
    expect(await page.getByRole('button', { name: 'Revert release' }).count()).toBe(0);

    // The list shows it.
    await page.getByRole('link', { name: 'All releases' }).click();
    const listed = page.getByRole('table', { name: 'Releases' }).locator('tbody tr');
    await expect.poll(() => listed.textContent()).toContain('Reverted');
    expect(await listed.textContent()).toContain('Spring launch');
    expect(await listed.textContent()).toContain('Published');
    await expectAccessible(page);
    await screenshot(page, 'releases-list');
    expectNoProblems(studio);
    await studio.context.close();
  });

  it('shows the refusal of publishing an empty release, deletes a draft, and keeps members out', { timeout: 120_000 }, async () => {
    const { site, ...items } = await seed();
    const empty = await api(site, 'POST', '/releases', { name: 'Nothing yet' });
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, adminOf(site), `/studio/releases/${empty.id}`);
    await page.getByRole('heading', { name: 'Nothing yet', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Publish now' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('EMPTY_RELEASE');
    expect((await api(site, 'GET', `/releases/${empty.id}`)).status).toBe('draft');

    // A publish time in the past is refused at its field.
    await page.getByLabel('Publish at', { exact: true }).fill('2020-01-01T10:00');
    await page.getByRole('button', { name: 'Schedule', exact: true }).click();
    await expect.poll(() => page.locator('.field-error').textContent()).toContain('VALIDATION_FAILED');
    expect((await api(site, 'GET', `/releases/${empty.id}`)).publishAt).toBeNull();

    // All or nothing with a deleted item: that item fails with its reason, the other is skipped, the release failed.
    const { beta, alpha } = items;
    await api(site, 'PATCH', `/releases/${empty.id}`, { addItems: [{ collection: 'articles', itemId: alpha, targetStatus: 'published' }, { collection: 'articles', itemId: beta, targetStatus: 'published' }] });
    await api(site, 'DELETE', `/items/articles/${beta}`);
    await page.reload();
    await page.getByRole('button', { name: 'Publish now' }).click();
    const outcomes = page.getByRole('table', { name: 'Publish outcomes' }).locator('tbody tr');
    await expect.poll(() => outcomes.count()).toBe(2);
    await expect.poll(() => outcomes.filter({ hasText: 'failed' }).textContent()).toContain('ITEM_DELETED');
    expect(await outcomes.filter({ hasText: 'Alpha second' }).textContent()).toContain('skipped');
    await page.getByText('Publish finished: failed (0 of 2 items published).').waitFor();
    expect(await api(site, 'GET', `/releases/${empty.id}`)).toMatchObject({ status: 'failed' });
    expect(await api(site, 'GET', `/items/articles/${alpha}`)).toMatchObject({ status: 'draft' });
    // A failed release published nothing: it may be published again or deleted, not reverted or scheduled.
    await page.getByRole('button', { name: 'Publish again' }).waitFor();
    expect(await page.getByRole('button', { name: 'Revert release' }).count()).toBe(0);
    expect(await page.getByLabel('Publish at', { exact: true }).count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'releases-failed');

    await page.getByRole('button', { name: 'Delete release' }).click();
    await page.getByRole('dialog', { name: 'Delete this release?' }).getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('heading', { name: 'Releases', level: 1 }).waitFor();
    const gone = await service.request('GET', `/releases/${empty.id}`, { site: site.siteId, token: site.adminToken });
    expect(gone.status).toBe(404);
    expectNoProblems(studio);
    await studio.context.close();

    // A member (no administrator role): no Releases entry, and the page shows the API's refusal.
    const member = await createMember(service, site);
    const memberStudio = await openStudio(chromium(), service);
    await signIn(memberStudio, { siteId: site.siteId, email: member.email, password: member.password }, '/studio/releases');
    const memberPage = memberStudio.page;
    await expect.poll(() => memberPage.getByRole('alert').first().textContent()).toContain('PERMISSION_DENIED');
    expect(await memberPage.getByRole('navigation', { name: 'Studio' }).getByRole('link', { name: 'Releases' }).count()).toBe(0);
    await expectAccessible(memberPage);
    expectNoProblems(memberStudio);
    await memberStudio.context.close();
  });
});
