// Picks the job queue: BullMQ on REDIS_URL, the Postgres-backed in-process queue otherwise, reports
// its depth and runs to the metrics until it closes, and keeps the jobs of recorded work it could not
// take while Redis was away (enqueueRecorded).
import type { Logger } from 'pino';
import { AppError } from '../../domain/shared/appError.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { Database } from '../postgres/database.ts';
import type { JobQueue, JobQueueCore } from './jobQueue.ts';
import { createPostgresJobQueue } from './postgresJobQueue.ts';

/** Owed jobs kept at most (the oldest is dropped past it, and said so). */
const MAX_OWED = 50_000;
const OWED_RETRY_MS = 1_000;

export async function createJobQueue(options: { redisUrl: string | undefined; namespace: string; database: Database; logger: Logger; metrics: Metrics }): Promise<JobQueue> {
  // BullMQ is imported only with REDIS_URL: an instance without Redis never loads it.
  const queue: JobQueueCore = options.redisUrl
    ? (await import('./bullmqJobQueue.ts')).createBullmqJobQueue({ redisUrl: options.redisUrl, namespace: options.namespace, logger: options.logger })
    : createPostgresJobQueue({ database: options.database, logger: options.logger });
  const { logger } = options;

  // Jobs of recorded work the queue could not take (JobQueue.enqueueRecorded), by queue and key.
  const owed = new Map<string, { queue: string; key: string; payload: unknown }>();
  let retry: ReturnType<typeof setTimeout> | null = null;
  let closed = false;
  const retryLater = () => {
    if (retry || closed || owed.size === 0) return;
    retry = setTimeout(() => void giveOwed(), OWED_RETRY_MS);
    retry.unref();
  };
  async function giveOwed(): Promise<void> {
    retry = null;
    for (const [id, job] of owed) {
      try {
        await queue.enqueue(job.queue, job.key, job.payload);
        owed.delete(id);
      } catch {
        break;
      }
    }
    if (owed.size === 0) logger.info('owed jobs given to the queue');
    retryLater();
  }
  async function enqueueRecorded(name: string, key: string, payload: unknown): Promise<void> {
    try {
      await queue.enqueue(name, key, payload);
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE')) throw error;
      if (owed.size >= MAX_OWED) {
        const [oldest] = owed;
        owed.delete(oldest![0]);
        logger.error({ queue: oldest![1].queue, key: oldest![1].key }, 'owed job dropped: too many while the queue is away');
      }
      owed.set(`${name}\u0000${key}`, { queue: name, key, payload });
      logger.warn({ err: error, queue: name, key }, 'job owed: the queue is away; given again every second');
      retryLater();
    }
  }

  const { metrics } = options;
  const unreport = [
    metrics.sample('svc_queue_jobs', 'Jobs by queue and state (waiting: due or delayed; running)', ['queue', 'state'], async () =>
      (await queue.depth()).flatMap(({ queue: name, waiting, running }) => [
        { labels: { queue: name, state: 'waiting' }, value: waiting },
        { labels: { queue: name, state: 'running' }, value: running },
      ]),
    ),
    metrics.sample(
      'svc_job_runs_total',
      "Job runs on this instance by queue and outcome (completed, failed: the handler threw and the job will be retried)",
      ['queue', 'outcome'],
      () =>
        [...queue.runs].flatMap(([name, counts]) => [
          { labels: { queue: name, outcome: 'completed' }, value: counts.completed },
          { labels: { queue: name, outcome: 'failed' }, value: counts.failed },
        ]),
      'counter',
    ),
  ];
  return {
    ...queue,
    enqueueRecorded,
    close: async () => {
      closed = true;
      if (retry) clearTimeout(retry);
      for (const stop of unreport) stop();
      await queue.close();
    },
  };
}
