// The flows API over real HTTP (docs/flows.md "A flow"): create, list (filters, paging), read, change,
// delete; graph validation with each code, path and node; cron rules and nextRunAt; what belongs to a
// trigger; actAs; the operations list; administrators only; another site's flows are 404.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createMember, createRole } from '../access/support.ts';
import {
  createFlow,
  createFlowSite,
  createManualFlow,
  edge,
  expectError,
  expectNextRunAt,
  getFlow,
  logGraph,
  node,
  patchFlow,
  startRun,
  timed,
  waitForRun,
  type FlowSite,
  type GraphNode,
  type Json,
} from './support/flowHelpers.ts';

const service = await startTestServiceForFile({ SVC_FLOW_RUN_TIMEOUT_MS: '10000' });

const log = (id: string) => node(id, 'log', { message: id });
/** POST /flows of an active manual flow with `graph`: the answer, to check a refusal. */
const saveActive = (site: FlowSite, graph: unknown) => site.admin('POST', '/flows', { name: 'Checked', trigger: 'manual', status: 'active', graph });

describe('flows: create, read, list, change, delete', () => {
  it('creates a draft with the documented defaults, owned by its creator, and reads it back', async () => {
    const site = await createFlowSite(service);
    const flow = await createFlow(site, { name: 'Notify', trigger: 'manual' });
    expect(flow).toMatchObject({
      name: 'Notify',
      description: null,
      status: 'draft',
      trigger: 'manual',
      triggerOptions: {},
      graph: { nodes: [], edges: [] },
      actAs: null,
      ownerId: site.adminUserId,
      hasToken: false,
      nextRunAt: null,
      version: 1,
    });
    expect(flow.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(flow.createdAt)).not.toBeNaN();
    expect(await getFlow(site, flow.id)).toEqual(flow);
  });

  it('lists the site’s flows newest first, filtered by status and trigger, paged', async () => {
    const site = await createFlowSite(service);
    const manual = await createFlow(site, { name: 'Manual', trigger: 'manual' });
    const webhook = await createFlow(site, { name: 'Hook', trigger: 'webhook', status: 'active', graph: logGraph() });
    const event = await createFlow(site, { name: 'On create', trigger: 'event', status: 'active', triggerOptions: { collection: 'articles' }, graph: logGraph() });
    const ids = async (query: string) => {
      const listed = await site.admin('GET', `/flows${query}`);
      expect(listed.status, JSON.stringify(listed.body)).toBe(200);
      return { ids: listed.body.data.map((flow: { id: string }) => flow.id), meta: listed.body.meta };
    };
    expect(await ids('')).toEqual({ ids: [event.id, webhook.id, manual.id], meta: { total: 3, page: 1, pageSize: 25 } });
    expect((await ids('?status=active')).ids).toEqual([event.id, webhook.id]);
    expect((await ids('?status=draft')).ids).toEqual([manual.id]);
    expect((await ids('?trigger=event')).ids).toEqual([event.id]);
    expect(await ids('?status=active&trigger=manual')).toEqual({ ids: [], meta: { total: 0, page: 1, pageSize: 25 } });
    const first = await ids('?limit=2');
    const second = await ids('?limit=2&page=2');
    expect(first).toEqual({ ids: [event.id, webhook.id], meta: { total: 3, page: 1, pageSize: 2 } });
    expect(second).toEqual({ ids: [manual.id], meta: { total: 3, page: 2, pageSize: 2 } });
    expectError(await site.admin('GET', '/flows?limit=0'), 400, 'VALIDATION_FAILED', ['query', 'limit']);
    expectError(await site.admin('GET', '/flows?limit=201'), 400, 'VALIDATION_FAILED', ['query', 'limit']);
    expectError(await site.admin('GET', '/flows?status=paused'), 400, 'VALIDATION_FAILED', ['query', 'status']);
    expectError(await site.admin('GET', '/flows?trigger=cron'), 400, 'VALIDATION_FAILED', ['query', 'trigger']);
  });

  it('PATCH changes the given fields, replaces graph and triggerOptions whole, and counts each change', async () => {
    const site = await createFlowSite(service);
    const graph = { nodes: [log('a'), log('b')], edges: [edge('a', 'b')] };
    const flow = await createFlow(site, { trigger: 'event', triggerOptions: { collection: 'articles', action: ['create', 'update'] }, graph });
    const renamed = await patchFlow(site, flow.id, { name: 'Renamed', description: 'Why it exists' });
    expect(renamed).toMatchObject({ name: 'Renamed', description: 'Why it exists', graph, version: 2, createdAt: flow.createdAt });
    expect(Date.parse(renamed.updatedAt)).toBeGreaterThanOrEqual(Date.parse(flow.updatedAt));
    expect((await patchFlow(site, flow.id, { triggerOptions: { action: 'delete' } })).triggerOptions).toEqual({ action: 'delete' });
    const regraphed = await patchFlow(site, flow.id, { graph: { nodes: [log('only')], edges: [] } });
    expect(regraphed).toMatchObject({ graph: { nodes: [{ id: 'only', operation: 'log' }], edges: [] }, version: 4 });
    expect(await patchFlow(site, flow.id, { description: null })).toMatchObject({ description: null, version: 5 });
    expect((await patchFlow(site, flow.id, { name: 'Renamed' })).version).toBe(5);
    expectError(await site.admin('PATCH', `/flows/${flow.id}`, { owner: 'me' }), 400, 'VALIDATION_FAILED');
    expectError(await site.admin('PATCH', `/flows/${flow.id}`, { name: '' }), 400, 'VALIDATION_FAILED', ['body', 'name']);
    expectError(await site.admin('PATCH', `/flows/${flow.id}`, { name: 'n'.repeat(201) }), 400, 'VALIDATION_FAILED', ['body', 'name']);
    expectError(await site.admin('PATCH', `/flows/${flow.id}`, { description: 'd'.repeat(2_001) }), 400, 'VALIDATION_FAILED', ['body', 'description']);
    expectError(await site.admin('POST', '/flows', { name: 'No trigger' }), 400, 'VALIDATION_FAILED', ['body', 'trigger']);
    expect((await getFlow(site, flow.id)).version).toBe(5);
  });

  it('deletes a flow: 204, then 404 on its routes, and gone from the list', async () => {
    const site = await createFlowSite(service);
    const kept = await createFlow(site, { name: 'Kept', trigger: 'manual' });
    const flow = await createFlow(site, { name: 'Gone', trigger: 'manual' });
    expect((await site.admin('DELETE', `/flows/${flow.id}`)).status).toBe(204);
    expectError(await site.admin('GET', `/flows/${flow.id}`), 404, 'NOT_FOUND');
    expectError(await site.admin('PATCH', `/flows/${flow.id}`, { name: 'Back' }), 404, 'NOT_FOUND');
    expectError(await site.admin('DELETE', `/flows/${flow.id}`), 404, 'NOT_FOUND');
    expectError(await site.admin('POST', `/flows/${flow.id}/token`), 404, 'NOT_FOUND');
    const listed = await site.admin('GET', '/flows');
    expect(listed.body.data.map((found: { id: string }) => found.id)).toEqual([kept.id]);
  });
});

