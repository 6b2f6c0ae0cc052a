// Each flow operation (docs/flows.md "Operations") against a real service: the options checked as a
// save checks them, rendered and parsed as the executor does, then run with an OperationCall built
// here, as the site administrator's flow. Items through the schema and items routes, a local HTTP
// server for `request`, a local SMTP relay for `send_email`.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../../domain/shared/appError.ts';
import { createOutboundHttp } from '../../../infra/http/outboundHttp.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { UserPrincipal } from '../../../src/auth/principal.ts';
import type { FlowRunData, OperationCall } from '../../../src/modules/flows/operation.ts';
import { findOperation, flowOperations } from '../../../src/modules/flows/operations/index.ts';
import { renderOptions } from '../../../src/modules/flows/renderOptions.ts';
import { createCollection } from '../../support/contentModel.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createItem, createMember, withHelpers, type AccessSite } from '../access/support.ts';
import { sendingServiceSettings } from '../email/support/sendHarness.ts';
import { startSmtpSinkForFile } from '../email/support/smtpSink.ts';

const sink = await startSmtpSinkForFile();
const service = await startTestServiceForFile(sendingServiceSettings(sink));
const owner = openOwnerDatabaseForFile();
// The executor's client refuses private addresses unless SVC_FLOW_ALLOW_PRIVATE; the local server needs one that allows them.
const openHttp = createOutboundHttp({ allowPrivate: true });
const guardedHttp = createOutboundHttp({ allowPrivate: false });
afterAll(() => {
  openHttp.close();
  guardedHttp.close();
});

async function newSite(): Promise<AccessSite> {
  const site = withHelpers(service, await createTestSite(service, 'flowop'));
  await createCollection(service, site, 'articles', [
    { field: 'title', type: 'string' },
    { field: 'rating', type: 'integer' },
  ]);
  return site;
}

/** The principal a flow of this user acts as (the executor's shape: via `flow`). */
const flowPrincipal = (userId: string, admin: boolean): UserPrincipal => ({ kind: 'user', userId, roleId: null, admin, sessionId: null, via: 'flow', realm: 'studio' });

function callFor(site: AccessSite, data: Partial<FlowRunData> = {}, overrides: Partial<OperationCall> = {}): OperationCall {
  const runId = randomUUID();
  const principal = overrides.principal ?? flowPrincipal(site.adminUserId, true);
  return {
    context: service.context,
    siteId: site.siteId,
    flow: { id: randomUUID(), name: 'Operations' },
    runId,
    depth: 0,
    principal,
    metadata: { actor: { kind: 'user', id: site.adminUserId }, causationId: `flow-run:${runId}`, correlationId: runId },
    http: openHttp,
    signal: new AbortController().signal,
    data: { $trigger: null, $last: null, $steps: {}, $flow: { id: 'f', name: 'Operations' }, $run: { id: runId, depth: 0 }, ...data },
    startFlow: async () => ({ runId: randomUUID() }),
    ...overrides,
  };
}

/** What a save checks of a node's options: the first issue's path and message, or null. */
function saveCheck(key: string, options: Record<string, unknown>): { path: PropertyKey[]; message: string } | null {
  const parsed = findOperation(key)!.options.safeParse(options);
  return parsed.success ? null : { path: parsed.error.issues[0]!.path, message: parsed.error.issues[0]!.message };
}

/** A node run as the executor runs it: options checked, rendered over the run data (raw keys apart), parsed again, run. */
async function runNode(key: string, options: Record<string, unknown>, call: OperationCall): Promise<unknown> {
  const operation = findOperation(key)!;
  expect(saveCheck(key, options)).toBeNull();
  const rendered = await renderOptions(options, call.data, operation.raw ?? []);
  const parsed = operation.options.safeParse(rendered);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError('VALIDATION_FAILED', issue.message, { path: ['options', ...issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part))] });
  }
  return operation.run(parsed.data, call);
}

