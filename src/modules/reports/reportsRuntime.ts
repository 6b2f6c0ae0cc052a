// The compliance reports' background part, started by the area's manifest (src/modules/index.ts) and
// stopped with the context: the object storage the files are streamed to, and the report queue with
// its worker (BullMQ with REDIS_URL, else the PostgreSQL-backed queue). One report at a time per
// instance: a report reads the whole period of the log.
import { createJobQueue } from '../../../infra/queue/createJobQueue.ts';
import { deploymentNamespace } from '../../../infra/queue/deploymentNamespace.ts';
import type { JobQueue } from '../../../infra/queue/jobQueue.ts';
import { createObjectStorage } from '../../../infra/storage/createObjectStorage.ts';
import type { ObjectStorage } from '../../../infra/storage/objectStorage.ts';
import type { AppContext } from '../../runtime/context.ts';
import { generateReport } from './generateReport.ts';

const REPORT_QUEUE = 'compliance-report';
const REPORT_CONCURRENCY = 1;

export interface ReportsRuntime {
  storage: ObjectStorage;
  queue: JobQueue;
  enqueue(siteId: string, reportId: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startReportsRuntime(context: AppContext): Promise<ReportsRuntime> {
  const { config } = context;
  const storage = createObjectStorage(config);
  const queue = await createJobQueue({
    redisUrl: config.REDIS_URL,
    namespace: deploymentNamespace(config),
    database: context.database,
    logger: context.logger,
    metrics: context.metrics,
  });
  queue.process<{ siteId: string; reportId: string }>(
    REPORT_QUEUE,
    async ({ siteId, reportId }) => {
      await generateReport(context, storage, siteId, reportId);
    },
    { concurrency: REPORT_CONCURRENCY },
  );
  return {
    storage,
    queue,
    enqueue: (siteId, reportId) => queue.enqueueRecorded(REPORT_QUEUE, `${siteId}:${reportId}`, { siteId, reportId }),
    async stop() {
      await queue.close();
    },
  };
}