describe('graph validation', () => {
  it('refuses an unknown operation with GRAPH_UNKNOWN_OPERATION naming the node', async () => {
    const site = await createFlowSite(service);
    const error = expectError(await saveActive(site, { nodes: [log('a'), node('b', 'teleport')], edges: [edge('a', 'b')] }), 400, 'GRAPH_UNKNOWN_OPERATION');
    expect(error.path.slice(0, 2)).toEqual(['body', 'graph']);
    expect(error.extensions.nodeId).toBe('b');
  });

  it('refuses options that do not fit the operation with VALIDATION_FAILED at body.graph.nodes.<i>.options, naming the node', async () => {
    const site = await createFlowSite(service);
    const cases: [GraphNode, (string | number)[]][] = [
      [node('shape', 'transform', { expression: '$trigger.a +' }), ['expression']],
      [node('wait', 'delay', { ms: 'soon' }), ['ms']],
      [node('wait', 'delay', { ms: 10, extra: true }), []],
      [node('say', 'log', {}), ['message']],
    ];
    for (const [bad, optionPath] of cases) {
      const error = expectError(await saveActive(site, { nodes: [log('first'), bad], edges: [] }), 400, 'VALIDATION_FAILED');
      const where = ['body', 'graph', 'nodes', 1, 'options', ...optionPath];
      expect(error.path.slice(0, where.length), JSON.stringify(error)).toEqual(where);
      expect(error.extensions.nodeId).toBe(bad.id);
    }
  });

  it('refuses an edge to or from a missing node with GRAPH_DANGLING_EDGE naming the node and the edge', async () => {
    const site = await createFlowSite(service);
    const to = expectError(await saveActive(site, { nodes: [log('a')], edges: [edge('a', 'ghost')] }), 400, 'GRAPH_DANGLING_EDGE');
    expect(to.extensions).toMatchObject({ nodeId: 'ghost', edge: { from: 'a', to: 'ghost' } });
    const from = expectError(await saveActive(site, { nodes: [log('a')], edges: [edge('phantom', 'a', 'failure')] }), 400, 'GRAPH_DANGLING_EDGE');
    expect(from.extensions).toMatchObject({ nodeId: 'phantom', edge: { from: 'phantom', to: 'a' } });
  });

  it('refuses a graph without an entry node with GRAPH_NO_ENTRY, the empty graph included', async () => {
    const site = await createFlowSite(service);
    for (const graph of [{ nodes: [], edges: [] }, { nodes: [log('a'), log('b')], edges: [edge('a', 'b'), edge('b', 'a')] }]) {
      const error = expectError(await saveActive(site, graph), 400, 'GRAPH_NO_ENTRY');
      expect(error.extensions.nodeId).toBeNull();
    }
  });

  it('refuses a loop with GRAPH_CYCLE naming a node on it: three nodes, and a node to itself', async () => {
    const site = await createFlowSite(service);
    const triangle = { nodes: [log('start'), log('a'), log('b'), log('c')], edges: [edge('start', 'a'), edge('a', 'b'), edge('b', 'c'), edge('c', 'a')] };
    expect(['a', 'b', 'c']).toContain(expectError(await saveActive(site, triangle), 400, 'GRAPH_CYCLE').extensions.nodeId);
    const selfLoop = { nodes: [log('start'), log('again')], edges: [edge('start', 'again'), edge('again', 'again', 'failure')] };
    expect(expectError(await saveActive(site, selfLoop), 400, 'GRAPH_CYCLE').extensions.nodeId).toBe('again');
  });

  it('reports the first problem in the documented order', async () => {
    const site = await createFlowSite(service);
    const loop = [edge('start', 'a'), edge('a', 'b'), edge('b', 'a')];
    const everything = { nodes: [log('start'), log('a'), log('b'), node('x', 'teleport')], edges: [...loop, edge('a', 'ghost')] };
    expectError(await saveActive(site, everything), 400, 'GRAPH_UNKNOWN_OPERATION');
    expectError(await saveActive(site, { nodes: [log('start'), log('a'), log('b')], edges: [...loop, edge('a', 'ghost')] }), 400, 'GRAPH_DANGLING_EDGE');
    expectError(await saveActive(site, { nodes: [log('a'), log('b')], edges: [edge('a', 'b'), edge('b', 'a')] }), 400, 'GRAPH_NO_ENTRY');
    expectError(await saveActive(site, { nodes: [log('start'), log('a'), log('b')], edges: loop }), 400, 'GRAPH_CYCLE');
    expect((await site.admin('GET', '/flows')).body.meta.total).toBe(0);
  });

  it('refuses duplicate and malformed node ids at body.graph.nodes.<i>.id, even in a draft', async () => {
    const site = await createFlowSite(service);
    const duplicate = { nodes: [log('a'), log('b'), log('a')], edges: [] };
    expectError(await site.admin('POST', '/flows', { name: 'Dup', trigger: 'manual', graph: duplicate }), 400, 'VALIDATION_FAILED', ['body', 'graph', 'nodes', 2, 'id']);
    for (const id of ['', 'has space', 'x'.repeat(65), 'dot.ted']) {
      const graph = { nodes: [log('ok'), { id, operation: 'log', options: { message: 'm' } }], edges: [] };
      expectError(await site.admin('POST', '/flows', { name: 'Bad id', trigger: 'manual', graph }), 400, 'VALIDATION_FAILED', ['body', 'graph', 'nodes', 1, 'id']);
    }
    const flow = await createFlow(site, { trigger: 'manual', graph: logGraph() });
    expectError(await site.admin('PATCH', `/flows/${flow.id}`, { graph: duplicate }), 400, 'VALIDATION_FAILED', ['body', 'graph', 'nodes', 2, 'id']);
  });

  it('lets a draft hold an invalid graph; activating it is refused and it stays a draft', async () => {
    const site = await createFlowSite(service);
    const invalid = { nodes: [log('a'), node('b', 'teleport')], edges: [edge('a', 'b'), edge('b', 'a')] };
    const draft = await createFlow(site, { trigger: 'manual', graph: invalid });
    expect(draft).toMatchObject({ status: 'draft', graph: invalid, version: 1 });
    const stillInvalid = await patchFlow(site, draft.id, { graph: { nodes: [log('a')], edges: [edge('a', 'a')] } });
    expect(stillInvalid.version).toBe(2);
    expectError(await site.admin('PATCH', `/flows/${draft.id}`, { status: 'active' }), 400, 'GRAPH_NO_ENTRY');
    const refused = expectError(await site.admin('PATCH', `/flows/${draft.id}`, { status: 'active', graph: invalid }), 400, 'GRAPH_UNKNOWN_OPERATION');
    expect(refused.extensions.nodeId).toBe('b');
    expect(await getFlow(site, draft.id)).toMatchObject({ status: 'draft', version: 2, graph: stillInvalid.graph });
    expectError(await site.admin('POST', `/flows/${draft.id}/run`, {}), 409, 'CONFLICT');
    expect(await patchFlow(site, draft.id, { status: 'active', graph: logGraph() })).toMatchObject({ status: 'active', version: 3 });
  });

  it('checks every save of an active flow and leaves it unchanged when refused', async () => {
    const site = await createFlowSite(service);
    const flow = await createManualFlow(site, logGraph());
    const error = expectError(await site.admin('PATCH', `/flows/${flow.id}`, { graph: { nodes: [log('a')], edges: [edge('a', 'b')] } }), 400, 'GRAPH_DANGLING_EDGE');
    expect(error.extensions).toMatchObject({ nodeId: 'b', edge: { from: 'a', to: 'b' } });
    expect(await getFlow(site, flow.id)).toEqual(flow);
  });
});