async function failureOf(work: Promise<unknown>): Promise<AppError> {
  const error = await work.then(() => null, (thrown: unknown) => thrown);
  if (error instanceof AppError) return error;
  throw new Error(`expected an AppError, got ${String(error)}`);
}

describe('the operations', () => {
  it('are twelve, with unique keys, a description and a strict JSON schema of their options each', () => {
    expect(flowOperations.map((operation) => operation.key)).toEqual([
      'condition', 'transform', 'log', 'read_items', 'create_item', 'update_item', 'delete_item', 'request', 'send_email', 'run_command', 'trigger_flow', 'delay',
    ]);
    for (const operation of flowOperations) {
      expect(operation.description.length).toBeGreaterThan(20);
      expect(z.toJSONSchema(operation.options, { io: 'input', unrepresentable: 'any' })).toMatchObject({ type: 'object', additionalProperties: false });
    }
    expect(findOperation('nope')).toBeUndefined();
    expect(flowOperations.filter((operation) => operation.sideEffects).map((operation) => operation.key)).toEqual([
      'create_item', 'update_item', 'delete_item', 'request', 'send_email', 'run_command', 'trigger_flow',
    ]);
  });
});

describe('condition', () => {
  const trigger = { event: 'update', collection: 'articles', item: { status: 'published', rating: 4, tags: ['news'] }, changes: { status: 'published' } };

  it('passes on a filter over the run data (paths, roots, _and/_or, $CURRENT_USER) and fails the node otherwise', async () => {
    const site = await newSite();
    const call = callFor(site, { $trigger: trigger, $steps: { read: [{ email: 'a@example.com' }] } });
    const filter = {
      '$trigger.item.status': { _eq: 'published' },
      '$trigger.item.rating': { _gte: 3 },
      $trigger: { _json_contains: { changes: { status: 'published' } } },
      _or: [{ '$trigger.item.tags': { _json_contains: 'news' } }, { '$steps.read.0.email': { _ends_with: '@example.com' } }],
      '$run.depth': { _eq: 0 },
    };
    expect(await runNode('condition', { filter }, call)).toEqual({ passed: true });
    const failed = await failureOf(runNode('condition', { filter: { '$trigger.item.status': { _eq: 'draft' } } }, call));
    expect(failed.message).toMatch(/did not pass/);
    expect(await runNode('condition', { filter: { '$flow.id': { _neq: '$CURRENT_USER' } } }, call)).toEqual({ passed: true });
    expect(await runNode('condition', { filter: { '$last.missing': { _null: true } } }, call)).toEqual({ passed: true });
  });

  it('leaves its filter unrendered, and refuses at save a key off the data, an unknown operator or a misfit one, at its path', async () => {
    const site = await newSite();
    const call = callFor(site, { $trigger: { title: '{{ x }}' } });
    expect(await runNode('condition', { filter: { '$trigger.title': { _eq: '{{ x }}' } } }, call)).toEqual({ passed: true });
    expect(saveCheck('condition', { filter: { status: { _eq: 'published' } } })).toMatchObject({ path: ['filter', 'status'], message: expect.stringMatching(/\$trigger/) });
    expect(saveCheck('condition', { filter: { 'trigger.item': { _eq: 1 } } })?.path).toEqual(['filter', 'trigger.item']);
    expect(saveCheck('condition', { filter: { '$trigger.item': { _like: 'x' } } })?.path).toEqual(['filter', '$trigger.item', '_like']);
    expect(saveCheck('condition', { filter: { _and: [{ $trigger: { _contains: 'x' } }] } })?.path).toEqual(['filter', '_and', 0, '$trigger', '_contains']);
    expect(saveCheck('condition', { filter: {}, extra: 1 })).not.toBeNull();
  });
});

