// Every way a flow starts, end to end over real HTTP (docs/flows.md "Triggers", "Runs"): manual runs,
// the webhook with its token, event flows on item writes, replays (dry runs included), failure edges
// and conditions, the loop guard, and the run detail's 404s. On a database of the file's own: the
// event reactor and the run queue are one per database, and this file's SVC_FLOW_MAX_CHAIN must be
// the one the reactor applies.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import {
  createFlow,
  createFlowSite,
  createItem,
  createManualFlow,
  createTitledCollection,
  edge,
  expectError,
  getFlow,
  itemsOf,
  logGraph,
  node,
  runsOf,
  runToEnd,
  settledRuns,
  startRun,
  triggerWebhook,
  waitForRun,
  waitForRuns,
  type FlowSite,
  type Json,
} from './support/flowHelpers.ts';

const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: database.url, SVC_FLOW_RUN_TIMEOUT_MS: '10000', SVC_FLOW_MAX_CHAIN: '2' });

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'x-flow-token', 'x-api-key', 'proxy-authorization', 'x-svc-refresh'];

const webhookFlow = (site: FlowSite, status = 'active') => createFlow(site, { name: 'Hook', trigger: 'webhook', status, graph: logGraph('order {{ $trigger.body.order.id }}') });

async function newToken(site: FlowSite, flowId: string): Promise<string> {
  const made = await site.admin('POST', `/flows/${flowId}/token`);
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  expect(made.body.data.token).toEqual(expect.any(String));
  return made.body.data.token;
}

/** An active event flow with `triggerOptions` whose one node logs the item id. */
const eventFlow = (site: FlowSite, triggerOptions: Record<string, unknown>) =>
  createFlow(site, { name: 'On write', trigger: 'event', status: 'active', triggerOptions, graph: logGraph('{{ $trigger.itemId }}') });

/** The writes the runs' inputs name, in the order they happened (runs queued together share their startedAt). */
const writesOf = (runs: Json[]) =>
  runs
    .map((run) => run.input)
    .sort((a, b) => Date.parse(a.occurredAt) - Date.parse(b.occurredAt))
    .map((input) => ({ event: input.event, collection: input.collection, itemId: input.itemId }));

describe('manual runs', () => {
  it('answers 202 queued, then the run succeeds with each step’s output', async () => {
    const site = await createFlowSite(service);
    const graph = {
      nodes: [node('say', 'log', { message: '{{ $trigger.a }} from {{ $flow.name }}' }), node('add', 'transform', { expression: '$trigger.a + 1' })],
      edges: [edge('say', 'add')],
    };
    const flow = await createManualFlow(site, graph, 'Adder');
    const started = await site.admin('POST', `/flows/${flow.id}/run`, { a: 41 });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body.data).toEqual({ runId: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'queued', startedAt: expect.stringMatching(ISO) });
    const run = await waitForRun(site, flow.id, started.body.data.runId);
    expect(run).toMatchObject({
      id: started.body.data.runId,
      flowId: flow.id,
      status: 'succeeded',
      trigger: 'manual',
      input: { a: 41 },
      depth: 0,
      dryRun: false,
      replayOf: null,
      error: null,
      startedAt: started.body.data.startedAt,
      executingAt: expect.stringMatching(ISO),
      finishedAt: expect.stringMatching(ISO),
    });
    expect(run.steps).toMatchObject([
      { nodeId: 'say', operation: 'log', status: 'succeeded', output: { message: '41 from Adder' }, error: null, attempts: 1, startedAt: expect.stringMatching(ISO) },
      { nodeId: 'add', operation: 'transform', status: 'succeeded', output: 42, error: null, attempts: 1 },
    ]);
    expect(run.steps[0].durationMs).toBeGreaterThanOrEqual(0);
    const bare = await runToEnd(site, flow.id);
    expect(bare).toMatchObject({ input: null, status: 'succeeded' });
    expect((await site.admin('GET', `/flows/${flow.id}/runs?status=succeeded`)).body.meta.total).toBe(2);
    expect((await site.admin('GET', `/flows/${flow.id}/runs?status=failed`)).body.meta.total).toBe(0);
  });

  it('is 409 CONFLICT for a draft flow and for a flow that is not manual', async () => {
    const site = await createFlowSite(service);
    const draft = await createFlow(site, { trigger: 'manual', graph: logGraph() });
    const hook = await webhookFlow(site);
    for (const flow of [draft, hook]) expectError(await site.admin('POST', `/flows/${flow.id}/run`, { a: 1 }), 409, 'CONFLICT');
    expect(await runsOf(site, hook.id)).toEqual([]);
  });
});

