// Helpers of the flows tests (docs/flows.md): a site with its administrator's calls, graphs, flows
// created and changed over HTTP, runs started and waited for, webhook calls, and croner's next time.
import { setTimeout as delay } from 'node:timers/promises';
import { Cron } from 'croner';
import { expect } from 'vitest';
import { createCollection } from '../../../support/contentModel.ts';
import { createTestSite, type TestResponse, type TestService } from '../../../support/testService.ts';
import { withHelpers, type AccessSite } from '../../access/support.ts';

/** JSON as the tests read it (the body type of TestResponse). */
export type Json = TestResponse['body'];
export type FlowSite = AccessSite;

const FINISHED = new Set(['succeeded', 'failed']);
const POLL_MS = 100;

export async function createFlowSite(service: TestService, prefix = 'flows'): Promise<FlowSite> {
  return withHelpers(service, await createTestSite(service, prefix));
}

/** A collection with a `title` (string) and a `views` (integer) field. */
export async function createTitledCollection(site: FlowSite, name: string): Promise<void> {
  await createCollection(site.service, site, name, [
    { field: 'title', type: 'string' },
    { field: 'views', type: 'integer' },
  ]);
}

export async function createItem(site: FlowSite, collection: string, body: Record<string, unknown>): Promise<Json> {
  const created = await site.admin('POST', `/items/${collection}`, body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data;
}

export async function itemsOf(site: FlowSite, collection: string): Promise<Json[]> {
  const listed = await site.admin('GET', `/items/${collection}?limit=200`);
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  return listed.body.data;
}

export interface GraphNode {
  id: string;
  operation: string;
  options: Record<string, unknown>;
  retries?: number;
}

export const node = (id: string, operation: string, options: Record<string, unknown> = {}): GraphNode => ({ id, operation, options });

export const edge = (from: string, to: string, when?: 'success' | 'failure') => (when ? { from, to, when } : { from, to });

/** One `log` node: the smallest valid graph. */
export const logGraph = (message = 'hello') => ({ nodes: [node('say', 'log', { message })], edges: [] });

/** POST /flows as the administrator; the flow answered (201 expected). */
export async function createFlow(site: FlowSite, body: Record<string, unknown>): Promise<Json> {
  const created = await site.admin('POST', '/flows', { name: 'A flow', ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data;
}

/** An active manual flow of `graph`. */
export const createManualFlow = (site: FlowSite, graph: Record<string, unknown>, name = 'Manual') =>
  createFlow(site, { name, trigger: 'manual', status: 'active', graph });

export async function patchFlow(site: FlowSite, flowId: string, body: Record<string, unknown>): Promise<Json> {
  const patched = await site.admin('PATCH', `/flows/${flowId}`, body);
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  return patched.body.data;
}

export async function getFlow(site: FlowSite, flowId: string): Promise<Json> {
  const found = await site.admin('GET', `/flows/${flowId}`);
  expect(found.status, JSON.stringify(found.body)).toBe(200);
  return found.body.data;
}

/** The first error of a refusal, after checking its status and code (and its path when given). */
export function expectError(response: TestResponse, status: number, code: string, path?: (string | number)[]): Json {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  const [error] = response.body.errors;
  expect(error.code, JSON.stringify(error)).toBe(code);
  if (path) expect(error.path, JSON.stringify(error)).toEqual(path);
  return error;
}

/** POST /flows/:id/run; the 202 answer's data. */
export async function startRun(site: FlowSite, flowId: string, input?: unknown): Promise<Json> {
  const started = await site.admin('POST', `/flows/${flowId}/run`, input);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return started.body.data;
}

/** Polls the run's detail until it has finished (succeeded or failed). */
export async function waitForRun(site: FlowSite, flowId: string, runId: string, timeoutMs = 20_000): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await site.admin('GET', `/flows/${flowId}/runs/${runId}`);
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    if (FINISHED.has(found.body.data.status)) return found.body.data;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${found.body.data.status} after ${timeoutMs} ms`);
    await delay(POLL_MS);
  }
}

/** Starts a manual run and waits for it to finish. */
export async function runToEnd(site: FlowSite, flowId: string, input?: unknown): Promise<Json> {
  const { runId } = await startRun(site, flowId, input);
  return waitForRun(site, flowId, runId);
}

/** Every run of the flow (at most 200), newest first. */
export async function runsOf(site: FlowSite, flowId: string): Promise<Json[]> {
  const listed = await site.admin('GET', `/flows/${flowId}/runs?limit=200`);
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  return listed.body.data;
}

/** Polls the flow's runs until at least `count` exist and all of them have finished. */
export async function waitForRuns(site: FlowSite, flowId: string, count: number, timeoutMs = 20_000): Promise<Json[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const runs = await runsOf(site, flowId);
    if (runs.length >= count && runs.every((run) => FINISHED.has(run.status))) return runs;
    if (Date.now() > deadline) throw new Error(`flow ${flowId}: ${runs.length} runs (${runs.map((run) => run.status).join(', ')}), expected ${count} finished`);
    await delay(POLL_MS);
  }
}

/**
 * The flow's runs once they settled: all finished, and their number unchanged for `quietMs` (a run that
 * starts another, through a write, is queued only after the first one finished its write).
 */
export async function settledRuns(site: FlowSite, flowId: string, quietMs = 1_000, timeoutMs = 30_000): Promise<Json[]> {
  const deadline = Date.now() + timeoutMs;
  let stableSince = Date.now();
  let last = -1;
  for (;;) {
    const runs = await runsOf(site, flowId);
    const settled = runs.every((run) => FINISHED.has(run.status));
    if (runs.length !== last || !settled) {
      last = runs.length;
      stableSince = Date.now();
    } else if (Date.now() - stableSince >= quietMs) {
      return runs;
    }
    if (Date.now() > deadline) throw new Error(`flow ${flowId}: runs did not settle (${runs.length})`);
    await delay(POLL_MS);
  }
}

export interface WebhookCall {
  token?: string;
  bearer?: string;
  body?: unknown;
  query?: string;
  headers?: Record<string, string>;
}

/** POST /flows/:id/trigger as an outside system: no session, no site header. */
export function triggerWebhook(service: TestService, flowId: string, call: WebhookCall = {}): Promise<TestResponse> {
  const headers: Record<string, string> = { ...call.headers };
  if (call.token !== undefined) headers['x-flow-token'] = call.token;
  return service.request('POST', `/flows/${flowId}/trigger${call.query ? `?${call.query}` : ''}`, {
    site: null,
    token: call.bearer ?? null,
    headers,
    ...(call.body === undefined ? {} : { body: call.body }),
  });
}

/** croner's next time of `cron` strictly after `after`, in UTC, as ISO text. */
export function nextCronTime(cron: string, after: Date): string {
  const job = new Cron(cron, { timezone: 'UTC', paused: true });
  try {
    return job.nextRun(after)!.toISOString();
  } finally {
    job.stop();
  }
}

/** `nextRunAt` is the cron's next time after the save, which happened between `before` and `after`. */
export function expectNextRunAt(nextRunAt: string | null, cron: string, before: Date, after: Date): void {
  const candidates = new Set([nextCronTime(cron, before), nextCronTime(cron, after)]);
  expect([...candidates], `nextRunAt ${nextRunAt}`).toContain(nextRunAt);
}

/** Runs `save`, noting the time around it (for `expectNextRunAt`). */
export async function timed<T>(save: () => Promise<T>): Promise<{ result: T; before: Date; after: Date }> {
  const before = new Date();
  const result = await save();
  return { result, before, after: new Date() };
}
