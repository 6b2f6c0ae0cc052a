// The flows area's background part, started by its manifest (src/modules/index.ts) and stopped with the
// context: the SSRF-guarded HTTP client of the `request` operation, the run queue with its worker
// (BullMQ with REDIS_URL, else the PostgreSQL-backed queue), the reactor that starts event flows, and
// the dispatcher that queues the jobs of runs queued without one (a schedule's, or a job lost with a
// stopped instance). Each site runs at most SVC_FLOW_SITE_CONCURRENCY runs at once per instance.
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { createOutboundHttp, type OutboundHttp } from '../../../infra/http/outboundHttp.ts';
import { createJobQueue } from '../../../infra/queue/createJobQueue.ts';
import { deploymentNamespace } from '../../../infra/queue/deploymentNamespace.ts';
import type { JobQueue } from '../../../infra/queue/jobQueue.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { AppContext } from '../../runtime/context.ts';
import { executeRun } from './executor.ts';
import { startFlowTriggerReactor } from './flowTriggerReactor.ts';
import { findFlow } from './queries.ts';
import { queueRun } from './runs.ts';
import type { RunStarted } from './schemas.ts';

const RUN_QUEUE = 'flow-run';
const DISPATCH_MS = 1_000;
/**
 * A run queued this long ago without having started lost its job (the instance that queued it stopped
 * before the job was taken): past the job queue's lease, so a job that is only waiting is not doubled.
 */
const DISPATCH_AFTER_MS = 150_000;
const BUSY_RETRY_MS = 100;

export interface FlowsRuntime {
  http: OutboundHttp;
  queue: JobQueue;
  maxChain: number;
  /** Gives a queued run its job (owed while Redis is away: JobQueue.enqueueRecorded). */
  enqueue(siteId: string, runId: string): Promise<void>;
  /** Queues a run of a flow of the site (trigger_flow): null past the depth limit or when the flow is not active. */
  startFlow(siteId: string, flowId: string, input: unknown, depth: number, metadata: EventMetadata): Promise<RunStarted | null>;
  stop(): Promise<void>;
}

export async function startFlowsRuntime(context: AppContext): Promise<FlowsRuntime> {
  const { config } = context;
  const http = createOutboundHttp({ allowPrivate: config.SVC_FLOW_ALLOW_PRIVATE, userAgent: `svc-flows/${context.version}` });
  const queue = await createJobQueue({
    redisUrl: config.REDIS_URL,
    namespace: deploymentNamespace(config),
    database: context.database,
    logger: context.logger,
    metrics: context.metrics,
  });
  // The run is in the log already: while Redis is away its job is owed, not refused (a request that
  // queued it still answers `queued`; a 503 would have its client queue it twice).
  const enqueue = (siteId: string, runId: string) => queue.enqueueRecorded(RUN_QUEUE, runId, { siteId, runId });
  const maxChain = config.SVC_FLOW_MAX_CHAIN;

  async function startFlow(siteId: string, flowId: string, input: unknown, depth: number, metadata: EventMetadata): Promise<RunStarted | null> {
    if (depth > maxChain) return null;
    const flow = await context.database.withSite(siteId, (tx) => findFlow(tx, siteId, flowId));
    if (!flow || flow.status !== 'active') return null;
    return queueRun(context, enqueue, siteId, { runId: randomUUID(), flowId, trigger: 'flow', input, depth }, metadata);
  }

  const running = new Map<string, number>();
  queue.process<{ siteId: string; runId: string }>(
    RUN_QUEUE,
    async ({ siteId, runId }) => {
      const busy = running.get(siteId) ?? 0;
      if (busy >= config.SVC_FLOW_SITE_CONCURRENCY) return { retryInMs: BUSY_RETRY_MS };
      running.set(siteId, busy + 1);
      try {
        await executeRun({ context, http, runTimeoutMs: config.SVC_FLOW_RUN_TIMEOUT_MS, startFlow }, siteId, runId);
      } finally {
        const left = (running.get(siteId) ?? 1) - 1;
        if (left === 0) running.delete(siteId);
        else running.set(siteId, left);
      }
      return undefined;
    },
    { concurrency: config.SVC_FLOW_CONCURRENCY },
  );

  const reactor = startFlowTriggerReactor({ context, maxChain, pollMs: config.SVC_PROJECTION_POLL_MS, enqueue });

  // Runs a schedule queued (the scheduler has no queue of its own) or whose job was lost get their job,
  // once per instance: a run this instance gave a job is not given another while it waits its turn.
  const dispatched = new LRUCache<string, true>({ max: 50_000, ttl: DISPATCH_AFTER_MS });
  const dispatcher = setInterval(() => {
    void (async () => {
      const before = new Date(Date.now() - DISPATCH_AFTER_MS);
      const runs = await context.database.query<{ site_id: string; id: string }>(sql`SELECT * FROM svc_flow_runs_in_state('queued', ${before}, 500)`);
      for (const run of runs.filter((candidate) => !dispatched.has(candidate.id))) {
        await queue.enqueue(RUN_QUEUE, run.id, { siteId: run.site_id, runId: run.id });
        dispatched.set(run.id, true);
      }
    })().catch((error: unknown) => context.logger.warn({ err: error }, 'flow run dispatch failed; retrying'));
  }, DISPATCH_MS);
  dispatcher.unref();

  return {
    http,
    queue,
    maxChain,
    enqueue,
    startFlow,
    async stop() {
      clearInterval(dispatcher);
      await reactor.stop();
      await queue.close();
      http.close();
    },
  };
}
