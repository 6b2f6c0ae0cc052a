// AI approvals over real HTTP (docs/ai-skills.md): the list and one approval (who sees what, another
// site's ids), a person's decision (runs exactly once, as the requester, with the approving person on
// the events, the audit and the automated decisions), reject, separation of approver and requester,
// API keys, a stale approval after another write, a right lost since, and an agent's review.
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { grant, withHelpers } from '../access/support.ts';
import { callSkill, createItem, createSkillSite, memberWith, streamEvents, testAgent, type SkillMember, type SkillSite } from './skillsSupport.ts';

const service = await startTestServiceForFile();

const ARTICLE_RIGHTS = ['read', 'create', 'update', 'delete'].map((action) => ({ collection: 'articles', action, fields: ['*'] }));

interface Pending {
  site: SkillSite;
  requester: SkillMember;
  article: { id: string };
  approvalId: string;
  stream: string;
}

/** An article the requester created, and an agent's pending call to delete it for the requester. */
async function pendingDelete(site?: SkillSite, agentId = 'conversation:cleaner'): Promise<Pending> {
  const owner = site ?? (await createSkillSite(service, 'appr'));
  const requester = await memberWith(owner, ARTICLE_RIGHTS);
  const article = await createItem(owner, 'articles', { title: 'Old news', category: 'archive' }, requester.token);
  const outcome = await callSkill(owner, requester.principal, 'items.delete', { collection: 'articles', id: article.id }, { agent: testAgent(agentId) });
  expect(outcome.status).toBe('pending_approval');
  return { site: owner, requester, article, approvalId: (outcome as { approvalId: string }).approvalId, stream: `${owner.siteId}/item/articles/${article.id}` };
}

function decide(site: SkillSite, token: string, approvalId: string, body: unknown) {
  return site.as(token, 'POST', `/ai/approvals/${approvalId}/decide`, body);
}

async function apiKeyOf(site: SkillSite, userId: string): Promise<string> {
  const created = await site.admin('POST', '/api-keys', { name: `key-${userId.slice(0, 6)}`, userId });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data.key;
}

function expectError(response: { status: number; body: any }, status: number, code: string, path?: (string | number)[]) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.errors[0].code).toBe(code);
  if (path) expect(response.body.errors[0].path).toEqual(path);
}

describe('GET /ai/approvals', () => {
  it('lists pending approvals with the exact call, the pins and the diff: the site’s to an administrator, their own to anyone else', async () => {
    const { site, requester, article, approvalId, stream } = await pendingDelete();
    const bystander = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['*'] }]);

    const listed = await site.admin('GET', '/ai/approvals');
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.meta).toEqual({ total: 1, page: 1, pageSize: 25 });
    expect(listed.body.data[0]).toMatchObject({
      id: approvalId,
      status: 'pending_approval',
      call: { skill: 'items.delete', input: { collection: 'articles', id: article.id } },
      requester: { userId: requester.userId, via: 'session', apiKeyId: null, roleId: requester.roleId },
      agent: { id: 'conversation:cleaner', role: null },
      pins: [{ streamId: stream, version: 1 }],
      diff: { kind: 'delete', collection: 'articles', id: article.id, item: expect.objectContaining({ title: 'Old news', category: 'archive' }) },
      reviews: [],
      decidedBy: null,
      error: null,
    });
    expect((await site.as(requester.token, 'GET', '/ai/approvals')).body.data.map((entry: { id: string }) => entry.id)).toEqual([approvalId]);
    expect((await site.as(bystander.token, 'GET', '/ai/approvals')).body).toMatchObject({ data: [], meta: { total: 0 } });
    expect((await site.admin('GET', '/ai/approvals?status=executed')).body.data).toEqual([]);
    expectError(await site.admin('GET', '/ai/approvals?status=maybe'), 400, 'VALIDATION_FAILED', ['query', 'status']);
    expectError(await site.admin('GET', '/ai/approvals?limit=0'), 400, 'VALIDATION_FAILED', ['query', 'limit']);
    expectError(await site.as(null, 'GET', '/ai/approvals'), 401, 'UNAUTHENTICATED');

    expect((await site.admin('GET', `/ai/approvals/${approvalId}`)).body.data.id).toBe(approvalId);
    expect((await site.as(requester.token, 'GET', `/ai/approvals/${approvalId}`)).status).toBe(200);
    expectError(await site.as(bystander.token, 'GET', `/ai/approvals/${approvalId}`), 404, 'NOT_FOUND');
    expectError(await site.admin('GET', '/ai/approvals/not-a-uuid'), 404, 'NOT_FOUND');
    expectError(await site.admin('GET', '/ai/approvals/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'), 404, 'NOT_FOUND');
  });

  it('never shows or decides another site’s approval', async () => {
    const { site, approvalId, stream } = await pendingDelete();
    const other = withHelpers(service, await createTestSite(service, 'apprb'));
    expectError(await other.admin('GET', `/ai/approvals/${approvalId}`), 404, 'NOT_FOUND');
    expectError(await other.admin('POST', `/ai/approvals/${approvalId}/decide`, { decision: 'approved' }), 404, 'NOT_FOUND');
    expectError(await other.admin('POST', `/agent/approvals/${approvalId}/agent-decide`, { decision: 'rejected' }), 404, 'NOT_FOUND');
    expect((await other.admin('GET', '/ai/approvals')).body.data).toEqual([]);
    expect(await streamEvents(site, stream)).toHaveLength(1);
    expect((await site.admin('GET', `/ai/approvals/${approvalId}`)).body.data.status).toBe('pending_approval');
  });
});

