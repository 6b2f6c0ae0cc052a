// The one way to open a Redis connection (REDIS_URL): rate limits, realtime fan-out, caches and the
// job queue all use it, each with the options it needs. Redis is optional infrastructure: while it is
// down a command fails at once (no offline queue) or within REDIS_COMMAND_TIMEOUT_MS, never waits for
// it to come back, and the callers fall back to what they do without Redis.
import { Redis, type RedisOptions } from 'ioredis';

export type { Redis } from 'ioredis';

/** The longest a command waits for its answer before it fails. */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;
/** The longest a connection attempt takes before it counts as failed (and is retried). */
export const REDIS_CONNECT_TIMEOUT_MS = 2_000;
/** The longest pause between two reconnection attempts. */
export const REDIS_MAX_RECONNECT_DELAY_MS = 2_000;

export interface CreateRedisOptions extends RedisOptions {
  /** Called on connection errors (ioredis reconnects by itself); without it they are ignored. */
  onError?: (error: Error) => void;
}

/**
 * Opens a client on `url` (redis:// or rediss://). It reconnects on its own with a capped backoff;
 * a connection error never throws out of an event emitter.
 *
 * Unless the caller says otherwise, commands do not queue while the client is disconnected
 * (`enableOfflineQueue: false`) and time out after REDIS_COMMAND_TIMEOUT_MS. Only the commands sent
 * while the very first connection is being made wait for it (still within the command timeout), so
 * that a client used right after it is created does not fail for the few milliseconds a connection
 * takes; from the first ready or failed connection on, nothing queues.
 */
export function createRedis(url: string, options: CreateRedisOptions = {}): Redis {
  const { onError, ...redisOptions } = options;
  const offlineQueueChosen = redisOptions.enableOfflineQueue !== undefined;
  const client = new Redis(url, {
    retryStrategy: (attempt) => Math.min(attempt * 100, REDIS_MAX_RECONNECT_DELAY_MS),
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    ...redisOptions,
  });
  if (!offlineQueueChosen) {
    const settle = () => {
      client.options.enableOfflineQueue = false;
      client.off('ready', settle);
      client.off('error', settle);
    };
    client.on('ready', settle);
    client.on('error', settle);
  }
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

/** 'ok' when the client answers a PING within `timeoutMs`, else 'down' (the health check of a Redis-backed part). */
export async function redisHealth(client: Redis, timeoutMs = REDIS_COMMAND_TIMEOUT_MS): Promise<'ok' | 'down'> {
  if (client.status !== 'ready') return 'down';
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'down'>((resolve) => {
    timer = setTimeout(() => resolve('down'), timeoutMs);
  });
  const ping = client.ping().then(
    (answer) => (answer === 'PONG' ? ('ok' as const) : ('down' as const)),
    () => 'down' as const,
  );
  return Promise.race([ping, timeout]).finally(() => clearTimeout(timer));
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const UNREACHABLE_MESSAGES = [
  "Stream isn't writeable",
  'Connection is closed',
  'Command timed out',
  'Reached the max retries per request limit',
  'Redis not ready',
  'connect ETIMEDOUT',
];

/** Whether `error` says Redis cannot be reached right now (as opposed to a bad command). */
export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = error as { code?: unknown };
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  return UNREACHABLE_MESSAGES.some((text) => error.message.includes(text));
}
