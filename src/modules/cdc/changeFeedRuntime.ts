// The background parts of the change feed on one server, started by the area's manifest
// (src/modules/index.ts) and stopped with the context: the feed watcher (long-poll and reactor
// wake-ups), the outbound HTTP client, the job queue and the webhook reactor.
import { createOutboundHttp, type OutboundHttp } from '../../../infra/http/outboundHttp.ts';
import { createJobQueue } from '../../../infra/queue/createJobQueue.ts';
import { deploymentNamespace } from '../../../infra/queue/deploymentNamespace.ts';
import type { JobQueue } from '../../../infra/queue/jobQueue.ts';
import { startWebhookReactor, type WebhookReactor } from './webhookReactor.ts';
import type { AppContext } from '../../runtime/context.ts';
import { createFeedCursors, type FeedCursors } from './feedCursors.ts';
import { createFeedWatcher, type FeedWatcher } from './feedWatcher.ts';
import { createSecretBox, type SecretBox } from './webhookSecrets.ts';

export interface ChangeFeedRuntime {
  watcher: FeedWatcher;
  http: OutboundHttp;
  secrets: SecretBox;
  /** The sites' opaque cursors (keyed by SVC_SECRET). */
  cursors: FeedCursors;
  queue: JobQueue;
  reactor: WebhookReactor;
  /** Stops the reactor, then closes the queue, the HTTP client and the watcher. */
  stop(): Promise<void>;
}

export function startChangeFeedRuntime(context: AppContext): ChangeFeedRuntime {
  const { config } = context;
  const watcher = createFeedWatcher(context.notifier);
  const http = createOutboundHttp({ allowPrivate: config.SVC_WEBHOOK_ALLOW_PRIVATE, userAgent: `svc-webhooks/${context.version}` });
  const secrets = createSecretBox(config.SVC_SECRET);
  const cursors = createFeedCursors(config.SVC_SECRET);
  const queue = createJobQueue({
    redisUrl: config.REDIS_URL,
    namespace: deploymentNamespace(config.DATABASE_URL ?? config.dataDir),
    database: context.database,
    logger: context.logger,
  });
  const reactor = startWebhookReactor({
    context,
    queue,
    http,
    secrets,
    cursors,
    watcher,
    policy: { baseMs: config.SVC_WEBHOOK_BACKOFF_BASE_MS, maxMs: config.SVC_WEBHOOK_BACKOFF_MAX_MS, maxAttempts: config.SVC_WEBHOOK_MAX_ATTEMPTS },
    timeoutMs: config.SVC_WEBHOOK_TIMEOUT_MS,
    sweepMs: config.SVC_WEBHOOK_SWEEP_MS,
    concurrency: config.SVC_WEBHOOK_CONCURRENCY,
  });
  return {
    watcher,
    http,
    secrets,
    cursors,
    queue,
    reactor,
    async stop() {
      await reactor.stop();
      await queue.close();
      http.close();
      watcher.close();
    },
  };
}
