// Health and version. The health answer runs a real check of each part, each within
// HEALTH_CHECK_TIMEOUT_MS: a query of the database, a query of the search index, a write and removal
// of a small object in the files' storage (the files area registers it; the data directory without
// it), and the job queue's liveness (Redis answering for BullMQ; on PostgreSQL, no due job left
// unclaimed past QUEUE_STALL_SECONDS). A part the service cannot serve without failing answers 503
// `status: error`; Redis (the shared cache and, with REDIS_URL, the queue) only degrades the service
// (in-process cache, local fan-out, fail-open rate limits, a queue that resumes), so its outage
// answers 200 `degraded`, as does that of a check an area registered as `degradable` (the change
// feed's `broker`, with NATS_URL). Either way `failing` names the checks that are not ok.
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sql } from '../../../infra/postgres/sql.ts';
import { createRedis, redisHealth } from '../../../infra/redis/redis.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';

/** A check that hangs (a database behind a dead network path) must not hang the health answer. */
const HEALTH_CHECK_TIMEOUT_MS = 2_000;
/** The parts every answer checks; a registered check of another name is answered after them. */
const PARTS = new Set(['database', 'cache', 'storage', 'search', 'queue']);
/** A due job that no worker has taken for this long means the PostgreSQL queue's workers are stuck. */
export const QUEUE_STALL_SECONDS = 120;

export async function utilsRoutes(app: FastifyInstance, { context, healthChecks }: ServerDeps): Promise<void> {
  const runtime = { node: process.version, platform: process.platform, uptimeSeconds: 0 };
  const { config } = context;
  // Its own connection, so that the answer says whether Redis answers now, not what a busy client last saw.
  const redis = config.REDIS_URL ? createRedis(config.REDIS_URL, { retryStrategy: () => 1_000 }) : null;
  if (redis) context.onClose(async () => redis.disconnect());
  const redisCheck = async () => (redis ? redisHealth(redis, HEALTH_CHECK_TIMEOUT_MS) : 'ok');
  // Parts whose outage only degrades the service (docs/operations.md, "Health"), besides the
  // registered checks that say so (areas register theirs after these routes: read per request).
  const degradable = new Set(redis ? ['cache', 'queue'] : ['cache']);
  const isDegradable = (name: string) => degradable.has(name) || (healthChecks[name]?.degradable ?? false);

  const postgresQueueCheck = async () => {
    const [row] = await context.database.query<{ stalled: boolean }>(sql`
      SELECT coalesce(min(run_at) < now() - ${`${QUEUE_STALL_SECONDS} seconds`}::interval, false) AS stalled
        FROM job_queue WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())`);
    return row?.stalled ? 'stalled' : 'ok';
  };

  app.get('/utils/health', { config: { access: 'public' }, schema: { tags: ['utils'] } }, async (_request, reply) => {
    // The areas' own checks run alongside the parts' (`storage` is one of the parts).
    const extras = Object.entries(healthChecks).filter(([name]) => !PARTS.has(name));
    const extraAnswers = Promise.all(extras.map(([, extra]) => check(extra.run(), 'error')));
    const database = await check(context.database.query(sql`SELECT 1`).then(() => 'ok'), 'unreachable');
    const up = database === 'ok';
    const [cache, search, queue, storage] = await Promise.all([
      // Without REDIS_URL the cache is in process and cannot be down.
      check(redisCheck(), 'down'),
      // The search index is a read model in PostgreSQL.
      up ? check(context.database.query(sql`SELECT 1 FROM search_documents LIMIT 1`).then(() => 'ok'), 'error') : 'unreachable',
      // BullMQ on Redis with REDIS_URL, else jobs are kept in PostgreSQL.
      config.REDIS_URL ? check(redisCheck(), 'down') : up ? check(postgresQueueCheck(), 'error') : 'unreachable',
      check(healthChecks.storage?.run() ?? probeDirectory(config.dataDir), 'unwritable'),
    ]);
    const checks: Record<string, string> = { database, cache, storage, search, queue };
    const answers = await extraAnswers;
    extras.forEach(([name], index) => {
      checks[name] = answers[index]!;
    });
    const failing = Object.keys(checks).filter((name) => checks[name] !== 'ok');
    const broken = failing.some((name) => !isDegradable(name));
    const status = broken ? 'error' : failing.length > 0 ? 'degraded' : 'ok';
    return reply.status(broken ? 503 : 200).send({
      data: { status, checks, failing, version: context.version, runtime: { ...runtime, uptimeSeconds: Math.round(process.uptime()) } },
    });
  });

  app.get('/utils/version', { config: { access: 'public' }, schema: { tags: ['utils'] } }, async () => ({
    data: { version: context.version, api: 1, node: process.version, startedAt: context.startedAt.toISOString() },
  }));
}

/** `work`'s value, or `failed` when it fails or takes longer than HEALTH_CHECK_TIMEOUT_MS. */
function check(work: Promise<string>, failed: string): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(failed), HEALTH_CHECK_TIMEOUT_MS);
  });
  return Promise.race([work.catch(() => failed), timeout]).finally(() => clearTimeout(timer));
}

/** Writes and removes a small file in `directory`. */
async function probeDirectory(directory: string): Promise<string> {
  const path = join(directory, `.health-${randomUUID()}`);
  try {
    await writeFile(path, 'ok');
  } finally {
    await rm(path, { force: true });
  }
  return 'ok';
}
