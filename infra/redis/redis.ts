// The one way to open a Redis connection (REDIS_URL): rate limits, realtime fan-out, caches and the
// job queue all use it, each with the options it needs.
import { Redis, type RedisOptions } from 'ioredis';

export type { Redis } from 'ioredis';

export interface CreateRedisOptions extends RedisOptions {
  /** Called on connection errors (ioredis reconnects by itself); without it they are ignored. */
  onError?: (error: Error) => void;
}

/**
 * Opens a client on `url` (redis:// or rediss://). It reconnects on its own with a capped backoff;
 * a connection error never throws out of an event emitter.
 */
export function createRedis(url: string, options: CreateRedisOptions = {}): Redis {
  const { onError, ...redisOptions } = options;
  const client = new Redis(url, {
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    ...redisOptions,
  });
  client.on('error', (error: Error) => onError?.(error));
  return client;
}

/** Resolves once the client is ready, or rejects after `timeoutMs`. */
export function redisReady(client: Redis, timeoutMs = 5_000): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      reject(new Error(`Redis not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    function onReady() {
      clearTimeout(timer);
      resolve();
    }
    client.once('ready', onReady);
  });
}