describe('transform', () => {
  it('evaluates JSONata over the run data, its roots as variables', async () => {
    const site = await newSite();
    const call = callFor(site, { $trigger: { item: { title: 'hello' } }, $steps: { read: [{ rating: 2 }, { rating: 5 }] } });
    const expression = '{ "title": $uppercase($trigger.item.title), "total": $sum($steps.read.rating), "flow": $flow.name }';
    expect(await runNode('transform', { expression }, call)).toEqual({ title: 'HELLO', total: 7, flow: 'Operations' });
    expect(await runNode('transform', { expression: '$trigger.nothing' }, call)).toBeNull();
  });

  it('refuses a bad expression at save, and fails a runaway one within about a second', async () => {
    expect(saveCheck('transform', { expression: '$sum(' })).toMatchObject({ path: ['expression'], message: expect.stringMatching(/JSONata error/) });
    const site = await newSite();
    const started = Date.now();
    const failed = await failureOf(runNode('transform', { expression: '( $loop := function($n){ $loop($n + 1) }; $loop(0) )' }, callFor(site)));
    expect(failed.extensions.code).toBe('D1012');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('log', () => {
  it("writes the rendered message to the service's log with the flow and run ids, and outputs it", async () => {
    const site = await newSite();
    const call = callFor(site, { $trigger: { title: 'Launch' } });
    const warn = vi.spyOn(service.context.logger, 'warn');
    try {
      expect(await runNode('log', { message: 'Saw {{ $trigger.title }}', level: 'warn' }, call)).toEqual({ message: 'Saw Launch' });
      expect(warn).toHaveBeenCalledWith({ siteId: site.siteId, flowId: call.flow.id, runId: call.runId }, 'Saw Launch');
    } finally {
      warn.mockRestore();
    }
    expect(await runNode('log', { message: '{{ $trigger }}' }, call)).toEqual({ message: '{"title":"Launch"}' });
  });
});

describe('the item operations', () => {
  it("read_items lists as the flow's principal, with filter, sort, limit and fields", async () => {
    const site = await newSite();
    for (const [title, rating] of [['Alpha', 1], ['Beta', 5], ['Bravo', 3], ['Gamma', 4]] as const) await createItem(site, 'articles', { title, rating });
    const call = callFor(site, { $trigger: { collection: 'articles' } });
    const items = await runNode('read_items', { collection: '{{ $trigger.collection }}', filter: { title: { _starts_with: 'B' } }, sort: ['-rating'], fields: ['title', 'rating'] }, call);
    expect(items).toEqual([{ title: 'Beta', rating: 5 }, { title: 'Bravo', rating: 3 }]);
    expect(await runNode('read_items', { collection: 'articles', sort: ['title'], limit: 1, fields: ['title'] }, call)).toEqual([{ title: 'Alpha' }]);
    expect(saveCheck('read_items', { collection: 'articles', limit: 201 })?.path).toEqual(['limit']);

    const member = await createMember(service, site);
    const asMember = callFor(site, {}, { principal: flowPrincipal(member.userId, false) });
    expect((await failureOf(runNode('read_items', { collection: 'articles' }, asMember))).code).toBe('PERMISSION_DENIED');
  });

  it('create_item, update_item and delete_item write through the items commands, each write caused by the run', async () => {
    const site = await newSite();
    const call = callFor(site, { $trigger: { title: 'From a flow', rating: 2 } });
    const created = (await runNode('create_item', { collection: 'articles', item: { title: '{{ $trigger.title }}', rating: '{{ $trigger.rating }}' } }, call)) as { id: string; version: number };
    expect(created).toEqual({ id: expect.any(String), version: 1 });
    expect((await site.admin('GET', `/items/articles/${created.id}`)).body.data).toMatchObject({ title: 'From a flow', rating: 2 });
    const events = await owner.query<{ type: string; metadata: { causationId?: string; correlationId?: string } }>(
      sql`SELECT type, metadata FROM events WHERE site_id = ${site.siteId} AND type = 'item.created'`,
    );
    expect(events).toEqual([{ type: 'item.created', metadata: expect.objectContaining({ causationId: `flow-run:${call.runId}`, correlationId: call.runId }) }]);

    const updating = callFor(site, { $last: created, $trigger: { changes: { rating: 5 } } });
    expect(await runNode('update_item', { collection: 'articles', id: '{{ $last.id }}', changes: '{{ $trigger.changes }}' }, updating)).toEqual({ id: created.id, version: 2 });
    expect((await site.admin('GET', `/items/articles/${created.id}`)).body.data.rating).toBe(5);
    expect((await failureOf(runNode('update_item', { collection: 'articles', id: created.id, changes: { rating: 'many' } }, updating))).code).toBe('VALIDATION_FAILED');
    expect((await failureOf(runNode('create_item', { collection: 'articles', item: '{{ $trigger.changes.rating }}' }, updating))).path).toEqual(['options', 'item']);

    expect(await runNode('delete_item', { collection: 'articles', id: created.id }, updating)).toEqual({ id: created.id, deleted: true });
    expect((await site.admin('GET', `/items/articles/${created.id}`)).status).toBe(404);
  });
});

describe('request', () => {
  const received: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      received.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      if (request.url === '/fail') return void response.writeHead(503, { 'content-type': 'text/plain' }).end('down');
      if (request.url === '/slow') return void setTimeout(() => response.writeHead(200).end('late'), 1_500);
      if (request.url === '/text') return void response.writeHead(200, { 'content-type': 'text/plain' }).end('plain words');
      response.writeHead(201, { 'content-type': 'application/json', 'x-reply': 'yes' }).end(JSON.stringify({ echo: body ? JSON.parse(body) : null }));
    });
  });
  const listening = new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends the rendered request and outputs the status, headers and the body, parsed when it is JSON', async () => {
    const base = await listening;
    const site = await newSite();
    const call = callFor(site, { $trigger: { itemId: 7, title: 'Hi' } });
    const output = await runNode('request', { url: `${base}/hook?item={{ $trigger.itemId }}`, method: 'POST', headers: { 'x-title': '{{ $trigger.title }}' }, body: { item: '{{ $trigger.itemId }}' } }, call);
    expect(output).toMatchObject({ status: 201, headers: expect.objectContaining({ 'x-reply': 'yes' }), body: { echo: { item: 7 } } });
    expect(received.at(-1)).toMatchObject({ method: 'POST', url: '/hook?item=7', headers: expect.objectContaining({ 'x-title': 'Hi', 'content-type': 'application/json' }) });
    expect(await runNode('request', { url: `${base}/text` }, call)).toMatchObject({ status: 200, body: 'plain words' });
  });

  it('fails the node on a status of 400 or more, on its timeout, and on the run being stopped', async () => {
    const base = await listening;
    const site = await newSite();
    expect((await failureOf(runNode('request', { url: `${base}/fail` }, callFor(site)))).message).toMatch(/answered 503/);
    expect((await failureOf(runNode('request', { url: `${base}/slow`, timeoutMs: 200 }, callFor(site)))).message).toMatch(/No response within 200 ms/);
    const controller = new AbortController();
    const stopping = failureOf(runNode('request', { url: `${base}/slow` }, callFor(site, {}, { signal: controller.signal })));
    controller.abort();
    expect((await stopping).code).toBe('REQUEST_TIMEOUT');
  });

  it('refuses a private or loopback address with the guarded client, sending nothing', async () => {
    const base = await listening;
    const site = await newSite();
    const before = received.length;
    for (const url of [`${base}/hook`, 'http://169.254.169.254/latest/meta-data/', 'http://[::1]/', 'file:///etc/passwd']) {
      const refused = await failureOf(runNode('request', { url }, callFor(site, {}, { http: guardedHttp })));
      expect(refused, url).toMatchObject({ code: 'VALIDATION_FAILED', path: ['options', 'url'] });
    }
    expect(received.length).toBe(before);
  });
});

