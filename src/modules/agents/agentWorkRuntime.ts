// The agent work's background part, started by its manifest (src/modules/index.ts) and stopped with the
// context: the goal run queue with its worker (BullMQ with REDIS_URL, else the PostgreSQL-backed
// queue; one job per run), and, when web push is configured (VAPID keys), the reactor that pushes
// every notification to the site's browsers (agentNotifications.ts).
import { createOutboundHttp, type OutboundHttp } from '../../../infra/http/outboundHttp.ts';
import { createJobQueue } from '../../../infra/queue/createJobQueue.ts';
import { deploymentNamespace } from '../../../infra/queue/deploymentNamespace.ts';
import type { JobQueue } from '../../../infra/queue/jobQueue.ts';
import { createWebPushSender, type WebPushSender } from '../../../infra/webpush/webPushSender.ts';
import type { AppContext } from '../../runtime/context.ts';
import { currentRequester } from '../ai/approvalQueries.ts';
import { followNotificationsToPush, type NotificationPush } from './agentNotifications.ts';
import type { EnqueueGoalRun } from './goals.ts';
import { runQueuedGoal } from './goalsRunner.ts';

const GOAL_QUEUE = 'agent-goal-run';
/** Goal runs at once per instance. */
const GOAL_CONCURRENCY = 4;

export interface AgentWorkRuntime {
  queue: JobQueue;
  enqueueGoal: EnqueueGoalRun;
  /** Null without VAPID keys: notifications reach realtime sessions only. */
  pushSender: WebPushSender | null;
  stop(): Promise<void>;
}

export async function startAgentWorkRuntime(context: AppContext): Promise<AgentWorkRuntime> {
  const { config } = context;
  const queue = await createJobQueue({
    redisUrl: config.REDIS_URL,
    namespace: deploymentNamespace(config),
    database: context.database,
    logger: context.logger,
    metrics: context.metrics,
  });
  queue.process<{ siteId: string; goalId: string; runId: string }>(
    GOAL_QUEUE,
    async ({ siteId, goalId, runId }) => {
      await runQueuedGoal(context, siteId, goalId, runId, (goal) => context.database.withSiteReads(siteId, (tx) => currentRequester(tx, siteId, goal.requester)));
    },
    { concurrency: GOAL_CONCURRENCY },
  );

  // The push area's sender over its own guarded HTTP client, as the push runtime builds it (push/pushRuntime.ts).
  let pushSender: WebPushSender | null = null;
  let push: NotificationPush | null = null;
  let http: OutboundHttp | null = null;
  if (config.SVC_VAPID_PUBLIC_KEY && config.SVC_VAPID_PRIVATE_KEY) {
    const vapid = { publicKey: config.SVC_VAPID_PUBLIC_KEY, privateKey: config.SVC_VAPID_PRIVATE_KEY, subject: config.SVC_VAPID_SUBJECT };
    http = createOutboundHttp({ allowPrivate: config.SVC_WEBHOOK_ALLOW_PRIVATE, userAgent: `svc-push/${context.version}` });
    pushSender = createWebPushSender({ vapid, http, timeoutMs: config.SVC_WEBHOOK_TIMEOUT_MS });
    push = followNotificationsToPush({ context, sender: pushSender, pollMs: config.SVC_PROJECTION_POLL_MS });
  }

  return {
    queue,
    enqueueGoal: (siteId, goalId, runId) => queue.enqueueRecorded(GOAL_QUEUE, runId, { siteId, goalId, runId }),
    pushSender,
    async stop() {
      await push?.stop();
      await queue.close();
      http?.close();
    },
  };
}
