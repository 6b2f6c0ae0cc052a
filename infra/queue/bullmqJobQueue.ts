// The job queue on BullMQ (REDIS_URL): a key is a BullMQ job id, so a waiting or delayed key is not
// queued twice. "Enqueued while running" is a Redis flag the worker checks when the run completes.
import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { createRedis, type Redis } from '../redis/redis.ts';
import { errorRetryDelayMs, type JobHandler, type JobQueue } from './jobQueue.ts';

const RERUN_FLAG_TTL_SECONDS = 86_400;

/** BullMQ refuses ':' in queue names and job ids. */
function safe(name: string): string {
  return name.replaceAll(':', '|');
}

export function createBullmqJobQueue(options: { redisUrl: string; namespace: string; logger: Logger }): JobQueue {
  const { logger } = options;
  const prefix = `svc-${options.namespace}`;
  const onError = (error: Error) => logger.warn({ err: error }, 'job queue Redis connection error');
  const commands: Redis = createRedis(options.redisUrl, { maxRetriesPerRequest: null, onError });
  const queues = new Map<string, Queue>();
  const workers: Worker[] = [];
  const workerConnections: Redis[] = [];

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

  return {
    kind: 'bullmq',
    async enqueue(name, key, payload, enqueueOptions = {}) {
      await commands.set(rerunFlag(name, key), '1', 'EX', RERUN_FLAG_TTL_SECONDS);
      const job = await add(name, key, payload, Math.max(0, Math.round(enqueueOptions.delayMs ?? 0)));
      const wantsNow = enqueueOptions.promote === true || (enqueueOptions.delayMs ?? 0) <= 0;
      if (wantsNow && (await job.isDelayed().catch(() => false))) {
        // An earlier delay (a backoff) is kept unless the caller asks for now explicitly.
        if (enqueueOptions.promote) await job.promote().catch(() => undefined);
      }
    },
    process(name, handler, processOptions) {
      const connection = createRedis(options.redisUrl, { maxRetriesPerRequest: null, onError });
      workerConnections.push(connection);
      const worker = new Worker(
        safe(name),
        async (job, token) => {
          await commands.del(rerunFlag(name, job.id ?? ''));
          let outcome: Awaited<ReturnType<JobHandler<unknown>>>;
          try {
            outcome = await (handler as JobHandler<unknown>)(job.data);
          } catch (error) {
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
      await Promise.allSettled(workers.map((worker) => worker.close()));
      await Promise.allSettled([...queues.values()].map((queue) => queue.close()));
      for (const connection of [...workerConnections, commands]) connection.disconnect();
    },
  };
}
