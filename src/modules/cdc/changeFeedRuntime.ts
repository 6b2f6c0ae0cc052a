// The background parts of the change feed on one server, started by the area's manifest
// (src/modules/index.ts) and stopped with the context: the feed watcher (long-poll and reactor
// wake-ups), the outbound HTTP client, the job queue, the webhook reactor, and the sink reactor with
// its NATS JetStream sink (a connection opened on first use, when NATS_URL is set), and the probe of
// that NATS server the health answer runs.
import { createOutboundHttp, type OutboundHttp } from '../../../infra/http/outboundHttp.ts';
import { createJobQueue } from '../../../infra/queue/createJobQueue.ts';
import { deploymentNamespace } from '../../../infra/queue/deploymentNamespace.ts';
import type { JobQueue } from '../../../infra/queue/jobQueue.ts';
import { DEFAULT_NATS_STREAM, DEFAULT_NATS_SUBJECT_ROOT } from '../../../domain/changeFeed/natsSubject.ts';
import { startWebhookReactor, type WebhookReactor } from './webhookReactor.ts';
import type { AppContext } from '../../runtime/context.ts';
import { createFeedCursors, type FeedCursors } from './feedCursors.ts';
import { createFeedWatcher, type FeedWatcher } from './feedWatcher.ts';
import type { FeedSink } from './feedSink.ts';
import { createNatsSink, probeNats, type NatsHealth } from './natsSink.ts';
import { SINK_RETRY_POLICY, startSinkReactor, type SinkReactor } from './sinkReactor.ts';
import { createSecretBox, type SecretBox } from './webhookSecrets.ts';

export interface ChangeFeedRuntime {
  watcher: FeedWatcher;
  http: OutboundHttp;
  secrets: SecretBox;
  /** The sites' opaque cursors (keyed by SVC_SECRET). */
  cursors: FeedCursors;
  queue: JobQueue;
  reactor: WebhookReactor;
  /** Where nats subscriptions publish (NATS JetStream; answers errors when NATS_URL is not set). */
  natsSink: FeedSink;
  /** Whether this deployment has a NATS server: nats subscriptions are refused without one. */
  natsConfigured: boolean;
  /**
   * Whether the NATS server answers now, with JetStream, on a connection of its own per call (the
   * health answer's `broker`); null without NATS_URL.
   */
  probeBroker: (() => Promise<NatsHealth>) | null;
  /** Publishes nats subscriptions' entries through `natsSink`. */
  sinks: SinkReactor;
  /** Stops the reactors, then closes the queue, the NATS connection, the HTTP client and the watcher. */
  stop(): Promise<void>;
}

/**
 * The stream's duplicate window: a batch published again within it after a crash reaches consumers
 * once (docs/change-feed.md). Two minutes, JetStream's own default, outlasts a restart.
 */
const NATS_DUPLICATE_WINDOW_MS = 120_000;
/** How long one publish waits for the stream's acknowledgement. */
const NATS_ACK_TIMEOUT_MS = 5_000;
/** How long the broker's health probe waits: under the health route's own bound per check (2 s). */
export const NATS_PROBE_TIMEOUT_MS = 1_500;
/** Sink subscriptions published at once per process. */
const SINK_CONCURRENCY = 8;

export async function startChangeFeedRuntime(context: AppContext): Promise<ChangeFeedRuntime> {
  const { config } = context;
  const natsUrl = config.NATS_URL;
  const watcher = createFeedWatcher(context.notifier);
  const http = createOutboundHttp({ allowPrivate: config.SVC_WEBHOOK_ALLOW_PRIVATE, userAgent: `svc-webhooks/${context.version}` });
  const secrets = createSecretBox(config.SVC_SECRET);
  const cursors = createFeedCursors(config.SVC_SECRET);
  const queue = await createJobQueue({
    redisUrl: config.REDIS_URL,
    namespace: deploymentNamespace(config),
    database: context.database,
    logger: context.logger,
    metrics: context.metrics,
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
  const natsSink = createNatsSink({
    url: config.NATS_URL,
    stream: DEFAULT_NATS_STREAM,
    subjectRoot: DEFAULT_NATS_SUBJECT_ROOT,
    duplicateWindowMs: NATS_DUPLICATE_WINDOW_MS,
    maxAgeMs: config.SVC_CDC_RETENTION,
    ackTimeoutMs: NATS_ACK_TIMEOUT_MS,
    name: `svc-feed/${context.version}`,
    logger: context.logger,
  });
  const sinks = startSinkReactor({
    context,
    queue,
    sink: natsSink,
    cursors,
    watcher,
    policy: SINK_RETRY_POLICY,
    sweepMs: config.SVC_WEBHOOK_SWEEP_MS,
    concurrency: SINK_CONCURRENCY,
  });
  return {
    watcher,
    http,
    secrets,
    cursors,
    queue,
    reactor,
    natsSink,
    natsConfigured: config.NATS_URL !== undefined,
    probeBroker: natsUrl === undefined ? null : () => probeNats(natsUrl, `svc-health/${context.version}`, NATS_PROBE_TIMEOUT_MS),
    sinks,
    async stop() {
      await Promise.all([reactor.stop(), sinks.stop()]);
      await queue.close();
      await natsSink.close();
      http.close();
      watcher.close();
    },
  };
}
