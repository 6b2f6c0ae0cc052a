// The agent work's lists read their page from an index (migration 0590), newest first without a sort,
// and their total from an index: intents, goals (an administrator's, a creator's, by status, by
// intent), staged actions (an administrator's, the principal's, by status), incidents (by status, by
// role). The plans are read with sequential scans discouraged, on the shared test database.
import { describe, expect, it } from 'vitest';
import type { SqlFragment } from '../../../infra/postgres/sql.ts';
import {
  goalListStatements,
  incidentListStatements,
  intentListStatements,
  stagedListStatements,
  type ListStatements,
} from '../../../src/modules/agents/agentWorkQueries.ts';
import { planNodes } from '../../support/queryPlans.ts';
import { startTestServiceForFile } from '../../support/testService.ts';

const service = await startTestServiceForFile();
const SITE = 'agent-work-plan';
const page = { limit: 25, page: 2 };
const INTENT = '0191d2a4-8b3c-7d4e-9f00-000000000001';

const planOf = (statement: SqlFragment) => planNodes(service, SITE, statement);

describe('the agent work lists', () => {
  it.each<{ list: string; statements: ListStatements; index: string }>([
    { list: 'intents', statements: intentListStatements(SITE, page), index: 'agent_intents_list' },
    { list: 'intents by status', statements: intentListStatements(SITE, { ...page, status: 'open' }), index: 'agent_intents_status' },
    { list: 'an administrator’s goals', statements: goalListStatements(SITE, null, page), index: 'agent_goals_list' },
    { list: 'a creator’s goals', statements: goalListStatements(SITE, 'user-1', page), index: 'agent_goals_creator' },
    { list: 'goals by status', statements: goalListStatements(SITE, null, { ...page, status: 'queued' }), index: 'agent_goals_status' },
    { list: 'goals of an intent', statements: goalListStatements(SITE, null, { ...page, intentId: INTENT }), index: 'agent_goals_intent' },
    { list: 'an administrator’s staged actions', statements: stagedListStatements(SITE, null, page), index: 'agent_staged_list' },
    { list: 'a principal’s staged actions', statements: stagedListStatements(SITE, 'user-1', page), index: 'agent_staged_behalf' },
    { list: 'staged actions by status', statements: stagedListStatements(SITE, null, { ...page, status: 'pending' }), index: 'agent_staged_status' },
    { list: 'incidents', statements: incidentListStatements(SITE, page), index: 'agent_incidents_list' },
    { list: 'incidents by status', statements: incidentListStatements(SITE, { ...page, status: 'open' }), index: 'agent_incidents_status' },
    { list: 'incidents by role', statements: incidentListStatements(SITE, { ...page, role: 'git-sync' }), index: 'agent_incidents_role' },
  ])('of $list reads its page from $index, and its total from an index', async ({ statements, index }) => {
    const pagePlan = await planOf(statements.page);
    expect(pagePlan.some((node) => node['Index Name'] === index)).toBe(true);
    expect(pagePlan.filter((node) => node['Node Type'] === 'Seq Scan' || node['Node Type'] === 'Sort')).toEqual([]);
    const total = await planOf(statements.total);
    expect(total.some((node) => node['Index Name']?.startsWith('agent_'))).toBe(true);
    expect(total.filter((node) => node['Node Type'] === 'Seq Scan')).toEqual([]);
  });
});
