// The flows read models give the same rows when rebuilt from the log: flows (created, changed, deleted,
// their token set, replaced and cleared, a schedule fired), runs of every trigger and outcome (a dry
// run replay included) and their steps. On a database of the file's own: a rebuild rewrites the whole
// tables, which other files' flows must not see.
import { describe, expect, it } from 'vitest';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { flowRunsProjection } from '../../../projections/flowRunsProjection.ts';
import { flowsProjection } from '../../../projections/flowsProjection.ts';
import { fireDueSchedules } from '../../../src/modules/flows/flowSchedule.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import {
  createFlow,
  createFlowSite,
  createManualFlow,
  createTitledCollection,
  edge,
  logGraph,
  node,
  patchFlow,
  runsOf,
  runToEnd,
  triggerWebhook,
  waitForRun,
  waitForRuns,
  type FlowSite,
} from './support/flowHelpers.ts';

const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: database.url, SVC_FLOW_RUN_TIMEOUT_MS: '10000' });

/** Each read model's rows of the site, as JSON lines in a stable order. */
async function snapshot(siteId: string): Promise<Record<string, string[]>> {
  const rows = (query: SqlFragment) => database.owner.query(query).then((found) => found.map((row) => JSON.stringify(row)));
  return {
    flows: await rows(sql`SELECT * FROM flows WHERE site_id = ${siteId} ORDER BY id`),
    flow_runs: await rows(sql`SELECT * FROM flow_runs WHERE site_id = ${siteId} ORDER BY id`),
    flow_run_steps: await rows(sql`SELECT * FROM flow_run_steps WHERE site_id = ${siteId} ORDER BY run_id, seq`),
  };
}

async function ok(site: FlowSite, method: string, path: string, status: number, body?: unknown) {
  const response = await site.admin(method, path, body);
  expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBe(status);
  return response.body?.data;
}

describe('flows read models', () => {
  it('rebuild to the same rows', async () => {
    const site = await createFlowSite(service, 'flowrb');
    await createTitledCollection(site, 'articles');

    // Flows: changed, deleted, with a token replaced, and one cleared.
    const graph = {
      nodes: [node('make', 'create_item', { collection: 'articles', item: { title: '{{ $trigger.title }}' } }), node('boom', 'transform', { expression: '$error("boom")' })],
      edges: [edge('make', 'boom')],
    };
    const manual = await createManualFlow(site, graph, 'Maker');
    await patchFlow(site, manual.id, { description: 'Makes an article, then fails' });
    const gone = await createFlow(site, { name: 'Gone', trigger: 'manual' });
    await ok(site, 'DELETE', `/flows/${gone.id}`, 204);
    const hook = await createFlow(site, { name: 'Hook', trigger: 'webhook', status: 'active', graph: logGraph('{{ $trigger.body.n }}') });
    await ok(site, 'POST', `/flows/${hook.id}/token`, 201);
    const { token } = await ok(site, 'POST', `/flows/${hook.id}/token`, 201);
    const cleared = await createFlow(site, { name: 'Cleared', trigger: 'webhook' });
    await ok(site, 'POST', `/flows/${cleared.id}/token`, 201);
    await ok(site, 'DELETE', `/flows/${cleared.id}/token`, 204);

    // Runs: a failed manual run, its dry-run replay, a webhook run, and a schedule's run.
    const failed = await runToEnd(site, manual.id, { title: 'Made' });
    expect(failed.status).toBe('failed');
    const replay = await ok(site, 'POST', `/flows/${manual.id}/runs/${failed.id}/replay`, 202, { dryRun: true });
    await waitForRun(site, manual.id, replay.runId);
    const called = await triggerWebhook(service, hook.id, { token, body: { n: 3 }, query: 'q=1' });
    expect(called.status, JSON.stringify(called.body)).toBe(202);
    await waitForRun(site, hook.id, called.body.data.runId);
    const schedule = await createFlow(site, { name: 'Hourly', trigger: 'schedule', status: 'active', triggerOptions: { cron: '0 * * * *' }, graph: logGraph() });
    await fireDueSchedules(service.context, new Date(Date.parse(schedule.nextRunAt) + 1_000));
    await waitForRuns(site, schedule.id, 1);
    expect((await runsOf(site, schedule.id))[0].status).toBe('succeeded');

    const before = await snapshot(site.siteId);
    expect(before.flows).toHaveLength(4);
    expect(before.flow_runs).toHaveLength(4);
    expect(before.flow_run_steps).toHaveLength(6);

    await expectRebuildToGiveSameRows({
      service,
      owner: database.owner,
      projections: [flowsProjection, flowRunsProjection],
      tablesWithRows: Object.keys(before),
      snapshot: () => snapshot(site.siteId),
    });
  });
});
