// Picks the job queue: BullMQ on REDIS_URL, the Postgres-backed in-process queue otherwise.
import type { Logger } from 'pino';
import type { Database } from '../postgres/database.ts';
import { createBullmqJobQueue } from './bullmqJobQueue.ts';
import type { JobQueue } from './jobQueue.ts';
import { createPostgresJobQueue } from './postgresJobQueue.ts';

export function createJobQueue(options: { redisUrl: string | undefined; namespace: string; database: Database; logger: Logger }): JobQueue {
  if (options.redisUrl) return createBullmqJobQueue({ redisUrl: options.redisUrl, namespace: options.namespace, logger: options.logger });
  return createPostgresJobQueue({ database: options.database, logger: options.logger });
}