describe('send_email', () => {
  it('sends an inline message through email.send, with run data passed as variables (HTML-escaped by the email area)', async () => {
    const site = await newSite();
    const to = `reader@${site.siteId}.test`;
    const call = callFor(site, { $trigger: { email: to, title: '<b>Launch</b>' } });
    const options = {
      to: '{{ $trigger.email }}',
      inline: { subject: 'About {{ title }}', html: '<p>{{ title }}</p>' },
      variables: { title: '{{ $trigger.title }}' },
    };
    const output = (await runNode('send_email', options, call)) as { message: { status: string; counts: { sent: number } } };
    expect(output.message).toMatchObject({ status: 'completed', counts: expect.objectContaining({ sent: 1 }) });
    const [message] = await sink.waitForCount(1, 15_000, (received) => received.envelopeTo.includes(to));
    expect(message!.subject).toBe('About <b>Launch</b>');
    expect(message!.html).toContain('<p>&lt;b&gt;Launch&lt;/b&gt;</p>');
  });

  it('refuses at save both or neither of templateKey and inline, and fails a refused address', async () => {
    expect(saveCheck('send_email', { to: 'a@example.com' })?.path).toEqual(['templateKey']);
    expect(saveCheck('send_email', { to: 'a@example.com', templateKey: 'x', inline: { subject: 's', text: 't' } })?.path).toEqual(['inline']);
    const site = await newSite();
    const refused = await failureOf(runNode('send_email', { to: 'not an address', inline: { subject: 's', text: 't' } }, callFor(site)));
    expect(refused).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'to', 0] });
  });
});