describe('webhook trigger', () => {
  it('is 404 for an unknown id, an id of another format, a flow that is not a webhook flow, and an inactive one', async () => {
    const site = await createFlowSite(service);
    const manual = await createManualFlow(site, logGraph());
    const draft = await webhookFlow(site, 'draft');
    await newToken(site, manual.id);
    const draftToken = await newToken(site, draft.id);
    for (const id of [randomUUID(), 'not-a-uuid', '12345', manual.id]) expectError(await triggerWebhook(service, id, { token: 'x', body: {} }), 404, 'NOT_FOUND');
    expectError(await triggerWebhook(service, draft.id, { token: draftToken, body: {} }), 404, 'NOT_FOUND');
    expect(await runsOf(site, draft.id)).toEqual([]);
  });

  it('needs a configured token, then the right one in x-flow-token or as a Bearer; a new token replaces the old', async () => {
    const site = await createFlowSite(service);
    const flow = await webhookFlow(site);
    expectError(await triggerWebhook(service, flow.id, { token: 'anything', body: {} }), 401, 'WEBHOOK_NOT_CONFIGURED');
    const token = await newToken(site, flow.id);
    expect((await getFlow(site, flow.id)).hasToken).toBe(true);
    expectError(await triggerWebhook(service, flow.id, { body: {} }), 401, 'UNAUTHENTICATED');
    expectError(await triggerWebhook(service, flow.id, { token: `${token}x`, body: {} }), 401, 'UNAUTHENTICATED');
    expectError(await triggerWebhook(service, flow.id, { bearer: 'wrong', body: {} }), 401, 'UNAUTHENTICATED');
    for (const call of [{ token }, { bearer: token }]) {
      const accepted = await triggerWebhook(service, flow.id, { ...call, body: { order: { id: 1 } } });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
      expect(accepted.body.data).toEqual({ runId: expect.any(String), status: 'queued', startedAt: expect.stringMatching(ISO) });
    }
    const rotated = await newToken(site, flow.id);
    expect(rotated).not.toBe(token);
    expectError(await triggerWebhook(service, flow.id, { token, body: {} }), 401, 'UNAUTHENTICATED');
    expect((await triggerWebhook(service, flow.id, { token: rotated, body: {} })).status).toBe(202);
    expect((await site.admin('DELETE', `/flows/${flow.id}/token`)).status).toBe(204);
    expect((await getFlow(site, flow.id)).hasToken).toBe(false);
    expectError(await triggerWebhook(service, flow.id, { token: rotated, body: {} }), 401, 'WEBHOOK_NOT_CONFIGURED');
    expect(await waitForRuns(site, flow.id, 3)).toHaveLength(3);
  });

  it('records the body, the query and the headers without credentials as the run’s input', async () => {
    const site = await createFlowSite(service);
    const flow = await webhookFlow(site);
    const token = await newToken(site, flow.id);
    const extra = { cookie: 'session=abc', 'x-api-key': 'key', 'proxy-authorization': 'Basic eA==', 'x-svc-refresh': 'refresh', 'x-custom-header': 'kept' };
    const calls = [
      { token, headers: extra },
      { bearer: token, headers: { 'x-custom-header': 'kept' } },
    ];
    for (const call of calls) {
      const accepted = await triggerWebhook(service, flow.id, { ...call, query: 'source=crm&n=2', body: { order: { id: 7 } } });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
      const run = await waitForRun(site, flow.id, accepted.body.data.runId);
      expect(run).toMatchObject({ status: 'succeeded', trigger: 'webhook', input: { body: { order: { id: 7 } }, query: { source: 'crm', n: '2' } } });
      expect(run.input.headers['x-custom-header']).toBe('kept');
      for (const header of CREDENTIAL_HEADERS) expect(run.input.headers, header).not.toHaveProperty(header);
      expect(JSON.stringify(run.input)).not.toContain(token);
      expect(run.steps[0].output).toEqual({ message: 'order 7' });
    }
  });
});

