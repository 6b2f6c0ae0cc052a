// Health and version. The health answer runs a real check of each part, each within
// HEALTH_CHECK_TIMEOUT_MS: the database is required (503 `status: error` when it fails); Redis backs
// the shared cache and, when REDIS_URL is set, the job queue, and its outage only degrades the
// service (in-process cache, local fan-out, fail-open rate limits), so it answers 200 `degraded`
// with the part named `down`.
import { accessSync, constants } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { sql } from '../../../infra/postgres/sql.ts';
import { createRedis, redisHealth } from '../../../infra/redis/redis.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';

/** A check that hangs (a database behind a dead network path) must not hang the health answer. */
const HEALTH_CHECK_TIMEOUT_MS = 2_000;

export async function utilsRoutes(app: FastifyInstance, { context, healthChecks }: ServerDeps): Promise<void> {
  const runtime = { node: process.version, platform: process.platform, uptimeSeconds: 0 };
  const { config } = context;
  // Its own connection, so that the answer says whether Redis answers now, not what a busy client last saw.
  const redis = config.REDIS_URL ? createRedis(config.REDIS_URL, { retryStrategy: () => 1_000 }) : null;
  if (redis) context.onClose(async () => redis.disconnect());
  const redisCheck = async () => (redis ? redisHealth(redis, HEALTH_CHECK_TIMEOUT_MS) : 'ok');

  app.get('/utils/health', { config: { access: 'public' }, schema: { tags: ['utils'] } }, async (_request, reply) => {
    const database = await check(context.database.query(sql`SELECT 1`).then(() => 'ok'), 'unreachable');
    const [cache, search, queue] = await Promise.all([
      // Without REDIS_URL the cache is in process and cannot be down.
      check(redisCheck(), 'down'),
      // The search index is a read model in PostgreSQL.
      database === 'ok' ? check(context.database.query(sql`SELECT 1 FROM search_documents LIMIT 1`).then(() => 'ok'), 'error') : 'unreachable',
      // BullMQ on Redis with REDIS_URL, else jobs are kept in PostgreSQL.
      config.REDIS_URL ? check(redisCheck(), 'down') : database,
    ]);
    const checks: Record<string, string> = { database, cache, storage: storageCheck(config.dataDir), search, queue };
    for (const [name, extra] of Object.entries(healthChecks)) checks[name] = await check(extra(), 'error');
    const healthy = Object.values(checks).every((value) => value === 'ok');
    const status = database !== 'ok' ? 'error' : healthy ? 'ok' : 'degraded';
    return reply.status(database === 'ok' ? 200 : 503).send({
      data: { status, checks, version: context.version, runtime: { ...runtime, uptimeSeconds: Math.round(process.uptime()) } },
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

function storageCheck(directory: string): string {
  try {
    accessSync(directory, constants.W_OK);
    return 'ok';
  } catch {
    return 'unwritable';
  }
}