describe('schedules', () => {
  const schedule = (site: FlowSite, triggerOptions: Record<string, unknown>, status = 'active') =>
    site.admin('POST', '/flows', { name: 'Nightly', trigger: 'schedule', status, triggerOptions, graph: logGraph() });

  it('refuses a cron that is not five fields croner accepts with CRON_INVALID, on any save', async () => {
    const site = await createFlowSite(service);
    for (const cron of ['* * * * * *', '* * * *', '61 * * * *', 'garbage', 'a b c d e', '']) {
      for (const status of ['active', 'draft']) {
        expectError(await schedule(site, { cron }, status), 400, 'CRON_INVALID', ['body', 'triggerOptions', 'cron']);
      }
    }
    const draft = await createFlow(site, { trigger: 'schedule', triggerOptions: { cron: '0 * * * *' } });
    expectError(await site.admin('PATCH', `/flows/${draft.id}`, { triggerOptions: { cron: '0 0 32 * *' } }), 400, 'CRON_INVALID', ['body', 'triggerOptions', 'cron']);
    expect((await getFlow(site, draft.id)).triggerOptions).toEqual({ cron: '0 * * * *' });
  });

  it('refuses activating a schedule flow without a cron with CRON_REQUIRED', async () => {
    const site = await createFlowSite(service);
    expectError(await schedule(site, {}), 400, 'CRON_REQUIRED');
    const draft = await createFlow(site, { trigger: 'schedule', graph: logGraph() });
    expectError(await site.admin('PATCH', `/flows/${draft.id}`, { status: 'active' }), 400, 'CRON_REQUIRED');
    expect(await getFlow(site, draft.id)).toMatchObject({ status: 'draft', version: 1, nextRunAt: null });
  });

  it('computes nextRunAt on save, keeps it on a rename, recomputes it on a cron change, and clears it for a draft', async () => {
    const site = await createFlowSite(service);
    const created = await timed(() => schedule(site, { cron: '*/5 * * * *' }));
    expect(created.result.status, JSON.stringify(created.result.body)).toBe(201);
    const flow = created.result.body.data;
    expectNextRunAt(flow.nextRunAt, '*/5 * * * *', created.before, created.after);
    expect((await patchFlow(site, flow.id, { name: 'Renamed' })).nextRunAt).toBe(flow.nextRunAt);
    const recron = await timed(() => patchFlow(site, flow.id, { triggerOptions: { cron: '30 4 * * 1' } }));
    expectNextRunAt(recron.result.nextRunAt, '30 4 * * 1', recron.before, recron.after);
    expect(await patchFlow(site, flow.id, { status: 'draft' })).toMatchObject({ status: 'draft', nextRunAt: null });
    const again = await timed(() => patchFlow(site, flow.id, { status: 'active' }));
    expectNextRunAt(again.result.nextRunAt, '30 4 * * 1', again.before, again.after);
    const draft = await createFlow(site, { trigger: 'schedule', triggerOptions: { cron: '* * * * *' } });
    expect(draft.nextRunAt).toBeNull();
    const manual = await createManualFlow(site, logGraph());
    expect(manual.nextRunAt).toBeNull();
  });
});