describe('event flows', () => {
  it('run once per create of their collection with the write as input; not for an update, another collection or another site', async () => {
    const site = await createFlowSite(service);
    const other = await createFlowSite(service);
    for (const collection of ['articles', 'pages']) await createTitledCollection(site, collection);
    await createTitledCollection(other, 'articles');
    const flow = await eventFlow(site, { collection: 'articles', action: 'create' });
    const first = await createItem(site, 'articles', { title: 'First' });
    expect((await site.admin('PATCH', `/items/articles/${first.id}`, { title: 'First, edited' })).status).toBe(200);
    await createItem(site, 'pages', { title: 'A page' });
    await createItem(other, 'articles', { title: 'Elsewhere' });
    const second = await createItem(site, 'articles', { title: 'Second' });
    // The reactor reads the log in order: once the last write's run exists, every earlier write was seen.
    await waitForRuns(site, flow.id, 2);
    const runs = await settledRuns(site, flow.id);
    expect(writesOf(runs)).toEqual([
      { event: 'create', collection: 'articles', itemId: first.id },
      { event: 'create', collection: 'articles', itemId: second.id },
    ]);
    // Runs queued in one batch share their start time: find the second write's run by its input.
    const run = await waitForRun(site, flow.id, runs.find((candidate) => candidate.input.itemId === second.id)!.id);
    expect(run).toMatchObject({ status: 'succeeded', trigger: 'event', depth: 0, input: { item: { title: 'Second' }, eventId: expect.any(String), occurredAt: expect.stringMatching(ISO) } });
    expect(run.steps[0].output).toEqual({ message: second.id });
  });

  it('take an array of actions; a missing action means every action, a missing collection every collection', async () => {
    const site = await createFlowSite(service);
    for (const collection of ['articles', 'pages']) await createTitledCollection(site, collection);
    const createOrDelete = await eventFlow(site, { collection: 'articles', action: ['create', 'delete'] });
    const everyAction = await eventFlow(site, { collection: 'articles' });
    const everything = await eventFlow(site, {});
    const article = await createItem(site, 'articles', { title: 'One' });
    expect((await site.admin('PATCH', `/items/articles/${article.id}`, { title: 'Two' })).status).toBe(200);
    expect((await site.admin('DELETE', `/items/articles/${article.id}`)).status).toBe(204);
    const page = await createItem(site, 'pages', { title: 'Page' });
    await waitForRuns(site, everything.id, 4);
    const onArticle = (event: string) => ({ event, collection: 'articles', itemId: article.id });
    expect(writesOf(await settledRuns(site, everything.id))).toEqual([onArticle('create'), onArticle('update'), onArticle('delete'), { event: 'create', collection: 'pages', itemId: page.id }]);
    expect(writesOf(await settledRuns(site, everyAction.id))).toEqual([onArticle('create'), onArticle('update'), onArticle('delete')]);
    const runs = await settledRuns(site, createOrDelete.id);
    expect(writesOf(runs)).toEqual([onArticle('create'), onArticle('delete')]);
    const update = (await runsOf(site, everyAction.id)).find((run) => run.input.event === 'update');
    expect(update.input.changes).toMatchObject({ title: 'Two' });
  });
});

