import { accessSync, constants } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { sql } from '../../../infra/postgres/sql.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';

export async function utilsRoutes(app: FastifyInstance, { context, healthChecks }: ServerDeps): Promise<void> {
  const runtime = { node: process.version, platform: process.platform, uptimeSeconds: 0 };

  app.get('/utils/health', { config: { access: 'public' }, schema: { tags: ['utils'] } }, async (_request, reply) => {
    const checks: Record<string, string> = {
      database: await withTimeout(context.database.query(sql`SELECT 1`), HEALTH_CHECK_TIMEOUT_MS)
        .then(() => 'ok')
        .catch(() => 'unreachable'),
      cache: 'ok',
      storage: storageCheck(context.config.dataDir),
      search: 'ok',
      queue: 'ok',
    };
    for (const [name, check] of Object.entries(healthChecks)) checks[name] = await withTimeout(check(), HEALTH_CHECK_TIMEOUT_MS).catch(() => 'error');
    if (checks.database !== 'ok') checks.search = 'unreachable';
    const healthy = Object.values(checks).every((value) => value === 'ok');
    const status = checks.database !== 'ok' ? 'error' : healthy ? 'ok' : 'degraded';
    return reply.status(checks.database === 'ok' ? 200 : 503).send({
      data: { status, checks, version: context.version, runtime: { ...runtime, uptimeSeconds: Math.round(process.uptime()) } },
    });
  });

  app.get('/utils/version', { config: { access: 'public' }, schema: { tags: ['utils'] } }, async () => ({
    data: { version: context.version, api: 1, node: process.version, startedAt: context.startedAt.toISOString() },
  }));
}

/** A check that hangs (a database behind a dead network path) must not hang the health answer. */
const HEALTH_CHECK_TIMEOUT_MS = 2_000;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function storageCheck(directory: string): string {
  try {
    accessSync(directory, constants.W_OK);
    return 'ok';
  } catch {
    return 'unwritable';
  }
}
