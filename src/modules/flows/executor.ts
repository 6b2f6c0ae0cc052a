// Executes one queued run (docs/flows.md "Execution"): the nodes in topological order, each after the
// nodes that lead to it, following the edges of each outcome; each step recorded with its output,
// error, duration and attempts; the whole bounded by the run timeout. The graph was checked at save
// (no loop), and the walk is a loop over that order: nothing recurses.
import { setTimeout as sleep } from 'node:timers/promises';
import { flowRunDecider, type FlowRunCommand } from '../../../domain/flows/flowRun.ts';
import { entryNodes, topologicalOrder } from '../../../domain/flows/graph.ts';
import type { FlowGraph, FlowNode } from '../../../domain/flows/events.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { OutboundHttp } from '../../../infra/http/outboundHttp.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { FlowRunData, OperationCall } from './operation.ts';
import { findOperation } from './operations/index.ts';
import { findFlow, findRun } from './queries.ts';
import { renderOptions } from './renderOptions.ts';
import { actingPrincipal, recordable, runMetadata, runStream } from './runs.ts';

const EXECUTOR_METADATA: EventMetadata = { actor: { kind: 'system', id: 'flows' } };
const RETRY_BASE_MS = 200;

export interface ExecutorDeps {
  context: AppContext;
  http: OutboundHttp;
  runTimeoutMs: number;
  /** Queues a run of another flow of the site one level deeper (trigger_flow); null past the depth limit. */
  startFlow(siteId: string, flowId: string, input: unknown, depth: number, metadata: EventMetadata): Promise<{ runId: string } | null>;
}

/** Records commands of the run's stream in one transaction, under its lock. */
function recordRun(context: AppContext, siteId: string, runId: string, commands: FlowRunCommand[]) {
  return inSiteTransaction(context, siteId, async (tx) => {
    let recorded = 0;
    for (const command of commands) {
      const result = await handleCommandIn(tx, context.projections, { siteId, streamId: runStream(siteId, runId), decider: flowRunDecider, command, metadata: EXECUTOR_METADATA, lock: true });
      recorded += result.events.length;
    }
    return recorded;
  });
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 1_000);

type Step = Extract<FlowRunCommand, { type: 'recordStep' }>['step'];

/**
 * Runs a queued run: it is loaded and started in one transaction (a run that is not queued is another
 * job's, or was cut short by a stopped instance, which the flow-runs task finishes as interrupted: its
 * side effects may have happened, it never runs twice); its steps and its end are recorded together
 * in one more when it finishes.
 */
export async function executeRun(deps: ExecutorDeps, siteId: string, runId: string): Promise<void> {
  const { context } = deps;
  const loaded = await inSiteTransaction(context, siteId, async (tx) => {
    const run = await findRun(tx, siteId, runId);
    if (!run || run.status !== 'queued') return null;
    const started = await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: runStream(siteId, runId),
      decider: flowRunDecider,
      command: { type: 'startRun' },
      metadata: EXECUTOR_METADATA,
      lock: true,
    });
    if (started.events.length === 0) return null;
    const flow = await findFlow(tx, siteId, run.flowId);
    const principal = flow ? await actingPrincipal(tx, siteId, flow) : null;
    return { run, flow, principal };
  });
  if (!loaded) return;
  const { run, flow, principal } = loaded;
  const finish = (steps: Step[], error: string | null) =>
    recordRun(context, siteId, runId, [
      ...steps.map((step): FlowRunCommand => ({ type: 'recordStep', step })),
      { type: 'finishRun', status: error === null ? 'succeeded' : 'failed', error },
    ]);
  if (!flow) return void (await finish([], 'the flow was deleted'));
  if (!principal) return void (await finish([], flow.actAs ? 'the role the flow acts as no longer exists' : 'the flow’s owner is no longer an active user'));

  const timeout = AbortSignal.timeout(deps.runTimeoutMs);
  const data: FlowRunData = { $trigger: run.input, $last: null, $steps: {}, $flow: { id: flow.id, name: flow.name }, $run: { id: runId, depth: run.depth } };
  const metadata = runMetadata(principal, runId);
  const call = (): OperationCall => ({
    context,
    siteId,
    flow: data.$flow,
    runId,
    depth: run.depth,
    principal,
    metadata,
    http: deps.http,
    signal: timeout,
    data: { ...data, $steps: { ...data.$steps } },
    startFlow: (flowId, input) => deps.startFlow(siteId, flowId, input, run.depth + 1, metadata),
  });

  const steps: Step[] = [];
  const outcome = await walk(flow.graph as FlowGraph, data, async (node) => {
    const startedAt = new Date().toISOString();
    const began = performance.now();
    const result = await runNode(node, call(), run.dryRun, timeout);
    steps.push({
      nodeId: node.id,
      operation: node.operation,
      status: result.status,
      output: recordable(result.output),
      error: result.error,
      durationMs: Math.round((performance.now() - began) * 100) / 100,
      attempts: result.attempts,
      startedAt,
    });
    return result;
  });
  await finish(steps, outcome);
}