describe('replay', () => {
  it('queues a new run with the recorded input, naming the run it replays', async () => {
    const site = await createFlowSite(service);
    const flow = await createManualFlow(site, logGraph('{{ $trigger.n }}'));
    const original = await runToEnd(site, flow.id, { n: 5 });
    const replayed = await site.admin('POST', `/flows/${flow.id}/runs/${original.id}/replay`, {});
    expect(replayed.status, JSON.stringify(replayed.body)).toBe(202);
    expect(replayed.body.data).toMatchObject({ status: 'queued', startedAt: expect.stringMatching(ISO) });
    expect(replayed.body.data.runId).not.toBe(original.id);
    const run = await waitForRun(site, flow.id, replayed.body.data.runId);
    expect(run).toMatchObject({ status: 'succeeded', trigger: 'replay', replayOf: original.id, input: { n: 5 }, dryRun: false });
    expect(run.steps[0].output).toEqual({ message: '5' });
    const other = await createManualFlow(site, logGraph());
    expectError(await site.admin('POST', `/flows/${other.id}/runs/${original.id}/replay`, {}), 404, 'NOT_FOUND');
    expectError(await site.admin('POST', `/flows/${flow.id}/runs/${randomUUID()}/replay`, {}), 404, 'NOT_FOUND');
  });

  it('in a dry run records create_item as dry_run with its rendered options and creates nothing; the other steps run', async () => {
    const site = await createFlowSite(service);
    await createTitledCollection(site, 'articles');
    const graph = {
      nodes: [node('shout', 'transform', { expression: '$uppercase($trigger.title)' }), node('make', 'create_item', { collection: 'articles', item: { title: '{{ $last }}' } })],
      edges: [edge('shout', 'make')],
    };
    const flow = await createManualFlow(site, graph);
    const original = await runToEnd(site, flow.id, { title: 'hello' });
    expect(original.status, JSON.stringify(original)).toBe('succeeded');
    expect((await itemsOf(site, 'articles')).map((item) => item.title)).toEqual(['HELLO']);
    const replayed = await site.admin('POST', `/flows/${flow.id}/runs/${original.id}/replay`, { dryRun: true });
    expect(replayed.status, JSON.stringify(replayed.body)).toBe(202);
    const dry = await waitForRun(site, flow.id, replayed.body.data.runId);
    expect(dry).toMatchObject({ status: 'succeeded', dryRun: true, replayOf: original.id, input: { title: 'hello' } });
    expect(dry.steps).toMatchObject([
      { nodeId: 'shout', status: 'succeeded', output: 'HELLO' },
      { nodeId: 'make', operation: 'create_item', status: 'dry_run' },
    ]);
    expect(JSON.stringify(dry.steps[1].output)).toContain('"title":"HELLO"');
    expect(await itemsOf(site, 'articles')).toHaveLength(1);
  });
});