describe('run_command', () => {
  it("runs a registered command as the flow's principal, its input checked by the command's own schema", async () => {
    const site = await newSite();
    const call = callFor(site, { $trigger: { key: 'welcome' } });
    const created = await runNode('run_command', { command: 'email.createTemplate', input: { key: '{{ $trigger.key }}', subject: 'Hi', text: 'Hello' } }, call);
    expect(created).toMatchObject({ key: 'welcome', subject: 'Hi' });
    expect((await site.admin('GET', '/email/templates')).body.data).toEqual([expect.objectContaining({ key: 'welcome' })]);
    expect(await failureOf(runNode('run_command', { command: 'email.createTemplate', input: { key: 'Bad Key', subject: 'Hi' } }, call))).toMatchObject({
      code: 'VALIDATION_FAILED',
      path: ['body', 'key'],
    });
    const member = await createMember(service, site);
    const asMember = callFor(site, {}, { principal: flowPrincipal(member.userId, false) });
    expect((await failureOf(runNode('run_command', { command: 'email.createTemplate', input: { key: 'other', subject: 'Hi', text: 'x' } }, asMember))).code).toBe('PERMISSION_DENIED');
    expect((await failureOf(runNode('run_command', { command: 'nothing.here' }, call))).code).toBe('NOT_FOUND');
  });

  it('refuses the commands a flow has no business running: at save by name, at run by access level', async () => {
    expect(saveCheck('run_command', { command: 'email.unsubscribe', input: {} })?.path).toEqual(['command']);
    expect(saveCheck('run_command', { command: 'flows.update' })?.message).toMatch(/trigger_flow/);
    expect(saveCheck('run_command', { command: 'not a name' })?.path).toEqual(['command']);
    const site = await newSite();
    const refused = await failureOf(runNode('run_command', { command: 'items.create', input: { collection: 'articles', items: { title: 'x' } } }, callFor(site)));
    expect(refused).toMatchObject({ code: 'VALIDATION_FAILED', path: ['options', 'command'] });
    expect((await site.admin('GET', '/items/articles')).body.data).toEqual([]);
  });
});

describe('trigger_flow', () => {
  it('queues the other flow with the rendered input, and fails when the depth limit stops it', async () => {
    const site = await newSite();
    const started: { flowId: string; input: unknown }[] = [];
    const startFlow = async (flowId: string, input: unknown) => (started.push({ flowId, input }), flowId === 'too-deep' ? null : { runId: 'run-2' });
    const call = callFor(site, { $last: { id: 'x' }, $trigger: { next: 'flow-2' } }, { startFlow, depth: 2 });
    expect(await runNode('trigger_flow', { flowId: '{{ $trigger.next }}', input: '{{ $last }}' }, call)).toEqual({ runId: 'run-2' });
    expect(await runNode('trigger_flow', { flowId: 'flow-3' }, call)).toEqual({ runId: 'run-2' });
    expect(started).toEqual([{ flowId: 'flow-2', input: { id: 'x' } }, { flowId: 'flow-3', input: null }]);
    expect((await failureOf(runNode('trigger_flow', { flowId: 'too-deep' }, call))).message).toMatch(/depth limit/);
  });
});

