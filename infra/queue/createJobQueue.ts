// Picks the job queue: BullMQ on REDIS_URL, the Postgres-backed in-process queue otherwise, and
// reports its depth and runs to the metrics until it closes.
import type { Logger } from 'pino';
import type { Metrics } from '../metrics/metrics.ts';
import type { Database } from '../postgres/database.ts';
import { createBullmqJobQueue } from './bullmqJobQueue.ts';
import type { JobQueue } from './jobQueue.ts';
import { createPostgresJobQueue } from './postgresJobQueue.ts';

export function createJobQueue(options: { redisUrl: string | undefined; namespace: string; database: Database; logger: Logger; metrics: Metrics }): JobQueue {
  const queue = options.redisUrl
    ? createBullmqJobQueue({ redisUrl: options.redisUrl, namespace: options.namespace, logger: options.logger })
    : createPostgresJobQueue({ database: options.database, logger: options.logger });
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
    close: async () => {
      for (const stop of unreport) stop();
      await queue.close();
    },
  };
}
