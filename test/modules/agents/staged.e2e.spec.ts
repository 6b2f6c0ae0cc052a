// Staged actions over real HTTP (docs/agent-goals.md "Staged actions"): an agent role at autonomy
// `stage` stages its writes (the goal answers 202 awaiting its veto window, the site is told), a
// person vetoes one (the principal it acts for or an administrator; an API key 403; twice 409) and it
// never runs; the scheduler's task runs a due one exactly once, as its agent, and a veto after is
// 409. Another site's ids 404.
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { runDueStagedActions } from '../../../src/modules/agents/stagedTask.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createAgentRole, expectError, ok, roleKey, type AgentSite } from './gateSupport.ts';
import { createWorkSite, memberWithRules } from './goalsSupport.ts';

const service = await startTestServiceForFile();

const createArticle = (title: string) => ({ skill: 'items.create', input: { collection: 'articles', items: { title } } });
const titles = async (site: AgentSite) => (await site.admin('GET', '/items/articles')).body.data.map((item: { title: string }) => item.title).sort();

async function stagingSite(prefix = 'staged'): Promise<AgentSite> {
  const site = await createWorkSite(service, prefix);
  await createAgentRole(site, { name: 'writer', skills: ['items.*'], collections: ['articles'] });
  await ok(site, 'PUT', '/agent/autonomy/writer', 200, { level: 'stage' });
  return site;
}

/** A sync goal of the role `writer` that creates an article: staged; its staged action. */
async function stageArticle(site: AgentSite, title: string, token: string = site.adminToken) {
  const response = await site.as(token, 'POST', '/agent/goals', { title: `Write ${title}`, steps: [createArticle(title)], role: 'writer', execution: 'sync' });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  expect(response.body.data).toMatchObject({ status: 'awaiting_veto_window', stagedId: expect.any(String), runAfter: expect.any(String) });
  return ok(site, 'GET', `/agent/staged/${response.body.data.stagedId}`, 200, undefined, token);
}

const later = (seconds: number) => new Date(Date.now() + seconds * 1000);