describe('failure edges and conditions', () => {
  const failing = node('boom', 'transform', { expression: '$error("boom")' });

  it('follows the failure edge of a failing node, and the run succeeds', async () => {
    const site = await createFlowSite(service);
    const graph = { nodes: [failing, node('rescue', 'log', { message: 'handled: {{ $last.error }}' }), node('next', 'log', { message: 'not reached' })], edges: [edge('boom', 'rescue', 'failure'), edge('boom', 'next')] };
    const run = await runToEnd(site, (await createManualFlow(site, graph)).id);
    expect(run).toMatchObject({ status: 'succeeded', error: null });
    expect(run.steps).toMatchObject([
      { nodeId: 'boom', status: 'failed', output: null, error: expect.stringContaining('boom') },
      { nodeId: 'rescue', status: 'succeeded' },
    ]);
    expect(run.steps).toHaveLength(2);
  });

  it('fails the run, naming the node, when no failure edge leaves it', async () => {
    const site = await createFlowSite(service);
    const graph = { nodes: [node('first', 'log', { message: 'ok' }), failing, node('after', 'log', { message: 'not reached' })], edges: [edge('first', 'boom'), edge('boom', 'after')] };
    const run = await runToEnd(site, (await createManualFlow(site, graph)).id);
    expect(run.status).toBe('failed');
    expect(run.error).toContain('boom');
    expect(run.steps.map((step: { nodeId: string; status: string }) => [step.nodeId, step.status])).toEqual([
      ['first', 'succeeded'],
      ['boom', 'failed'],
    ]);
    expect((await site.admin('GET', `/flows/${run.flowId}/runs?status=failed`)).body.meta.total).toBe(1);
  });

  it('takes the failure edge of a condition that does not pass, the success edge of one that does', async () => {
    const site = await createFlowSite(service);
    const graph = {
      nodes: [node('check', 'condition', { filter: { '$trigger.ok': { _eq: true } } }), node('yes', 'log', { message: 'yes' }), node('no', 'log', { message: 'no' })],
      edges: [edge('check', 'yes', 'success'), edge('check', 'no', 'failure')],
    };
    const flow = await createManualFlow(site, graph);
    const taken = async (input: unknown) => (await runToEnd(site, flow.id, input)).steps.map((step: { nodeId: string; status: string }) => [step.nodeId, step.status]);
    expect(await taken({ ok: false })).toEqual([
      ['check', 'failed'],
      ['no', 'succeeded'],
    ]);
    expect(await taken({ ok: true })).toEqual([
      ['check', 'succeeded'],
      ['yes', 'succeeded'],
    ]);
    expect((await runsOf(site, flow.id)).map((run) => run.status)).toEqual(['succeeded', 'succeeded']);
  });
});

describe('the loop guard', () => {
  it('stops a flow that updates its own trigger item after SVC_FLOW_MAX_CHAIN + 1 runs', async () => {
    const site = await createFlowSite(service);
    await createTitledCollection(site, 'articles');
    const article = await createItem(site, 'articles', { title: 'Start' });
    const graph = { nodes: [node('touch', 'update_item', { collection: 'articles', id: '{{ $trigger.itemId }}', changes: { title: 'depth {{ $run.depth }}' } })], edges: [] };
    const flow = await createFlow(site, { trigger: 'event', status: 'active', triggerOptions: { collection: 'articles', action: 'update' }, graph });
    expect((await site.admin('PATCH', `/items/articles/${article.id}`, { title: 'Outside' })).status).toBe(200);
    await waitForRuns(site, flow.id, 1);
    const runs = await settledRuns(site, flow.id);
    expect(runs.map((run) => run.depth).sort()).toEqual([0, 1, 2]);
    expect(runs.map((run) => run.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(runs.every((run) => run.input.itemId === article.id)).toBe(true);
    expect((await site.admin('GET', `/items/articles/${article.id}`)).body.data.title).toBe('depth 2');
  });
});

describe('run detail', () => {
  it('is 404 for an unknown run, another flow’s run and another site’s run', async () => {
    const site = await createFlowSite(service);
    const other = await createFlowSite(service);
    const flow = await createManualFlow(site, logGraph());
    const sibling = await createManualFlow(site, logGraph());
    const { runId } = await startRun(site, flow.id, {});
    await waitForRun(site, flow.id, runId);
    const foreign = await createManualFlow(other, logGraph());
    expectError(await site.admin('GET', `/flows/${flow.id}/runs/${randomUUID()}`), 404, 'NOT_FOUND');
    expectError(await site.admin('GET', `/flows/${flow.id}/runs/not-a-uuid`), 404, 'NOT_FOUND');
    expectError(await site.admin('GET', `/flows/${sibling.id}/runs/${runId}`), 404, 'NOT_FOUND');
    expectError(await other.admin('GET', `/flows/${flow.id}/runs/${runId}`), 404, 'NOT_FOUND');
    expectError(await other.admin('GET', `/flows/${foreign.id}/runs/${runId}`), 404, 'NOT_FOUND');
    expect((await site.admin('GET', `/flows/${sibling.id}/runs`)).body.meta.total).toBe(0);
  });
});