describe('trigger options and actAs', () => {
  it('refuses trigger options that do not belong to the trigger', async () => {
    const site = await createFlowSite(service);
    const save = (trigger: string, triggerOptions: Record<string, unknown>) => site.admin('POST', '/flows', { name: 'Opts', trigger, triggerOptions });
    expectError(await save('manual', { collection: 'articles' }), 400, 'VALIDATION_FAILED', ['body', 'triggerOptions', 'collection']);
    expectError(await save('webhook', { action: 'create' }), 400, 'VALIDATION_FAILED', ['body', 'triggerOptions', 'action']);
    expectError(await save('event', { collection: 'articles', cron: '* * * * *' }), 400, 'VALIDATION_FAILED', ['body', 'triggerOptions', 'cron']);
    expectError(await save('schedule', { cron: '* * * * *', collection: 'articles' }), 400, 'VALIDATION_FAILED', ['body', 'triggerOptions', 'collection']);
    expectError(await save('event', { colour: 'red' }), 400, 'VALIDATION_FAILED');
    expectError(await save('event', { action: 'publish' }), 400, 'VALIDATION_FAILED');
    expectError(await save('event', { action: [] }), 400, 'VALIDATION_FAILED');
    const event = await createFlow(site, { trigger: 'event', triggerOptions: { collection: 'articles', action: ['create', 'delete'] } });
    // triggerOptions stay when only the trigger changes: neither of them belongs any more.
    const stale = expectError(await site.admin('PATCH', `/flows/${event.id}`, { trigger: 'manual' }), 400, 'VALIDATION_FAILED');
    expect([['body', 'triggerOptions', 'collection'], ['body', 'triggerOptions', 'action']]).toContainEqual(stale.path);
    expect(await patchFlow(site, event.id, { trigger: 'manual', triggerOptions: {} })).toMatchObject({ trigger: 'manual', triggerOptions: {} });
  });

  it('acts as a role of the site only (400 at body.actAs.roleId otherwise)', async () => {
    const site = await createFlowSite(service);
    const other = await createFlowSite(service);
    const otherRole = await createRole(other);
    for (const roleId of [randomUUID(), 'not-a-uuid', otherRole.id]) {
      expectError(await site.admin('POST', '/flows', { name: 'As', trigger: 'manual', actAs: { roleId } }), 400, 'VALIDATION_FAILED', ['body', 'actAs', 'roleId']);
    }
    const role = await createRole(site);
    const flow = await createFlow(site, { trigger: 'manual', actAs: { roleId: role.id } });
    expect(flow).toMatchObject({ actAs: { roleId: role.id }, ownerId: site.adminUserId });
    expectError(await site.admin('PATCH', `/flows/${flow.id}`, { actAs: { roleId: randomUUID() } }), 400, 'VALIDATION_FAILED', ['body', 'actAs', 'roleId']);
    expect(await patchFlow(site, flow.id, { actAs: null })).toMatchObject({ actAs: null, version: 2 });
  });
});

