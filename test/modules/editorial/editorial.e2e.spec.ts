import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createCollection } from '../../support/contentModel.ts';
import { createMember, grant, withHelpers, type AccessSite } from '../access/support.ts';

const service = await startTestServiceForFile();

async function gatedSite(meta: Record<string, unknown> = { editorialWorkflow: true, requireSeparateReviewer: true }): Promise<AccessSite> {
  const site = withHelpers(service, await createTestSite(service));
  await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
  expect((await site.admin('PATCH', '/collections/articles', meta)).status).toBe(200);
  return site;
}

async function createArticle(site: AccessSite, title = 'Draft'): Promise<string> {
  const created = await site.admin('POST', '/items/articles', { title, status: 'draft' });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data.id;
}

/** A member holding review:editorial and update on articles. */
async function createReviewer(site: AccessSite) {
  const reviewer = await createMember(service, site);
  await grant(site, { userId: reviewer.userId }, [{ collection: null, action: 'review:editorial' }, { collection: 'articles', action: 'update' }]);
  return reviewer;
}

const path = (id: string, move: string) => `/editorial/articles/${id}/${move}`;

describe('editorial review', () => {
  it('submits, rejects, resubmits and approves, which publishes the approved revision', async () => {
    const site = await gatedSite();
    const reviewer = await createReviewer(site);
    const id = await createArticle(site);

    const submitted = await site.admin('POST', path(id, 'submit-review'), { reviewerId: reviewer.userId });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    expect(submitted.body.data).toMatchObject({ status: 'in_review', reviewerId: reviewer.userId, authorId: site.adminUserId, submittedVersion: 1 });
    const again = await site.admin('POST', path(id, 'submit-review'), {});
    expect(again.status).toBe(409);
    expect(again.body.errors[0]).toMatchObject({ code: 'CONFLICT', path: [] });

    const noReason = await site.as(reviewer.token, 'POST', path(id, 'reject'), {});
    expect(noReason.status).toBe(400);
    expect(noReason.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'reason'] });
    const rejected = await site.as(reviewer.token, 'POST', path(id, 'reject'), { reason: 'Sources missing' });
    expect(rejected.body.data).toMatchObject({ status: 'rejected', reason: 'Sources missing' });

    expect((await site.admin('POST', path(id, 'submit-review'))).body.data).toMatchObject({ status: 'in_review', reviewerId: null });
    // The author may not approve its own revision (requireSeparateReviewer), administrator or not.
    const own = await site.admin('POST', path(id, 'approve'));
    expect(own.status).toBe(403);
    expect(own.body.errors[0]).toMatchObject({ code: 'PERMISSION_DENIED', path: [] });
    expect((await site.admin('GET', `/items/articles/${id}`)).body.data.status).toBe('draft');

    const approved = await site.as(reviewer.token, 'POST', path(id, 'approve'));
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.data).toMatchObject({ status: 'approved', approvedVersion: 2, itemVersion: 2, lastActorId: reviewer.userId });
    expect((await site.admin('GET', `/items/articles/${id}`)).body.data.status).toBe('published');

    const listed = await site.as(reviewer.token, 'GET', '/editorial/reviews?status=approved');
    expect(listed.body.data.map((review: { itemId: string }) => review.itemId)).toEqual([id]);
    expect(listed.body.meta.total).toBe(1);
    expect((await site.admin('GET', '/editorial/reviews?status=in_review')).body.data).toEqual([]);

    await service.context.daemon.drain();
    const audit = await site.admin('GET', `/audit?filter[target][_eq]=review/articles/${id}`);
    expect(audit.body.data.map((entry: { action: string }) => entry.action)).toEqual(Array(4).fill('editorial_transition'));
  });

  it('assigns a review to the reviewer named, or to any reviewer, and lists by assignee', async () => {
    const site = await gatedSite();
    const reviewer = await createReviewer(site);
    const other = await createReviewer(site);
    const [first, second] = [await createArticle(site), await createArticle(site)];
    await site.admin('POST', path(first, 'submit-review'), { reviewerId: reviewer.userId });
    await site.admin('POST', path(second, 'submit-review'));
    const mine = await site.as(reviewer.token, 'GET', `/editorial/reviews?assignee=${reviewer.userId}`);
    expect(mine.body.data.map((review: { itemId: string }) => review.itemId)).toEqual([first]);
    const notYours = await site.as(other.token, 'POST', path(first, 'approve'));
    expect(notYours.status).toBe(403);
    expect((await site.as(other.token, 'POST', path(second, 'approve'))).status).toBe(200);
    const unknown = await site.admin('POST', path(await createArticle(site), 'submit-review'), { reviewerId: '0190d6a0-0000-7000-8000-00000000000a' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'reviewerId'] });
  });

  it('refuses illegal moves (409), collections without the workflow (409), unknown items (404) and members (403)', async () => {
    const site = await gatedSite();
    const reviewer = await createReviewer(site);
    const id = await createArticle(site);
    for (const move of ['approve', 'reject']) {
      const refused = await site.as(reviewer.token, 'POST', path(id, move), { reason: 'r' });
      expect(refused.status).toBe(409);
      expect(refused.body.errors[0]).toMatchObject({ code: 'CONFLICT', path: [] });
    }
    await createCollection(service, site, 'pages', [{ field: 'title', type: 'string' }]);
    const page = await site.admin('POST', '/items/pages', { title: 'p' });
    const ungated = await site.admin('POST', `/editorial/pages/${page.body.data.id}/submit-review`);
    expect(ungated.status).toBe(409);
    expect(ungated.body.errors[0]).toMatchObject({ code: 'CONFLICT', path: ['params', 'collection'] });
    const missing = await site.admin('POST', path('nope', 'submit-review'));
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0]).toMatchObject({ code: 'RECORD_NOT_FOUND' });

    const member = await createMember(service, site);
    for (const [method, route] of [
      ['POST', path(id, 'submit-review')],
      ['POST', path(id, 'approve')],
      ['GET', '/editorial/reviews'],
    ] as const) {
      const denied = await site.as(member.token, method, route);
      expect(denied.status, route).toBe(403);
      expect(denied.body.errors[0].code).toBe('PERMISSION_DENIED');
    }
  });

  it('voids an approval when the item is edited, and gates publishing on an approval of the current revision', async () => {
    const site = await gatedSite({ editorialWorkflow: true });
    const id = await createArticle(site);
    const unapproved = await site.admin('PATCH', `/items/articles/${id}`, { status: 'published' });
    expect(unapproved.status).toBe(409);
    expect(unapproved.body.errors[0]).toMatchObject({ code: 'CONFLICT', path: ['body', 'status'], extensions: { reason: 'EDITORIAL_GATE_REQUIRED' } });

    await site.admin('POST', path(id, 'submit-review'));
    const approved = await site.admin('POST', path(id, 'approve'));
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    // Publishing what is approved again changes nothing and keeps the approval.
    expect((await site.admin('PATCH', `/items/articles/${id}`, { status: 'published' })).status).toBe(200);
    expect((await site.admin('GET', '/editorial/reviews?status=approved')).body.meta.total).toBe(1);

    expect((await site.admin('PATCH', `/items/articles/${id}`, { title: 'Changed after approval' })).status).toBe(200);
    const reviews = await site.admin('GET', '/editorial/reviews');
    expect(reviews.body.data[0]).toMatchObject({ itemId: id, status: 'draft', approvedVersion: null });
    expect(reviews.body.data[0].reason).toContain('edited');
    await site.admin('PATCH', `/items/articles/${id}`, { status: 'draft' });
    expect((await site.admin('PATCH', `/items/articles/${id}`, { status: 'published' })).status).toBe(409);
  });

  it('never shows another site its reviews or items', async () => {
    const site = await gatedSite();
    const id = await createArticle(site);
    await site.admin('POST', path(id, 'submit-review'));
    const other = await gatedSite();
    const foreign = await other.admin('POST', path(id, 'approve'));
    expect(foreign.status).toBe(404);
    expect(foreign.body.errors[0].code).toBe('RECORD_NOT_FOUND');
    expect((await other.admin('GET', '/editorial/reviews')).body.data).toEqual([]);
  });
});
