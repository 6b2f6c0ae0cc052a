// The realtime parts of one instance, started with the HTTP server and stopped with the context:
// broker (in-process or Redis pub/sub), connection limiter, hub of local sessions, and the log tailer
// that turns committed events into frames.
import { deploymentNamespace } from '../../../infra/queue/deploymentNamespace.ts';
import { createRedis, type Redis } from '../../../infra/redis/redis.ts';
import type { AppContext } from '../../runtime/context.ts';
import { createInProcessLimiter, createRedisLimiter, type ConnectionLimiter } from './connectionLimiter.ts';
import { startLogTailer, type LogTailer } from './logTailer.ts';
import { createInProcessBroker, createRedisBroker, type RealtimeBroker } from './realtimeBroker.ts';
import { createRealtimeHub, type RealtimeHub } from './realtimeHub.ts';

export interface RealtimeService {
  hub: RealtimeHub;
  tailer: LogTailer;
  broker: RealtimeBroker;
  limiter: ConnectionLimiter;
}

export async function startRealtimeService(context: AppContext): Promise<RealtimeService> {
  const { config, logger } = context;
  const prefix = `svc:${deploymentNamespace(config.DATABASE_URL ?? config.dataDir)}:realtime`;
  let redis: Redis | null = null;
  let broker: RealtimeBroker;
  let limiter: ConnectionLimiter;
  if (config.REDIS_URL) {
    redis = createRedis(config.REDIS_URL, { onError: (error) => logger.warn({ err: error }, 'realtime Redis connection error') });
    broker = await createRedisBroker({ redisUrl: config.REDIS_URL, channel: `${prefix}:frames`, logger });
    limiter = createRedisLimiter({
      redis,
      prefix,
      limit: config.SVC_REALTIME_MAX_CONNECTIONS_PER_SITE,
      ttlMs: Math.max(3 * config.SVC_REALTIME_HEARTBEAT_MS, 5_000),
    });
  } else {
    broker = createInProcessBroker();
    limiter = createInProcessLimiter(config.SVC_REALTIME_MAX_CONNECTIONS_PER_SITE);
  }
  const hub = createRealtimeHub({
    logger,
    limiter,
    heartbeatMs: config.SVC_REALTIME_HEARTBEAT_MS,
    maxBufferedBytes: config.SVC_REALTIME_MAX_BUFFERED_BYTES,
  });
  broker.subscribe((message) => hub.deliver(message));
  const tailer = startLogTailer({
    database: context.database,
    notifier: context.notifier,
    logger,
    pollMs: config.SVC_PROJECTION_POLL_MS,
    publish: (messages) => broker.publish(messages),
    leadership: redis ? { redis, cursorKey: `${prefix}:cursor`, retryMs: 1_000 } : undefined,
    hasSessions: () => hub.sessionCount() > 0,
  });
  context.onClose(async () => {
    await tailer.stop();
    hub.close();
    await broker.close();
    redis?.disconnect();
  });
  return { hub, tailer, broker, limiter };
}
