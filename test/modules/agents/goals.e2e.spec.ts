// /agent/goals over real HTTP (docs/agent-goals.md "Goals"): a sync goal runs its steps through the
// skill runner (a read and a create, written by the goal's agent) and answers its outcomes; a
// dangerous step stops it with 202 HITL_REQUIRED and the approval; an async goal answers queued and
// then runs; a refusal fails it; the kill switch halts it; settle closes it once; the creator sees its
// own goals, an administrator all, another site nothing; bad bodies 400 with their path.
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createItem } from '../access/support.ts';
import { expectError, memberWith, ok } from './gateSupport.ts';
import { createWorkSite, goalReaching, memberWithRules } from './goalsSupport.ts';

const service = await startTestServiceForFile();
/** The copilot's provider port (built beside this area): decomposing instructions needs it. */

const listArticles = { skill: 'items.list', input: { collection: 'articles' } };
const createArticle = (title: string) => ({ skill: 'items.create', input: { collection: 'articles', items: { title } } });

describe('/agent/goals', () => {
  it('runs a sync goal’s steps (a read, a create) as its agent and answers each outcome', async () => {
    const site = await createWorkSite(service, 'goals');
    await createItem(site, 'articles', { title: 'Existing' });
    const response = await site.admin('POST', '/agent/goals', { title: 'Add an article', steps: [listArticles, createArticle('Written by a goal')], execution: 'sync' });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const goal = response.body.data;
    expect(goal).toMatchObject({ title: 'Add an article', status: 'succeeded', execution: 'sync', createdBy: site.adminUserId, code: null, settlement: null });
    expect(goal.outcomes.map((outcome: { skill: string; status: string }) => [outcome.skill, outcome.status])).toEqual([
      ['items.list', 'executed'],
      ['items.create', 'executed'],
    ]);
    expect(goal.outcomes[0].result.items.map((item: { title: string }) => item.title)).toEqual(['Existing']);

    const items = await site.admin('GET', '/items/articles');
    expect(items.body.data.map((item: { title: string }) => item.title).sort()).toEqual(['Existing', 'Written by a goal']);
    const [created] = await service.context.database.withSiteReads(site.siteId, (tx) =>
      tx.query<{ metadata: { actor: { kind: string; id: string }; agent: { onBehalfOf: string } } }>(
        sql`SELECT metadata FROM events WHERE site_id = ${site.siteId} AND type = 'item.created' ORDER BY position DESC LIMIT 1`,
      ),
    );
    expect(created!.metadata.actor).toEqual({ kind: 'agent', id: `goal:${goal.id}` });
    expect(created!.metadata.agent.onBehalfOf).toBe(site.adminUserId);
    expect(await ok(site, 'GET', `/agent/goals/${goal.id}`, 200)).toEqual(goal);
  });

  it('stops at a dangerous step with 202 HITL_REQUIRED and the approval, having deleted nothing', async () => {
    const site = await createWorkSite(service, 'goals');
    const article = await createItem(site, 'articles', { title: 'Keep me' });
    const response = await site.admin('POST', '/agent/goals', {
      title: 'Clean up',
      steps: [listArticles, { skill: 'items.delete', input: { collection: 'articles', id: article.id } }, createArticle('Never reached')],
      execution: 'sync',
    });
    expect(response.status, JSON.stringify(response.body)).toBe(202);
    const goal = response.body.data;
    expect(goal).toMatchObject({ status: 'awaiting_approval', code: 'HITL_REQUIRED', approvalId: expect.any(String) });
    expect(goal.outcomes.map((outcome: { status: string }) => outcome.status)).toEqual(['executed', 'pending_approval']);
    expect(goal.outcomes[1].approvalId).toBe(goal.approvalId);
    const approval = await ok(site, 'GET', `/ai/approvals/${goal.approvalId}`, 200);
    expect(approval.call).toEqual({ skill: 'items.delete', input: { collection: 'articles', id: article.id } });
    expect((await site.admin('GET', `/items/articles/${article.id}`)).status).toBe(200);
    expect((await site.admin('GET', '/items/articles')).body.data).toHaveLength(1);
  });

  it('queues an async goal, answers 202 queued, then runs it', async () => {
    const site = await createWorkSite(service, 'goals');
    const queued = await site.admin('POST', '/agent/goals', { title: 'Later', steps: [createArticle('Async article')], execution: 'async' });
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    expect(queued.body.data).toEqual({ id: expect.any(String), status: 'queued', runId: expect.any(String) });
    const done = await goalReaching(site, queued.body.data.id, ['succeeded', 'failed', 'halted']);
    expect(done).toMatchObject({ status: 'succeeded', runId: queued.body.data.runId });
    expect(done.outcomes).toMatchObject([{ skill: 'items.create', status: 'executed' }]);
    expect((await site.admin('GET', '/items/articles')).body.data.map((item: { title: string }) => item.title)).toEqual(['Async article']);
  });

  it('fails a goal whose principal may not do a step (SKILL_DENIED), writing nothing', async () => {
    const site = await createWorkSite(service, 'goals');
    const reader = await memberWithRules(site, [{ collection: 'articles', action: 'read' }]);
    const response = await site.as(reader.token, 'POST', '/agent/goals', { title: 'Sneaky', steps: [listArticles, createArticle('Nope')], execution: 'sync' });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data).toMatchObject({ status: 'failed', code: 'SKILL_DENIED' });
    expect(response.body.data.outcomes.map((outcome: { status: string }) => outcome.status)).toEqual(['executed', 'refused']);
    expect((await site.admin('GET', '/items/articles')).body.data).toEqual([]);
  });

  it('halts goals the kill switch froze: a queued one of a frozen intent, and every one of a frozen site', async () => {
    const site = await createWorkSite(service, 'goals');
    const intent = await ok(site, 'POST', '/agent/intents', 201, { title: 'Runaway' });
    const freeze = await ok(site, 'POST', '/agent/kill-switch', 201, { scope: 'intent', target: intent.id, reason: 'Stop this intent' });
    const queued = await site.admin('POST', '/agent/goals', { title: 'Frozen', steps: [createArticle('Never')], intentId: intent.id, execution: 'async' });
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    const halted = await goalReaching(site, queued.body.data.id, ['succeeded', 'failed', 'halted']);
    expect(halted).toMatchObject({ status: 'halted', code: 'AGENT_FROZEN', intentId: intent.id });

    const other = await site.admin('POST', '/agent/goals', { title: 'Not frozen', steps: [listArticles], execution: 'sync' });
    expect(other.body.data.status).toBe('succeeded');
    await ok(site, 'POST', '/agent/kill-switch/lift', 200, { freezeId: freeze.id });
    await ok(site, 'POST', '/agent/kill-switch', 201, { scope: 'site', reason: 'Stop everything' });
    const sync = await site.admin('POST', '/agent/goals', { title: 'Frozen too', steps: [listArticles], execution: 'sync' });
    expect(sync.status).toBe(200);
    expect(sync.body.data).toMatchObject({ status: 'halted', code: 'AGENT_FROZEN' });
    const queuedToo = await site.admin('POST', '/agent/goals', { title: 'Queued, frozen', steps: [listArticles], execution: 'async' });
    expect(await goalReaching(site, queuedToo.body.data.id, ['succeeded', 'failed', 'halted'])).toMatchObject({ status: 'halted', code: 'AGENT_FROZEN' });
    expect((await site.admin('GET', '/items/articles')).body.data).toEqual([]);
  });

  it('settles a goal once; the creator sees its own goals, an administrator all', async () => {
    const site = await createWorkSite(service, 'goals');
    const member = await memberWith(site);
    const mine = await ok(site, 'POST', '/agent/goals', 201, { title: 'Planned', instructions: 'list articles', execution: 'sync', start: false }, member.token);
    expect(mine).toMatchObject({ status: 'planned', steps: [], createdBy: member.userId });
    const admins = await ok(site, 'POST', '/agent/goals', 201, { title: 'Admin’s', steps: [listArticles], execution: 'async', start: false });

    expect((await ok(site, 'GET', '/agent/goals', 200, undefined, member.token)).map((goal: { id: string }) => goal.id)).toEqual([mine.id]);
    expect((await ok(site, 'GET', '/agent/goals', 200)).map((goal: { id: string }) => goal.id)).toEqual([admins.id, mine.id]);
    expect((await ok(site, 'GET', '/agent/goals?status=planned&limit=1', 200)).map((goal: { id: string }) => goal.id)).toEqual([admins.id]);
    expectError(await site.as(member.token, 'GET', `/agent/goals/${admins.id}`), 404, 'NOT_FOUND');
    expectError(await site.as(member.token, 'POST', `/agent/goals/${admins.id}/settle`, { outcome: 'abandoned' }), 404, 'NOT_FOUND');

    const settled = await ok(site, 'POST', `/agent/goals/${mine.id}/settle`, 200, { outcome: 'abandoned', summary: 'Not needed' }, member.token);
    expect(settled.settlement).toMatchObject({ outcome: 'abandoned', summary: 'Not needed', settledBy: member.userId });
    expectError(await site.as(member.token, 'POST', `/agent/goals/${mine.id}/settle`, { outcome: 'succeeded' }), 409, 'CONFLICT');
    expectError(await site.as(member.token, 'POST', `/agent/goals/${mine.id}/decompose`, {}), 409, 'CONFLICT');
    expectError(await site.admin('POST', `/agent/goals/${admins.id}/settle`, { outcome: 'done' }), 400, 'VALIDATION_FAILED', ['body', 'outcome']);
  });

  it('starts a goal planned with its steps through decompose, once; only its creator may', async () => {
    const site = await createWorkSite(service, 'goals');
    const member = await memberWithRules(site, [{ collection: 'articles', action: 'read' }]);
    const planned = await ok(site, 'POST', '/agent/goals', 201, { title: 'Later', steps: [listArticles], execution: 'sync', start: false }, member.token);
    expect(planned).toMatchObject({ status: 'planned', runId: null, outcomes: [] });
    expectError(await site.admin('POST', `/agent/goals/${planned.id}/decompose`, { start: true }), 403, 'PERMISSION_DENIED');
    const ran = await ok(site, 'POST', `/agent/goals/${planned.id}/decompose`, 200, { start: true }, member.token);
    expect(ran).toMatchObject({ status: 'succeeded', steps: [listArticles], outcomes: [{ skill: 'items.list', status: 'executed' }] });
    expectError(await site.as(member.token, 'POST', `/agent/goals/${planned.id}/decompose`, { start: true }), 409, 'CONFLICT');
    const empty = await ok(site, 'POST', '/agent/goals', 201, { title: 'Nothing', execution: 'async', start: false }, member.token);
    expectError(await site.as(member.token, 'POST', `/agent/goals/${empty.id}/decompose`, {}), 409, 'CONFLICT');
    expectError(await site.as(member.token, 'POST', `/agent/goals/${empty.id}/decompose`, { start: 'yes' }), 400, 'VALIDATION_FAILED', ['body', 'start']);
  });

  it('decomposes instructions with the built-in parser, one step per line, then runs them; a line no skill fits is 400', async () => {
    const site = await createWorkSite(service, 'goals');
    const planned = await ok(site, 'POST', '/agent/goals', 201, { title: 'Plan', instructions: 'list articles\ncreate article titled Planned post', execution: 'sync', start: false });
    const decomposed = await ok(site, 'POST', `/agent/goals/${planned.id}/decompose`, 200, {});
    expect(decomposed.steps.map((step: { skill: string }) => step.skill)).toEqual(['items.list', 'items.create']);
    const ran = await ok(site, 'POST', `/agent/goals/${planned.id}/decompose`, 200, { start: true });
    expect(ran.status).toBe('succeeded');
    expect((await site.admin('GET', '/items/articles')).body.data.map((item: { title: string }) => item.title)).toEqual(['Planned post']);

    const refused = expectError(await site.admin('POST', '/agent/goals', { title: 'Odd', instructions: 'list articles\nmake me a sandwich', execution: 'sync' }), 400, 'VALIDATION_FAILED', [
      'body',
      'instructions',
    ]);
    expect(refused.message).toContain('make me a sandwich');
  });

  it('refuses bad bodies with their path, unknown skills, roles and intents, and another site’s ids', async () => {
    const site = await createWorkSite(service, 'goals');
    const elsewhere = await createWorkSite(service, 'goals');
    const post = (body: Record<string, unknown>) => site.admin('POST', '/agent/goals', { title: 'Bad', execution: 'sync', ...body });
    expectError(await post({ execution: 'later', steps: [listArticles] }), 400, 'VALIDATION_FAILED', ['body', 'execution']);
    expectError(await post({}), 400, 'VALIDATION_FAILED', ['body', 'steps']);
    expectError(await post({ steps: Array.from({ length: 21 }, () => listArticles) }), 400, 'VALIDATION_FAILED', ['body', 'steps']);
    expectError(await post({ steps: [listArticles, { skill: 'nothing.here', input: {} }] }), 400, 'VALIDATION_FAILED', ['body', 'steps', 1, 'skill']);
    expectError(await post({ steps: [listArticles], role: 'ghost' }), 400, 'VALIDATION_FAILED', ['body', 'role']);
    expectError(await post({ steps: [listArticles], intentId: 'not-an-intent' }), 400, 'VALIDATION_FAILED', ['body', 'intentId']);
    const closed = await ok(site, 'POST', '/agent/intents', 201, { title: 'Done' });
    await ok(site, 'POST', `/agent/intents/${closed.id}/close`, 200, {});
    expectError(await post({ steps: [listArticles], intentId: closed.id }), 409, 'CONFLICT');
    expectError(await site.as(null, 'POST', '/agent/goals', { title: 'x', steps: [listArticles], execution: 'sync' }), 401, 'UNAUTHENTICATED');

    const foreign = await ok(elsewhere, 'POST', '/agent/goals', 200, { title: 'Theirs', steps: [listArticles], execution: 'sync' });
    const foreignIntent = await ok(elsewhere, 'POST', '/agent/intents', 201, { title: 'Theirs' });
    expectError(await site.admin('GET', `/agent/goals/${foreign.id}`), 404, 'NOT_FOUND');
    expectError(await site.admin('POST', `/agent/goals/${foreign.id}/settle`, { outcome: 'failed' }), 404, 'NOT_FOUND');
    expectError(await site.admin('POST', `/agent/goals/${foreign.id}/decompose`, {}), 404, 'NOT_FOUND');
    expectError(await post({ steps: [listArticles], intentId: foreignIntent.id }), 400, 'VALIDATION_FAILED', ['body', 'intentId']);
    expectError(await site.admin('GET', '/agent/goals/nope'), 404, 'NOT_FOUND');
    expect(await ok(site, 'GET', '/agent/goals', 200)).toEqual([]);
  });
});