describe('operations', () => {
  it('lists the documented operations, each with a JSON schema of its options', async () => {
    const site = await createFlowSite(service);
    const listed = await site.admin('GET', '/flows/operations');
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    const byKey = new Map<string, { description: string; sideEffects: boolean; options: { type?: string } }>(
      listed.body.data.map((operation: { key: string }) => [operation.key, operation]),
    );
    const documented = ['condition', 'transform', 'log', 'read_items', 'create_item', 'update_item', 'delete_item', 'request', 'send_email', 'run_command', 'trigger_flow', 'delay'];
    for (const key of documented) {
      const operation = byKey.get(key);
      expect(operation, key).toBeDefined();
      expect(operation!.description.length, key).toBeGreaterThan(0);
      expect(operation!.options.type, key).toBe('object');
    }
    for (const key of ['create_item', 'update_item', 'delete_item', 'request', 'send_email']) expect(byKey.get(key)!.sideEffects, key).toBe(true);
    for (const key of ['condition', 'transform', 'read_items']) expect(byKey.get(key)!.sideEffects, key).toBe(false);
  });
});

describe('authorization and isolation', () => {
  /** Every administrator route of a flow and one of its runs, with a valid body. */
  const routes = (flowId: string, runId: string): [string, string, unknown?][] => [
    ['GET', '/flows/operations'],
    ['GET', '/flows'],
    ['POST', '/flows', { name: 'Sneaky', trigger: 'manual' }],
    ['GET', `/flows/${flowId}`],
    ['PATCH', `/flows/${flowId}`, { name: 'Taken over' }],
    ['POST', `/flows/${flowId}/token`],
    ['DELETE', `/flows/${flowId}/token`],
    ['POST', `/flows/${flowId}/run`, { from: 'outside' }],
    ['GET', `/flows/${flowId}/runs`],
    ['GET', `/flows/${flowId}/runs/${runId}`],
    ['POST', `/flows/${flowId}/runs/${runId}/replay`, { dryRun: false }],
    ['DELETE', `/flows/${flowId}`],
  ];

  async function flowWithRun(site: FlowSite): Promise<{ flow: Json; runId: string }> {
    const flow = await createManualFlow(site, logGraph());
    const { runId } = await startRun(site, flow.id, { n: 1 });
    await waitForRun(site, flow.id, runId);
    return { flow, runId };
  }

  it('answers 401 without credentials and 403 to a member who is not an administrator', async () => {
    const site = await createFlowSite(service);
    const { flow, runId } = await flowWithRun(site);
    const member = await createMember(service, site);
    for (const [method, path, body] of routes(flow.id, runId)) {
      expectError(await site.as(null, method, path, body), 401, 'UNAUTHENTICATED');
      expectError(await site.as(member.token, method, path, body), 403, 'PERMISSION_DENIED');
    }
    expect(await getFlow(site, flow.id)).toMatchObject({ name: flow.name, version: 1, hasToken: false });
    expect((await site.admin('GET', `/flows/${flow.id}/runs`)).body.meta.total).toBe(1);
    expect((await site.admin('GET', '/flows')).body.meta.total).toBe(1);
  });

  it('answers 404 for another site’s flows and runs, and never lists them', async () => {
    const site = await createFlowSite(service);
    const other = await createFlowSite(service);
    const { flow, runId } = await flowWithRun(site);
    const own = await createFlow(other, { name: 'Own', trigger: 'manual' });
    for (const [method, path, body] of routes(flow.id, runId).filter(([, path]) => path.includes(flow.id))) {
      expectError(await other.admin(method, path, body), 404, 'NOT_FOUND');
    }
    expectError(await other.admin('GET', `/flows/${own.id}/runs/${runId}`), 404, 'NOT_FOUND');
    expectError(await other.admin('GET', '/flows/not-a-uuid'), 404, 'NOT_FOUND');
    const listed = await other.admin('GET', '/flows?limit=200');
    expect(listed.body.data.map((found: { id: string }) => found.id)).toEqual([own.id]);
    expect(await getFlow(site, flow.id)).toMatchObject({ name: flow.name, version: flow.version, hasToken: false });
    expect((await site.admin('GET', `/flows/${flow.id}/runs`)).body.meta.total).toBe(1);
  });
});
