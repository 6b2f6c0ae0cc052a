// The agent work's read models give the same rows when rebuilt from the log (truncate + replay):
// intents (open, changed, closed), goals (planned, settled, run sync with its outcomes, waiting for an
// approval, halted, run async), staged actions (pending, vetoed, ran) and incidents (open, resolved).
// On a database of the file's own: a rebuild rewrites the whole tables.
import { describe, expect, it } from 'vitest';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { agentGoalsProjection } from '../../../projections/agentGoalsProjection.ts';
import { agentIncidentsProjection } from '../../../projections/agentIncidentsProjection.ts';
import { agentIntentsProjection } from '../../../projections/agentIntentsProjection.ts';
import { agentStagedActionsProjection } from '../../../projections/agentStagedActionsProjection.ts';
import { runDueStagedActions } from '../../../src/modules/agents/stagedTask.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createItem } from '../access/support.ts';
import { createAgentRole, ok } from './gateSupport.ts';
import { createWorkSite, goalReaching } from './goalsSupport.ts';

const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: database.url });

async function snapshot(siteId: string): Promise<Record<string, string[]>> {
  const rows = (query: SqlFragment) => database.owner.query(query).then((found) => found.map((row) => JSON.stringify(row)));
  return {
    agent_intents: await rows(sql`SELECT * FROM agent_intents WHERE site_id = ${siteId} ORDER BY id`),
    agent_goals: await rows(sql`SELECT * FROM agent_goals WHERE site_id = ${siteId} ORDER BY id`),
    agent_staged_actions: await rows(sql`SELECT * FROM agent_staged_actions WHERE site_id = ${siteId} ORDER BY id`),
    agent_incidents: await rows(sql`SELECT * FROM agent_incidents WHERE site_id = ${siteId} ORDER BY id`),
  };
}

const createArticle = (title: string) => ({ skill: 'items.create', input: { collection: 'articles', items: { title } } });

describe('the agent work’s read models', () => {
  it('rebuild to the same rows', async () => {
    const site = await createWorkSite(service, 'workrb');
    await createAgentRole(site, { name: 'writer', skills: ['items.*'], collections: ['articles'] });
    await ok(site, 'PUT', '/agent/autonomy/writer', 200, { level: 'stage' });
    const intent = await ok(site, 'POST', '/agent/intents', 201, { title: 'Launch', role: 'writer' });
    await ok(site, 'PATCH', `/agent/intents/${intent.id}`, 200, { description: 'All of it' });
    const closed = await ok(site, 'POST', '/agent/intents', 201, { title: 'Old' });
    await ok(site, 'POST', `/agent/intents/${closed.id}/close`, 200, { reason: 'Done' });

    const planned = await ok(site, 'POST', '/agent/goals', 201, { title: 'Planned', instructions: 'list articles', execution: 'sync', start: false });
    await ok(site, 'POST', `/agent/goals/${planned.id}/settle`, 200, { outcome: 'abandoned', summary: 'Dropped' });
    await ok(site, 'POST', '/agent/goals', 200, { title: 'Sync', steps: [{ skill: 'items.list', input: { collection: 'articles' } }, createArticle('One')], execution: 'sync' });
    const article = await createItem(site, 'articles', { title: 'Two' });
    expect((await site.admin('POST', '/agent/goals', { title: 'Delete', steps: [{ skill: 'items.delete', input: { collection: 'articles', id: article.id } }], execution: 'sync' })).status).toBe(202);
    const async = await site.admin('POST', '/agent/goals', { title: 'Async', steps: [createArticle('Three')], execution: 'async' });
    await goalReaching(site, async.body.data.id, ['succeeded']);

    const staged = await site.admin('POST', '/agent/goals', { title: 'Staged', steps: [createArticle('Four')], intentId: intent.id, execution: 'sync' });
    const vetoed = await site.admin('POST', '/agent/goals', { title: 'Vetoed', steps: [createArticle('Five')], role: 'writer', execution: 'sync' });
    await ok(site, 'POST', `/agent/staged/${vetoed.body.data.stagedId}/veto`, 200, { reason: 'No' });
    await site.admin('POST', '/agent/goals', { title: 'Pending', steps: [createArticle('Six')], role: 'writer', execution: 'sync' });
    await runDueStagedActions(service.context, new Date(Date.now() + 3_600_000));
    expect((await ok(site, 'GET', `/agent/staged/${staged.body.data.stagedId}`, 200)).status).toBe('ran');
    await site.admin('POST', '/agent/goals', { title: 'Still pending', steps: [createArticle('Seven')], role: 'writer', execution: 'sync' });

    await ok(site, 'POST', '/agent/kill-switch', 201, { scope: 'site', reason: 'Stop' });
    expect((await ok(site, 'POST', '/agent/goals', 200, { title: 'Halted', steps: [createArticle('Never')], execution: 'sync' })).status).toBe('halted');
    const incident = await ok(site, 'POST', '/agent/incidents', 201, { role: 'git-sync', severity: 'warning', title: 'Conflict', intentId: intent.id });
    await ok(site, 'POST', `/agent/incidents/${incident.id}/resolve`, 200, { note: 'Merged' });
    await ok(site, 'POST', '/agent/incidents', 201, { role: 'writer', severity: 'info', title: 'Open' });

    const before = await snapshot(site.siteId);
    expect(before.agent_intents).toHaveLength(2);
    expect(before.agent_goals).toHaveLength(9);
    expect(before.agent_staged_actions).toHaveLength(4);
    expect(before.agent_incidents).toHaveLength(2);

    await expectRebuildToGiveSameRows({
      service,
      owner: database.owner,
      projections: [agentIntentsProjection, agentGoalsProjection, agentStagedActionsProjection, agentIncidentsProjection],
      tablesWithRows: Object.keys(before),
      snapshot: () => snapshot(site.siteId),
    });
  });
});
