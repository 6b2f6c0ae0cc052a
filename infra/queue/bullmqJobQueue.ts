// The job queue on BullMQ (REDIS_URL): a key is a BullMQ job id, so a waiting or delayed key is not
// queued twice. "Enqueued while running" is a Redis flag the worker checks when the run completes.
// While Redis is down an enqueue fails at once (503 SERVICE_UNAVAILABLE, the caller retries later)
// instead of waiting for Redis: the queue's own connection has no offline queue and a command
// timeout. Workers need `maxRetriesPerRequest: null` (BullMQ refuses anything else for their
// blocking connection); they simply wait for Redis in the background and resume when it is back.
import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { AppError } from '../../domain/shared/appError.ts';
import { createRedis, redisReady, REDIS_COMMAND_TIMEOUT_MS, type Redis } from '../redis/redis.ts';
import { errorRetryDelayMs, runsOf, type EnqueueOptions, type JobHandler, type JobQueueCore, type QueueRuns } from './jobQueue.ts';

const RERUN_FLAG_TTL_SECONDS = 86_400;
/** How long a close waits for BullMQ's own before it cuts the connections. */
const CLOSE_GRACE_MS = 2_000;

/** BullMQ refuses ':' in queue names and job ids. */
function safe(name: string): string {
  return name.replaceAll(':', '|');
}

export function createBullmqJobQueue(options: { redisUrl: string; namespace: string; logger: Logger }): JobQueueCore {
  const { logger } = options;
  const prefix = `svc-${options.namespace}`;
  const onError = (error: Error) => logger.warn({ err: error }, 'job queue Redis connection error');
  const commands: Redis = createRedis(options.redisUrl, { onError });
  const queues = new Map<string, Queue>();
  const workers: Worker[] = [];
  const workerConnections: Redis[] = [];
  const runs = new Map<string, QueueRuns>();

  function queueOf(name: string): Queue {
    let queue = queues.get(name);
    if (!queue) {
      queue = new Queue(safe(name), { connection: commands, prefix });
      queue.on('error', onError);
      queues.set(name, queue);
    }
    return queue;
  }

  function rerunFlag(name: string, key: string): string {
    return `${prefix}:rerun:${safe(name)}:${safe(key)}`;
  }

  async function add(name: string, key: string, payload: unknown, delayMs: number): Promise<Job> {
    return queueOf(name).add(safe(name), payload, {
      jobId: safe(key),
      delay: delayMs > 0 ? delayMs : undefined,
      removeOnComplete: true,
      removeOnFail: true,
      attempts: 1_000,
      backoff: { type: 'exponential', delay: 500 },
    });
  }

  async function enqueueNow(name: string, key: string, payload: unknown, enqueueOptions: EnqueueOptions): Promise<void> {
    await commands.set(rerunFlag(name, key), '1', 'EX', RERUN_FLAG_TTL_SECONDS);
    const job = await add(name, key, payload, Math.max(0, Math.round(enqueueOptions.delayMs ?? 0)));
    const wantsNow = enqueueOptions.promote === true || (enqueueOptions.delayMs ?? 0) <= 0;
    if (wantsNow && (await job.isDelayed().catch(() => false))) {
      // An earlier delay (a backoff) is kept unless the caller asks for now explicitly.
      if (enqueueOptions.promote) await job.promote().catch(() => undefined);
    }
  }

  function unavailable(cause?: unknown): AppError {
    return new AppError('SERVICE_UNAVAILABLE', 'The job queue is unavailable; retry later', {
      extensions: { dependency: 'queue', retryAfter: 5 },
      headers: { 'Retry-After': '5' },
      cause: cause ?? new Error(`Redis not ready (${commands.status})`),
    });
  }

  return {
    kind: 'bullmq',
    runs,
    async depth() {
      return Promise.all(
        [...runs.keys()].map(async (name) => {
          const counts = await queueOf(name).getJobCounts('waiting', 'delayed', 'prioritized', 'active');
          return { queue: name, waiting: (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0), running: counts.active ?? 0 };
        }),
      );
    },
    async enqueue(name, key, payload, enqueueOptions = {}) {
      // BullMQ waits for its connection to be ready without a bound: never hand it a Redis that is down
      // (a client still making its first connection gets the command timeout to make it).
      if (commands.status !== 'ready') await redisReady(commands, REDIS_COMMAND_TIMEOUT_MS).catch((error: unknown) => Promise.reject(unavailable(error)));
      try {
        await enqueueNow(name, key, payload, enqueueOptions);
      } catch (error) {
        throw commands.status === 'ready' ? error : unavailable(error);
      }
    },
    process(name, handler, processOptions) {
      runsOf(runs, name);
      const connection = createRedis(options.redisUrl, { maxRetriesPerRequest: null, enableOfflineQueue: true, commandTimeout: undefined, onError });
      workerConnections.push(connection);
      const worker = new Worker(
        safe(name),
        async (job, token) => {
          await commands.del(rerunFlag(name, job.id ?? ''));
          let outcome: Awaited<ReturnType<JobHandler<unknown>>>;
          try {
            outcome = await (handler as JobHandler<unknown>)(job.data);
            runsOf(runs, name).completed += 1;
          } catch (error) {
            runsOf(runs, name).failed += 1;
            logger.error({ err: error, queue: name, key: job.id }, 'job failed; it will be retried');
            await job.moveToDelayed(Date.now() + errorRetryDelayMs(job.attemptsMade), token);
            throw new DelayedError();
          }
          if (outcome?.retryInMs !== undefined) {
            await job.moveToDelayed(Date.now() + outcome.retryInMs, token);
            throw new DelayedError();
          }
        },
        { connection, prefix, concurrency: processOptions.concurrency },
      );
      worker.on('error', onError);
      worker.on('completed', (job) => {
        // Enqueued while it ran: the add was a no-op then; run it again now that the id is free.
        void (async () => {
          const key = job.id ?? '';
          if ((await commands.get(rerunFlag(name, key))) !== null) await add(name, key, job.data, 0);
        })().catch((error: unknown) => logger.warn({ err: error, queue: name }, 'job queue rerun failed'));
      });
      workers.push(worker);
    },
    async close() {
      // With Redis down no running job can record its end, and a worker's graceful close would wait
      // for a connection that never comes: close by force then. The grace period bounds the rest.
      const force = commands.status !== 'ready';
      const closing = Promise.allSettled([...workers.map((worker) => worker.close(force)), ...[...queues.values()].map((queue) => queue.close())]);
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), CLOSE_GRACE_MS)));
      const outcome = await Promise.race([closing, graceOver]);
      clearTimeout(timer);
      for (const connection of [...workerConnections, commands]) connection.disconnect();
      if (outcome === 'timeout') logger.warn('job queue closed without waiting for BullMQ (Redis unreachable)');
    },
  };
}
