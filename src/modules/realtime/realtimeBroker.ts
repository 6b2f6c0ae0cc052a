// How realtime messages reach every instance: in-process without Redis, Redis pub/sub with it.
import type { Logger } from 'pino';
import { createRedis, type Redis } from '../../../infra/redis/redis.ts';
import type { RealtimeMessage } from './realtimeFrames.ts';

export interface RealtimeBroker {
  /** True when messages cross instances (Redis). */
  readonly distributed: boolean;
  publish(messages: RealtimeMessage[]): Promise<void>;
  subscribe(handler: (message: RealtimeMessage) => void): void;
  close(): Promise<void>;
}

export function createInProcessBroker(): RealtimeBroker {
  const handlers: ((message: RealtimeMessage) => void)[] = [];
  return {
    distributed: false,
    async publish(messages) {
      for (const message of messages) for (const handler of handlers) handler(message);
    },
    subscribe(handler) {
      handlers.push(handler);
    },
    async close() {
      handlers.length = 0;
    },
  };
}

/** The wait before a failed SUBSCRIBE of the channel is sent again. */
export const SUBSCRIBE_RETRY_MS = 250;

/**
 * Redis pub/sub across instances. Never waits for Redis: while it is down (or before it first comes
 * up) messages are handed to this instance's own sessions (local fan-out), and the channel is
 * subscribed again on each reconnection.
 */
export function createRedisBroker(options: { redisUrl: string; channel: string; logger: Logger }): RealtimeBroker {
  const onError = (error: Error) => options.logger.warn({ err: error }, 'realtime Redis connection error');
  const publisher: Redis = createRedis(options.redisUrl, { onError });
  const subscriber: Redis = createRedis(options.redisUrl, { onError, autoResubscribe: false });
  const handlers: ((message: RealtimeMessage) => void)[] = [];
  let subscribed = false;
  const deliverLocally = (messages: RealtimeMessage[]) => {
    for (const message of messages) for (const handler of handlers) handler(message);
  };
  subscriber.on('message', (channel: string, text: string) => {
    if (channel !== options.channel) return;
    let message: RealtimeMessage;
    try {
      message = JSON.parse(text) as RealtimeMessage;
    } catch {
      return;
    }
    deliverLocally([message]);
  });
  // A SUBSCRIBE that fails or times out (the 1 s command timeout, under CPU pressure at boot) is sent
  // again while the connection stays up: until it succeeds this instance fans out locally only, and
  // an instance that publishes without hearing the channel would leave every other one without frames.
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const subscribeChannel = () => {
    subscriber.subscribe(options.channel).then(
      () => {
        subscribed = true;
      },
      (error: unknown) => {
        options.logger.warn({ err: error }, 'realtime broker could not subscribe: trying again');
        if (!closed && subscriber.status === 'ready') retry = setTimeout(subscribeChannel, SUBSCRIBE_RETRY_MS);
      },
    );
  };
  subscriber.on('ready', subscribeChannel);
  subscriber.on('close', () => {
    subscribed = false;
  });
  return {
    distributed: true,
    async publish(messages) {
      if (messages.length === 0) return;
      // Through Redis only when this instance hears the channel back: otherwise its own sessions would miss them.
      if (!subscribed || publisher.status !== 'ready') {
        deliverLocally(messages);
        return;
      }
      const pipeline = publisher.pipeline();
      for (const message of messages) pipeline.publish(options.channel, JSON.stringify(message));
      try {
        const results = await pipeline.exec();
        const failure = results?.find(([error]) => error !== null)?.[0];
        if (failure) throw failure;
      } catch (error) {
        options.logger.warn({ err: error }, 'realtime Redis publish failed: delivering on this instance only');
        deliverLocally(messages);
      }
    },
    subscribe(handler) {
      handlers.push(handler);
    },
    async close() {
      handlers.length = 0;
      closed = true;
      clearTimeout(retry);
      subscriber.disconnect();
      publisher.disconnect();
    },
  };
}