describe('delay', () => {
  it('waits, and stops waiting when the run is stopped', async () => {
    const site = await newSite();
    const started = performance.now();
    expect(await runNode('delay', { ms: 100 }, callFor(site))).toEqual({ waitedMs: 100 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    const controller = new AbortController();
    const waiting = failureOf(runNode('delay', { ms: 30_000 }, callFor(site, {}, { signal: controller.signal })));
    controller.abort();
    expect((await waiting).code).toBe('REQUEST_TIMEOUT');
    expect(saveCheck('delay', { ms: 30_001 })?.path).toEqual(['ms']);
  });
});

describe('through the flows runtime', () => {
  it('lists every operation with its options schema, and runs them in a manual flow: a condition branches, a transform feeds a create', async () => {
    const site = await newSite();
    const listed = await site.admin('GET', '/flows/operations');
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.data.map((operation: { key: string }) => operation.key)).toEqual(flowOperations.map((operation) => operation.key));
    expect(listed.body.data.find((operation: { key: string }) => operation.key === 'read_items').options).toMatchObject({ type: 'object', properties: { limit: { maximum: 200 } } });

    const graph = {
      nodes: [
        { id: 'check', operation: 'condition', options: { filter: { '$trigger.rating': { _gte: 3 } } } },
        { id: 'shape', operation: 'transform', options: { expression: '{ "title": $uppercase($trigger.title), "rating": $trigger.rating }' } },
        { id: 'save', operation: 'create_item', options: { collection: 'articles', item: '{{ $last }}' } },
        { id: 'low', operation: 'log', options: { message: 'Too low: {{ $trigger.rating }}' } },
      ],
      edges: [
        { from: 'check', to: 'shape' },
        { from: 'shape', to: 'save' },
        { from: 'check', to: 'low', when: 'failure' },
      ],
    };
    const created = await site.admin('POST', '/flows', { name: 'Keep the good ones', trigger: 'manual', status: 'active', graph });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const flowId = created.body.data.id as string;
    const runToEnd = async (input: unknown) => {
      const started = await site.admin('POST', `/flows/${flowId}/run`, input);
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
        const run = (await site.admin('GET', `/flows/${flowId}/runs/${started.body.data.runId}`)).body.data;
        if (run.status === 'succeeded' || run.status === 'failed') return run;
      }
      throw new Error('the run did not finish');
    };

    const good = await runToEnd({ title: 'great', rating: 4 });
    expect(good.status, JSON.stringify(good)).toBe('succeeded');
    expect(good.steps.map((step: { nodeId: string; status: string }) => [step.nodeId, step.status])).toEqual([['check', 'succeeded'], ['shape', 'succeeded'], ['save', 'succeeded']]);
    expect((await site.admin('GET', '/items/articles')).body.data).toEqual([expect.objectContaining({ title: 'GREAT', rating: 4 })]);

    const poor = await runToEnd({ title: 'meh', rating: 1 });
    expect(poor.status, JSON.stringify(poor)).toBe('succeeded');
    expect(poor.steps.map((step: { nodeId: string; status: string }) => [step.nodeId, step.status])).toEqual([['check', 'failed'], ['low', 'succeeded']]);
    expect(poor.steps[0].error).toMatch(/did not pass/);
    expect(poor.steps[1].output).toEqual({ message: 'Too low: 1' });

    const refused = await site.admin('POST', '/flows', { name: 'Bad filter', trigger: 'manual', status: 'active', graph: { nodes: [{ id: 'check', operation: 'condition', options: { filter: { status: { _eq: 'x' } } } }], edges: [] } });
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'graph', 'nodes', 0, 'options', 'filter', 'status'] });
  });
});
