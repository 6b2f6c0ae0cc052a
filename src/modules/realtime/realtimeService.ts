// The realtime parts of one instance, started once per server by the area's manifest
// (src/modules/index.ts) and stopped with the context: broker (in-process or Redis pub/sub), connection limiter, hub of local sessions, the
// log tailer that turns committed events into frames and revocations, the revocations that end the
// connections whose credential or permissions changed (./revocations.ts), and item event streams for
// in-process consumers (GraphQL subscriptions) fed by the same broker as the WebSocket sessions.
import type { FeedOperation } from '../../../domain/changeFeed/feedEntry.ts';
import { deploymentNamespace } from '../../../infra/queue/deploymentNamespace.ts';
import { createRedis, type Redis } from '../../../infra/redis/redis.ts';
import type { AppContext } from '../../runtime/context.ts';
import { createInProcessLimiter, createRedisLimiter, type ConnectionLimiter } from './connectionLimiter.ts';
import { startLogTailer, type LogTailer } from './logTailer.ts';
import { createInProcessBroker, createRedisBroker, type RealtimeBroker } from './realtimeBroker.ts';
import type { RealtimeMessage } from './realtimeFrames.ts';
import { createRealtimeHub, type RealtimeHub } from './realtimeHub.ts';
import { createRevocations, type Revocations } from './revocations.ts';

/** An item change of one collection, as the realtime event frame signals it (no content). */
export interface ItemEvent {
  action: FeedOperation;
  itemId: string;
}

/**
 * Item events a stream holds for a consumer that has not taken them yet. Beyond it the oldest are
 * dropped and the stream goes on: a consumer that falls this far behind (say an SSE client that stopped
 * reading) loses signals rather than growing the server's memory without end.
 */
export const MAX_BUFFERED_ITEM_EVENTS = 1_000;

export interface RealtimeService {
  hub: RealtimeHub;
  tailer: LogTailer;
  broker: RealtimeBroker;
  limiter: ConnectionLimiter;
  /** The sockets and streams to end when their credential or permissions change, on this instance. */
  revocations: Revocations;
  /**
   * The item events of one site and collection, in log order, as the broker delivers them (from any
   * instance with Redis). Resolves once the log is followed for it: every event committed after that
   * is yielded. While open it counts as a session, so an instance without Redis keeps tailing for it.
   * Ends (and lets go of everything it holds) on `return()`, when `signal` aborts, or when the service
   * stops. Holds at most MAX_BUFFERED_ITEM_EVENTS unread events, dropping the oldest beyond.
   */
  itemEvents(siteId: string, collection: string, signal: AbortSignal): Promise<AsyncIterableIterator<ItemEvent>>;
  /** Stops the tailer, ends every stream and session, closes the broker and Redis. */
  close(): Promise<void>;
}

interface ItemEventConsumer {
  collection: string;
  deliver(event: ItemEvent): void;
  end(): void;
}

/**
 * The Redis limiter while Redis answers; this instance's own count while it does not (a connection
 * admitted then is released where it was counted), so a Redis outage never refuses realtime.
 */
function withLocalFallback(redis: Redis, shared: ConnectionLimiter, local: ConnectionLimiter): ConnectionLimiter {
  const countedLocally = new Set<string>();
  return {
    async acquire(siteId, connectionId) {
      if (redis.status === 'ready') {
        try {
          return await shared.acquire(siteId, connectionId);
        } catch {
          // Redis went away meanwhile: counted here below.
        }
      }
      const admitted = await local.acquire(siteId, connectionId);
      if (admitted) countedLocally.add(connectionId);
      return admitted;
    },
    async release(siteId, connectionId) {
      if (countedLocally.delete(connectionId)) return local.release(siteId, connectionId);
      if (redis.status === 'ready') await shared.release(siteId, connectionId);
    },
    async refresh(connections) {
      if (redis.status !== 'ready') return;
      await shared.refresh(connections.filter(({ connectionId }) => !countedLocally.has(connectionId)));
    },
  };
}