describe('POST /ai/approvals/:id/decide', () => {
  it('runs the call exactly once, as the requester, with the approving person on the event, the audit and the automated decisions', async () => {
    const { site, requester, article, approvalId, stream } = await pendingDelete();
    const answers = await Promise.all([1, 2].map(() => decide(site, site.adminToken, approvalId, { decision: 'approved', reason: 'Outdated' })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const won = answers.find((answer) => answer.status === 200)!;
    expect(won.body.data.approval).toMatchObject({ id: approvalId, status: 'executed', decidedBy: site.adminUserId, decisionReason: 'Outdated' });
    expect(answers.find((answer) => answer.status === 409)!.body.errors[0].code).toBe('CONFLICT');

    const events = await streamEvents(site, stream);
    expect(events.map((event) => event.type)).toEqual(['item.created', 'item.deleted']);
    expect(events[1]!.metadata).toMatchObject({
      actor: { kind: 'agent', id: 'conversation:cleaner' },
      agent: { onBehalfOf: requester.userId, approvedBy: site.adminUserId, approvalId, role: null },
    });
    expect((await site.admin('GET', `/items/articles/${article.id}`)).status).toBe(404);
    expectError(await decide(site, site.adminToken, approvalId, { decision: 'approved' }), 409, 'CONFLICT');

    await service.context.daemon.drain();
    const audit = await site.admin('GET', '/audit?filter[action][_eq]=item.deleted');
    expect(audit.body.data).toEqual([
      expect.objectContaining({
        actor: { kind: 'agent', id: 'conversation:cleaner', impersonatorId: null },
        agent: { onBehalfOf: requester.userId, approvedBy: site.adminUserId, approvalId, role: null, constitutionVersion: null },
      }),
    ]);
    const approved = await site.admin('GET', '/audit?filter[action][_eq]=ai_approval.approved');
    expect(approved.body.data[0]).toMatchObject({ actor: { kind: 'user', id: site.adminUserId }, agent: null, details: { approvalId, approvedBy: site.adminUserId } });

    const decisions = await site.as(requester.token, 'GET', '/me/automated-decisions');
    expect(decisions.status, JSON.stringify(decisions.body)).toBe(200);
    expect(decisions.body.data).toEqual([
      expect.objectContaining({
        itemId: article.id,
        eventType: 'item.deleted',
        agentId: 'conversation:cleaner',
        onBehalfOf: requester.userId,
        approvedBy: site.adminUserId,
        approvalId,
      }),
    ]);
    const revisions = await site.admin('GET', `/items/articles/${article.id}/revisions`);
    expect(revisions.body.data[0]).toMatchObject({ actor: { kind: 'agent', id: 'conversation:cleaner' }, agent: { onBehalfOf: requester.userId, approvedBy: site.adminUserId } });
  });

  it('rejects and runs nothing; a decided approval cannot be decided again', async () => {
    const { site, requester, article, approvalId, stream } = await pendingDelete();
    expectError(await decide(site, requester.token, approvalId, { decision: 'maybe' }), 400, 'VALIDATION_FAILED', ['body', 'decision']);
    expectError(await decide(site, requester.token, approvalId, { decision: 'rejected', extra: 1 }), 400, 'VALIDATION_FAILED');
    const rejected = await decide(site, requester.token, approvalId, { decision: 'rejected', reason: 'Keep it' });
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(200);
    expect(rejected.body.data).toMatchObject({ approval: { status: 'rejected', decidedBy: requester.userId, decisionReason: 'Keep it' }, result: null });
    expect(await streamEvents(site, stream)).toHaveLength(1);
    expect((await site.admin('GET', `/items/articles/${article.id}`)).status).toBe(200);
    expectError(await decide(site, site.adminToken, approvalId, { decision: 'approved' }), 409, 'CONFLICT');
    expectError(await decide(site, site.adminToken, approvalId, { decision: 'rejected' }), 409, 'CONFLICT');
    expect((await site.admin('GET', '/ai/approvals')).body.data).toEqual([]);
  });

  it('takes a person’s decision only: an API key is 403, a stranger is 403, the requester is 403 when the site separates them', async () => {
    const { site, requester, approvalId, stream } = await pendingDelete();
    const adminKey = await apiKeyOf(site, site.adminUserId);
    expectError(await decide(site, adminKey, approvalId, { decision: 'approved' }), 403, 'PERMISSION_DENIED');
    const stranger = await memberWith(site, ARTICLE_RIGHTS);
    expectError(await decide(site, stranger.token, approvalId, { decision: 'approved' }), 403, 'PERMISSION_DENIED');

    const separated = await site.admin('PUT', '/settings/aiSeparateApprover', { value: true });
    expect(separated.status, JSON.stringify(separated.body)).toBe(200);
    const own = await decide(site, requester.token, approvalId, { decision: 'approved' });
    expectError(own, 403, 'PERMISSION_DENIED');
    expect(own.body.errors[0].message).toContain('aiSeparateApprover');
    expect(await streamEvents(site, stream)).toHaveLength(1);

    // A holder of review:items may decide another person's approval, of a collection they may read.
    const blind = await memberWith(site, [{ collection: null, action: 'review:items' }]);
    expectError(await decide(site, blind.token, approvalId, { decision: 'approved' }), 404, 'NOT_FOUND');
    expect((await site.as(blind.token, 'GET', `/ai/approvals/${approvalId}`)).status).toBe(404);
    const reviewer = await memberWith(site, [
      { collection: null, action: 'review:items' },
      { collection: 'articles', action: 'read', fields: ['title'] },
    ]);
    // What the reviewer may not read is hidden from them, as from the requester.
    const seen = (await site.as(reviewer.token, 'GET', `/ai/approvals/${approvalId}`)).body.data;
    expect(seen.diff.item).toMatchObject({ title: 'Old news', category: '[hidden]' });
    const approved = await decide(site, reviewer.token, approvalId, { decision: 'approved' });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.data.approval).toMatchObject({ status: 'executed', decidedBy: reviewer.userId });
    expect((await streamEvents(site, stream)).map((event) => event.type)).toEqual(['item.created', 'item.deleted']);
  });

  it('answers 409 for an item written since the approval was asked for: it becomes stale and never runs', async () => {
    const { site, article, approvalId, stream } = await pendingDelete();
    const edited = await site.admin('PATCH', `/items/articles/${article.id}`, { title: 'Updated news' });
    expect(edited.status).toBe(200);
    const answer = await decide(site, site.adminToken, approvalId, { decision: 'approved' });
    expectError(answer, 409, 'CONFLICT');
    expect(answer.body.errors[0].extensions).toMatchObject({ approvalId, status: 'stale', movedStreams: [stream] });
    const approval = (await site.admin('GET', `/ai/approvals/${approvalId}`)).body.data;
    expect(approval).toMatchObject({ status: 'stale', error: { code: 'CONFLICT' } });
    expect((await site.admin('GET', `/items/articles/${article.id}`)).body.data.title).toBe('Updated news');
    expect((await streamEvents(site, stream)).map((event) => event.type)).toEqual(['item.created', 'item.updated']);
    expectError(await decide(site, site.adminToken, approvalId, { decision: 'approved' }), 409, 'CONFLICT');
  });

  it('pins a release’s unpinned items too: an item edited since makes the publish stale, and nothing is published', async () => {
    const site = await createSkillSite(service, 'apprrel');
    const article = await createItem(site, 'articles', { title: 'Reviewed copy' });
    const created = await site.admin('POST', '/releases', { name: 'Launch', addItems: [{ collection: 'articles', itemId: article.id, targetStatus: 'published' }] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const outcome = await callSkill(site, site.adminPrincipal, 'releases.publish', { id: created.body.data.id }, { agent: testAgent('conversation:publisher') });
    expect(outcome.status).toBe('pending_approval');
    const approvalId = (outcome as { approvalId: string }).approvalId;
    const pins = (await site.admin('GET', `/ai/approvals/${approvalId}`)).body.data.pins.map((pin: { streamId: string }) => pin.streamId);
    expect(pins).toHaveLength(2);

    expect((await site.admin('PATCH', `/items/articles/${article.id}`, { title: 'Unreviewed copy' })).status).toBe(200);
    const answer = await decide(site, site.adminToken, approvalId, { decision: 'approved' });
    expectError(answer, 409, 'CONFLICT');
    expect(answer.body.errors[0].extensions).toMatchObject({ status: 'stale', movedStreams: [pins[1]] });
    expect((await site.admin('GET', `/items/articles/${article.id}`)).body.data.status).not.toBe('published');
  });

  it('runs with the rights the requester holds now: a lost permission fails the approval and the answer says why', async () => {
    const { site, requester, article, approvalId } = await pendingDelete();
    const detached = await site.admin('POST', `/policies/${requester.policyId}/detach`, { roleId: requester.roleId });
    expect(detached.status, JSON.stringify(detached.body)).toBe(200);

    const answer = await decide(site, site.adminToken, approvalId, { decision: 'approved' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toMatchObject({ approval: { status: 'failed', error: { code: 'SKILL_DENIED', message: expect.stringContaining('delete permission') } }, result: null });
    expect((await site.admin('GET', `/items/articles/${article.id}`)).status).toBe(200);
  });
});

describe('POST /agent/approvals/:id/agent-decide', () => {
  it('records a reviewing agent’s approval (still pending), refuses its own request and one without review:<area>, and ends the approval on a rejection', async () => {
    const { site, requester, article, approvalId, stream } = await pendingDelete();
    const reviewer = await memberWith(site, [{ collection: null, action: 'review:items' }]);
    const reviewerKey = await apiKeyOf(site, reviewer.userId);
    const requesterKey = await apiKeyOf(site, requester.userId);

    expectError(await site.as(requester.token, 'POST', `/agent/approvals/${approvalId}/agent-decide`, { decision: 'approved' }), 403, 'PERMISSION_DENIED');
    // The requester's own key, even holding review:items, may not review its own request.
    await grant(site, { userId: requester.userId }, [{ collection: null, action: 'review:items' }]);
    const ownReview = await site.as(requesterKey, 'POST', `/agent/approvals/${approvalId}/agent-decide`, { decision: 'approved' });
    expectError(ownReview, 403, 'PERMISSION_DENIED');
    expect(ownReview.body.errors[0].message).toContain('own request');
    expectError(await site.as(reviewerKey, 'POST', `/agent/approvals/${approvalId}/agent-decide`, { decision: 'soon' }), 400, 'VALIDATION_FAILED', ['body', 'decision']);

    const reviewed = await site.as(reviewerKey, 'POST', `/agent/approvals/${approvalId}/agent-decide`, { decision: 'approved', reason: 'Looks stale' });
    expect(reviewed.status, JSON.stringify(reviewed.body)).toBe(200);
    expect(reviewed.body.data).toMatchObject({ status: 'pending_approval', reviews: [{ decision: 'approved', reviewerId: reviewer.userId, reason: 'Looks stale' }] });
    // A dangerous call never runs without a person.
    expect(await streamEvents(site, stream)).toHaveLength(1);

    const rejected = await site.as(reviewerKey, 'POST', `/agent/approvals/${approvalId}/agent-decide`, { decision: 'rejected' });
    expect(rejected.body.data).toMatchObject({ status: 'rejected', decidedBy: reviewer.userId });
    expectError(await decide(site, site.adminToken, approvalId, { decision: 'approved' }), 409, 'CONFLICT');
    expect((await site.admin('GET', `/items/articles/${article.id}`)).status).toBe(200);
  });
});