interface NodeResult {
  status: 'succeeded' | 'failed' | 'dry_run';
  output: unknown;
  error: string | null;
  attempts: number;
}

/** One node: its options rendered and checked, then run (with its retries), or only described in a dry run. */
async function runNode(node: FlowNode, call: OperationCall, dryRun: boolean, timeout: AbortSignal): Promise<NodeResult> {
  const operation = findOperation(node.operation);
  if (!operation) return { status: 'failed', output: null, error: `unknown operation "${node.operation}"`, attempts: 0 };
  let options: unknown;
  try {
    const rendered = await renderOptions(node.options, call.data, operation.raw ?? []);
    const parsed = operation.options.safeParse(rendered);
    if (!parsed.success) return { status: 'failed', output: null, error: `options: ${parsed.error.issues[0]?.message ?? 'invalid'}`, attempts: 0 };
    options = parsed.data;
  } catch (error) {
    return { status: 'failed', output: null, error: messageOf(error), attempts: 0 };
  }
  if (dryRun && operation.sideEffects) return { status: 'dry_run', output: { wouldRun: node.operation, options }, error: null, attempts: 0 };
  const tries = (node.retries ?? 0) + 1;
  let lastError = '';
  for (let attempt = 1; attempt <= tries; attempt += 1) {
    if (timeout.aborted) return { status: 'failed', output: null, error: 'timeout: the run took longer than SVC_FLOW_RUN_TIMEOUT_MS', attempts: attempt - 1 };
    try {
      return { status: 'succeeded', output: await operation.run(options, call), error: null, attempts: attempt };
    } catch (error) {
      lastError = messageOf(error);
      if (attempt < tries) await sleep(RETRY_BASE_MS * 2 ** (attempt - 1), undefined, { signal: timeout }).catch(() => undefined);
    }
  }
  return { status: 'failed', output: null, error: lastError, attempts: tries };
}

/**
 * Walks the graph: a node runs once every node with an edge to it has finished or been passed over,
 * when at least one of those edges matches its source's outcome (an entry node always runs); `$last`
 * is the output of the last such source. Answers null when the run succeeded, else why it failed: a
 * node that failed with no `failure` edge out of it.
 */
async function walk(graph: FlowGraph, data: FlowRunData, execute: (node: FlowNode) => Promise<NodeResult>): Promise<string | null> {
  const nodes = new Map(graph.nodes.map((node) => [node.id, node]));
  const entries = new Set(entryNodes(graph).map((node) => node.id));
  const outcomes = new Map<string, 'success' | 'failure'>();
  for (const id of topologicalOrder(graph)) {
    const followed = graph.edges.filter((edge) => edge.to === id && outcomes.get(edge.from) === (edge.when ?? 'success'));
    if (!entries.has(id) && followed.length === 0) continue;
    // An entry node has no node before it; any other, the output of the last that led to it.
    data.$last = followed.length > 0 ? (data.$steps[followed.at(-1)!.from] ?? null) : null;
    const result = await execute(nodes.get(id)!);
    data.$steps[id] = result.status === 'failed' ? { error: result.error } : result.output;
    if (result.status === 'failed') {
      outcomes.set(id, 'failure');
      const handled = graph.edges.some((edge) => edge.from === id && edge.when === 'failure');
      if (!handled) return `node "${id}" failed: ${result.error}`;
    } else {
      outcomes.set(id, 'success');
    }
  }
  return null;
}