describe('staged agent actions', () => {
  it('stages a write for the site’s veto window, tells the site, and lists it', async () => {
    const site = await stagingSite();
    expect((await site.admin('PUT', '/settings/agentVetoWindowSeconds', { value: 120 })).status).toBe(200);
    const before = Date.now();
    const staged = await stageArticle(site, 'Staged one');
    expect(staged).toMatchObject({
      skill: 'items.create',
      input: { collection: 'articles', items: { title: 'Staged one' } },
      status: 'pending',
      agent: { id: expect.stringMatching(/^goal:/), role: 'writer', runId: expect.any(String), intentId: null },
      requester: { userId: site.adminUserId, via: 'session' },
      vetoedBy: null,
    });
    const window = Date.parse(staged.runAfter) - before;
    expect(window).toBeGreaterThanOrEqual(119_000);
    expect(window).toBeLessThanOrEqual(125_000);
    expect(await titles(site)).toEqual([]);
    expect((await ok(site, 'GET', '/agent/staged?status=pending', 200)).map((found: { id: string }) => found.id)).toEqual([staged.id]);
    expect(await ok(site, 'GET', '/agent/staged?status=ran', 200)).toEqual([]);
    const [notification] = await service.context.database.withSiteReads(site.siteId, (tx) =>
      tx.query<{ data: { kind: string; deepLink: string } }>(sql`SELECT data FROM events WHERE site_id = ${site.siteId} AND type = 'notification.published' AND data->>'entityId' = ${staged.id}`),
    );
    expect(notification!.data).toMatchObject({ kind: 'agents.staged', deepLink: `/agent/staged/${staged.id}` });
  });

  it('never runs a vetoed action; a veto needs a person, the principal or an administrator, once', async () => {
    const site = await stagingSite();
    const key = await roleKey(site, { admin: true });
    const byKey = await stageArticle(site, 'From a key', key);
    expectError(await site.as(key, 'POST', `/agent/staged/${byKey.id}/veto`, {}), 403, 'PERMISSION_DENIED');
    const vetoed = await ok(site, 'POST', `/agent/staged/${byKey.id}/veto`, 200, { reason: 'Not this one' });
    expect(vetoed).toMatchObject({ status: 'vetoed', vetoedBy: site.adminUserId, vetoReason: 'Not this one' });
    expectError(await site.admin('POST', `/agent/staged/${byKey.id}/veto`, {}), 409, 'CONFLICT');

    const writer = await memberWithRules(site, [{ collection: 'articles', action: 'create' }, { collection: 'articles', action: 'read' }]);
    const mine = await stageArticle(site, 'From a member', writer.token);
    const other = await memberWithRules(site, []);
    expectError(await site.as(other.token, 'POST', `/agent/staged/${mine.id}/veto`, {}), 404, 'NOT_FOUND');
    expect(await ok(site, 'GET', '/agent/staged', 200, undefined, other.token)).toEqual([]);
    expect((await ok(site, 'GET', '/agent/staged', 200, undefined, writer.token)).map((found: { id: string }) => found.id)).toEqual([mine.id]);
    expect(await ok(site, 'POST', `/agent/staged/${mine.id}/veto`, 200, {}, writer.token)).toMatchObject({ status: 'vetoed', vetoedBy: writer.userId });

    await runDueStagedActions(service.context, later(3600));
    expect(await titles(site)).toEqual([]);
    expect((await ok(site, 'GET', `/agent/staged/${byKey.id}`, 200)).status).toBe('vetoed');
  });

  it('runs a due action once, as its agent, when the scheduler’s task finds it; a veto after is 409', async () => {
    const site = await stagingSite();
    const staged = await stageArticle(site, 'Runs once');
    await runDueStagedActions(service.context, later(60));
    expect((await ok(site, 'GET', `/agent/staged/${staged.id}`, 200)).status).toBe('pending');

    await Promise.all([runDueStagedActions(service.context, later(601)), runDueStagedActions(service.context, later(700))]);
    await runDueStagedActions(service.context, later(800));
    expect(await titles(site)).toEqual(['Runs once']);
    const ran = await ok(site, 'GET', `/agent/staged/${staged.id}`, 200);
    expect(ran).toMatchObject({ status: 'ran', code: null });
    expectError(await site.admin('POST', `/agent/staged/${staged.id}/veto`, {}), 409, 'CONFLICT');
    const [created] = await service.context.database.withSiteReads(site.siteId, (tx) =>
      tx.query<{ metadata: { actor: { kind: string; id: string }; agent: { role: string } } }>(
        sql`SELECT metadata FROM events WHERE site_id = ${site.siteId} AND type = 'item.created' ORDER BY position DESC LIMIT 1`,
      ),
    );
    expect(created!.metadata.actor).toEqual({ kind: 'agent', id: staged.agent.id });
    expect(created!.metadata.agent.role).toBe('writer');
  });

  it('fails a due action the gate now refuses (a frozen role), writing nothing', async () => {
    const site = await stagingSite();
    const staged = await stageArticle(site, 'Frozen later');
    await ok(site, 'POST', '/agent/kill-switch', 201, { scope: 'role', target: 'writer', reason: 'Stop writers' });
    await runDueStagedActions(service.context, later(601));
    expect(await ok(site, 'GET', `/agent/staged/${staged.id}`, 200)).toMatchObject({ status: 'failed', code: 'AGENT_FROZEN' });
    expect(await titles(site)).toEqual([]);
  });

  it('answers 404 for another site’s staged actions and ids that name nothing', async () => {
    const site = await stagingSite();
    const elsewhere = await stagingSite();
    const foreign = await stageArticle(elsewhere, 'Theirs');
    expectError(await site.admin('GET', `/agent/staged/${foreign.id}`), 404, 'NOT_FOUND');
    expectError(await site.admin('POST', `/agent/staged/${foreign.id}/veto`, {}), 404, 'NOT_FOUND');
    expectError(await site.admin('GET', '/agent/staged/nope'), 404, 'NOT_FOUND');
    expectError(await site.admin('GET', '/agent/staged?status=maybe'), 400, 'VALIDATION_FAILED', ['query', 'status']);
    expectError(await site.as(null, 'GET', '/agent/staged'), 401, 'UNAUTHENTICATED');
    expect(await ok(site, 'GET', '/agent/staged', 200)).toEqual([]);
    expect((await ok(elsewhere, 'GET', `/agent/staged/${foreign.id}`, 200)).status).toBe('pending');
  });
});