export async function startRealtimeService(context: AppContext): Promise<RealtimeService> {
  const { config, logger } = context;
  const prefix = `svc:${deploymentNamespace(config)}:realtime`;
  let redis: Redis | null = null;
  let broker: RealtimeBroker;
  let limiter: ConnectionLimiter;
  if (config.REDIS_URL) {
    redis = createRedis(config.REDIS_URL, { onError: (error) => logger.warn({ err: error }, 'realtime Redis connection error') });
    broker = createRedisBroker({ redisUrl: config.REDIS_URL, channel: `${prefix}:frames`, logger });
    limiter = withLocalFallback(
      redis,
      createRedisLimiter({
        redis,
        prefix,
        limit: config.SVC_REALTIME_MAX_CONNECTIONS_PER_SITE,
        ttlMs: Math.max(3 * config.SVC_REALTIME_HEARTBEAT_MS, 5_000),
      }),
      createInProcessLimiter(config.SVC_REALTIME_MAX_CONNECTIONS_PER_SITE),
    );
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
  const consumers = new Map<string, Set<ItemEventConsumer>>();
  let consumerCount = 0;
  const unreport = context.metrics.sample('svc_realtime_connections', 'Open realtime WebSocket connections on this instance', [], () => [
    { labels: {}, value: hub.sessionCount() },
  ]);

  function deliverItemEvents(message: RealtimeMessage): void {
    const forSite = consumers.get(message.siteId);
    if (!forSite) return;
    for (const frame of message.frames) {
      if (frame.type !== 'event') continue;
      for (const consumer of forSite) if (consumer.collection === frame.collection) consumer.deliver({ action: frame.action, itemId: frame.itemId });
    }
  }

  const revocations = createRevocations(context);
  broker.subscribe((message) => {
    // First: nothing more reaches a holder that the same events revoked.
    if (message.revocations) revocations.apply(message.siteId, message.revocations);
    hub.deliver(message);
    deliverItemEvents(message);
  });
  const tailer = startLogTailer({
    database: context.database,
    notifier: context.notifier,
    logger,
    pollMs: config.SVC_PROJECTION_POLL_MS,
    publish: (messages) => broker.publish(messages),
    leadership: redis ? { redis, cursorKey: `${prefix}:cursor`, retryMs: 1_000 } : undefined,
    hasSessions: () => hub.sessionCount() > 0 || consumerCount > 0,
  });

  function register(siteId: string, consumer: ItemEventConsumer): () => void {
    let forSite = consumers.get(siteId);
    if (!forSite) consumers.set(siteId, (forSite = new Set()));
    forSite.add(consumer);
    consumerCount += 1;
    return () => {
      if (!forSite.delete(consumer)) return;
      consumerCount -= 1;
      if (forSite.size === 0 && consumers.get(siteId) === forSite) consumers.delete(siteId);
    };
  }

  async function itemEvents(siteId: string, collection: string, signal: AbortSignal): Promise<AsyncIterableIterator<ItemEvent>> {
    const buffered: ItemEvent[] = [];
    const waiting: ((result: IteratorResult<ItemEvent>) => void)[] = [];
    let ended = false;
    let overflowing = false;
    const finished: IteratorResult<ItemEvent> = { done: true, value: undefined };

    const consumer: ItemEventConsumer = {
      collection,
      deliver(event) {
        if (ended) return;
        const taker = waiting.shift();
        if (taker) {
          taker({ done: false, value: event });
          return;
        }
        buffered.push(event);
        if (buffered.length <= MAX_BUFFERED_ITEM_EVENTS) return;
        buffered.shift();
        if (!overflowing) logger.warn({ siteId, collection, limit: MAX_BUFFERED_ITEM_EVENTS }, 'an item event consumer fell behind; dropping the oldest');
        overflowing = true;
      },
      end,
    };
    const unregister = register(siteId, consumer);

    function end(): void {
      if (ended) return;
      ended = true;
      unregister();
      signal.removeEventListener('abort', end);
      buffered.length = 0;
      for (const taker of waiting.splice(0)) taker(finished);
    }

    if (signal.aborted) end();
    else signal.addEventListener('abort', end, { once: true });

    const iterator: AsyncIterableIterator<ItemEvent> = {
      next() {
        const event = buffered.shift();
        if (event) return Promise.resolve({ done: false, value: event });
        overflowing = false;
        if (ended) return Promise.resolve(finished);
        return new Promise((resolve) => waiting.push(resolve));
      },
      return() {
        end();
        return Promise.resolve(finished);
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    try {
      // As for an admitted socket: an idle tailer reads the head now and follows from there.
      if (!ended) await tailer.follow();
    } catch (error) {
      end();
      throw error;
    }
    return iterator;
  }

  async function close(): Promise<void> {
    unreport();
    await tailer.stop();
    for (const forSite of [...consumers.values()]) for (const consumer of [...forSite]) consumer.end();
    hub.close();
    await broker.close();
    redis?.disconnect();
  }
  return { hub, tailer, broker, limiter, revocations, itemEvents, close };
}
