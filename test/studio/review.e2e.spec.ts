// Job 5 of the Studio (editorial review): on a collection with the workflow and a separate reviewer,
// the author submits, is refused approving their own item, a second user rejects with a reason (which
// the author then sees), the author resubmits and the reviewer approves, which publishes the item; a
// member without the reviewer's right is refused the queue.
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';
import { createCollection } from '../support/contentModel.ts';
import { adminOf, expectAccessible, expectNoProblems, openStudio, screenshot, signIn, useChromium } from '../support/studioBrowser.ts';
import { createMember, grant, withHelpers, type AccessSite } from '../modules/access/support.ts';

const service = await startTestServiceForFile();
const chromium = useChromium();

async function gatedSite(): Promise<{ site: AccessSite; id: string }> {
  const site = withHelpers(service, await createTestSite(service, 'studio'));
  await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
  expect((await site.admin('PATCH', '/collections/articles', { editorialWorkflow: true, requireSeparateReviewer: true })).status).toBe(200);
  const created = await site.admin('POST', '/items/articles', { title: 'Breaking news', status: 'draft' });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { site, id: created.body.data.id as string };
}

describe('the Studio editorial review', () => {
  it('submits, refuses the author’s own approval, rejects with a reason, resubmits and approves', { timeout: 120_000 }, async () => {
    const { site, id } = await gatedSite();
    const reviewer = await createMember(service, site);
    await grant(site, { userId: reviewer.userId }, [
      { collection: null, action: 'review:editorial' },
      { collection: 'articles', action: 'read' },
      { collection: 'articles', action: 'update' },
    ]);
    const reviewPath = `/studio/collections/articles/${id}/review`;

    // The author (the administrator) submits the draft.
    const author = await openStudio(chromium(), service);
    await signIn(author, adminOf(site), reviewPath);
    const { page } = author;
    const status = page.getByTestId('review-status');
    await expect.poll(() => status.textContent()).toBe('Not submitted');
    await page.getByRole('button', { name: 'Submit for review' }).click();
    await expect.poll(() => status.textContent()).toBe('In review');
    expect((await site.admin('GET', '/editorial/reviews?status=in_review')).body.data.map((review: { itemId: string }) => review.itemId)).toEqual([id]);
    await expectAccessible(page);
    await screenshot(page, 'history-review-item');

    // requireSeparateReviewer: the author's approval is refused, and the refusal shown.
    await page.getByRole('button', { name: 'Approve and publish' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('PERMISSION_DENIED');
    expect((await site.admin('GET', `/items/articles/${id}`)).body.data.status).toBe('draft');

    // The reviewer finds it in the queue, and rejects it: first without a reason (refused at the field).
    const second = await openStudio(chromium(), service);
    await signIn(second, { siteId: site.siteId, email: reviewer.email, password: reviewer.password }, '/studio/review');
    const queue = second.page.getByRole('table', { name: 'Reviews' });
    await expect.poll(() => queue.locator('tbody tr').count()).toBe(1);
    await expectAccessible(second.page);
    await screenshot(second.page, 'history-review-queue');
    await queue.getByRole('link', { name: `articles / ${id}` }).click();
    await expect.poll(() => second.page.getByTestId('review-status').textContent()).toBe('In review');
    await second.page.getByRole('button', { name: 'Reject' }).click();
    await expect.poll(() => second.page.locator('.field-error').textContent()).toBeTruthy();
    await second.page.getByLabel('Reason for rejecting').fill('Sources missing');
    await second.page.getByRole('button', { name: 'Reject' }).click();
    await expect.poll(() => second.page.getByTestId('review-status').textContent()).toBe('Rejected');
    const rejected = await site.admin('GET', '/editorial/reviews?status=rejected');
    expect(rejected.body.data[0]).toMatchObject({ itemId: id, status: 'rejected', reason: 'Sources missing', lastActorId: reviewer.userId });

    // The author sees the reason, and submits again.
    await page.reload();
    await expect.poll(() => page.getByTestId('review-reason').textContent()).toContain('Sources missing');
    await expect.poll(() => status.textContent()).toBe('Rejected');
    await page.getByRole('button', { name: 'Submit for review' }).click();
    await expect.poll(() => status.textContent()).toBe('In review');

    // The reviewer approves: the item is published.
    await second.page.reload();
    await expect.poll(() => second.page.getByTestId('review-status').textContent()).toBe('In review');
    await second.page.getByRole('button', { name: 'Approve and publish' }).click();
    await expect.poll(() => second.page.getByTestId('review-status').textContent()).toBe('Approved');
    expect((await site.admin('GET', `/items/articles/${id}`)).body.data.status).toBe('published');
    await expect.poll(() => second.page.getByRole('table', { name: 'The item' }).textContent()).toContain('published');

    // The queue of items awaiting review is empty again.
    await second.page.getByRole('link', { name: 'Review queue' }).first().click();
    await second.page.getByText('Nothing here.').waitFor();
    expectNoProblems(author);
    expectNoProblems(second);
    await author.context.close();
    await second.context.close();
  });

  it('refuses the queue and the moves to a member without the reviewer’s right', { timeout: 90_000 }, async () => {
    const { site, id } = await gatedSite();
    const member = await createMember(service, site);
    await grant(site, { userId: member.userId }, [{ collection: 'articles', action: 'read' }]);
    const studio = await openStudio(chromium(), service);
    const { page } = studio;
    await signIn(studio, { siteId: site.siteId, email: member.email, password: member.password }, '/studio/review');
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('PERMISSION_DENIED');
    await expectAccessible(page);

    await page.goto(`/studio/collections/articles/${id}/review`);
    await page.getByRole('heading', { name: 'Review of articles item' }).waitFor();
    await page.getByRole('button', { name: 'Approve and publish' }).click();
    await expect.poll(() => page.getByRole('alert').allTextContents()).toContainEqual(expect.stringContaining('PERMISSION_DENIED'));
    await page.getByRole('button', { name: 'Submit for review' }).click();
    await expect.poll(() => page.getByRole('alert').allTextContents()).toContainEqual(expect.stringContaining('PERMISSION_DENIED'));
    expect((await site.admin('GET', '/editorial/reviews')).body.data).toEqual([]);
    await expectAccessible(page);
    expectNoProblems(studio);
    await studio.context.close();
  });
});
