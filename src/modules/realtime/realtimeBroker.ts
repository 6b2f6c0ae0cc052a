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

export async function createRedisBroker(options: { redisUrl: string; channel: string; logger: Logger }): Promise<RealtimeBroker> {
  const onError = (error: Error) => options.logger.warn({ err: error }, 'realtime Redis connection error');
  const publisher: Redis = createRedis(options.redisUrl, { onError });
  const subscriber: Redis = createRedis(options.redisUrl, { onError });
  const handlers: ((message: RealtimeMessage) => void)[] = [];
  subscriber.on('message', (channel: string, text: string) => {
    if (channel !== options.channel) return;
    let message: RealtimeMessage;
    try {
      message = JSON.parse(text) as RealtimeMessage;
    } catch {
      return;
    }
    for (const handler of handlers) handler(message);
  });
  await subscriber.subscribe(options.channel);
  return {
    distributed: true,
    async publish(messages) {
      if (messages.length === 0) return;
      const pipeline = publisher.pipeline();
      for (const message of messages) pipeline.publish(options.channel, JSON.stringify(message));
      await pipeline.exec();
    },
    subscribe(handler) {
      handlers.push(handler);
    },
    async close() {
      handlers.length = 0;
      subscriber.disconnect();
      publisher.disconnect();
    },
  };
}
