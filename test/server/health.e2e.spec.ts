import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import { createDatabase } from '../../infra/postgres/database.ts';
import { sql } from '../../infra/postgres/sql.ts';
import Fastify from 'fastify';
import { NATS_PROBE_TIMEOUT_MS } from '../../src/modules/cdc/changeFeedRuntime.ts';
import { utilsRoutes } from '../../src/modules/utils/routes.ts';
import type { ServerDeps } from '../../src/server/serverDeps.ts';
import { handleError } from '../../src/server/errorHandler.ts';
import { createFreshDatabaseForFile } from '../support/databases.ts';
import { freePort } from '../support/freePort.ts';
import { startTestService, startTestServiceForFile, type TestService } from '../support/testService.ts';

const packageVersion = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
const service = await startTestServiceForFile();

/**
 * A whole service with NATS_URL, on a database of the file's own: it runs the nats sink's workers,
 * which must not take another file's jobs, and nothing of another file can fail one of its checks.
 */
const natsDatabase = await createFreshDatabaseForFile();
const serviceWithNats = (natsUrl: string): Promise<TestService> => startTestService({ DATABASE_URL: natsDatabase.url, NATS_URL: natsUrl });

function deps(): ServerDeps {
  return { context: service.context, tokens: null as never, sites: null as never, authenticators: [], healthChecks: {} };
}

/**
 * The utils routes alone, on a database at `connectionString`: background parts of other modules
 * would wait on that database too, and are not what is tested here.
 */
async function utilsServerWithDatabaseAt(connectionString: string, options: Partial<Pick<ServerDeps, 'healthChecks'>> & { redisUrl?: string } = {}) {
  const database = createDatabase({ connectionString, poolSize: 1 });
  const app = Fastify();
  app.setErrorHandler(handleError);
  const config = 'redisUrl' in options ? { ...service.context.config, REDIS_URL: options.redisUrl } : service.context.config;
  const context = { ...service.context, database, config };
  await app.register(async (scope) => utilsRoutes(scope, { ...deps(), ...options, context }), { prefix: '/api/v1' });
  return {
    health: () => app.inject({ method: 'GET', url: '/api/v1/utils/health' }),
    async close() {
      await app.close();
      await database.close().catch(() => undefined);
    },
  };
}

describe('GET /utils/health', () => {
  it('answers 200 with every check, the version and the runtime, without a token or a site', async () => {
    const response = await service.request('GET', '/utils/health');
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      status: expect.stringMatching(/^(ok|degraded)$/),
      checks: { database: 'ok', cache: expect.any(String), storage: 'ok', search: expect.any(String), queue: expect.any(String) },
      version: packageVersion,
      runtime: { node: process.version, uptimeSeconds: expect.any(Number) },
    });
    // No NATS_URL, no broker to check.
    expect(response.body.data.checks).not.toHaveProperty('broker');
  });

  it('writes and removes an object in the files’ storage, leaving nothing behind', async () => {
    const response = await service.request('GET', '/utils/health');
    expect(response.body.data.checks.storage).toBe('ok');
    expect(response.body.data.failing).not.toContain('storage');
    const healthFolder = `${service.context.config.dataDir}/objects/_health`;
    if (existsSync(healthFolder)) expect(readdirSync(healthFolder)).toEqual([]);
  });

  it('answers 503 naming storage when the storage write probe fails', async () => {
    const server = await utilsServerWithDatabaseAt(inject('databaseUrl'), {
      healthChecks: { storage: { run: () => Promise.reject(new Error('the bucket refuses writes')) } },
    });
    try {
      const response = await server.health();
      expect(response.statusCode).toBe(503);
      expect(response.json().data).toMatchObject({ status: 'error', checks: { database: 'ok', storage: 'unwritable' }, failing: ['storage'] });
    } finally {
      await server.close();
    }
  });

  it('answers 200 degraded when only checks registered as degradable fail, and 503 when another registered check fails', async () => {
    const degradable = await utilsServerWithDatabaseAt(inject('databaseUrl'), {
      healthChecks: { partner: { run: async () => 'down', degradable: true }, mirror: { run: () => Promise.reject(new Error('gone')), degradable: true } },
    });
    const required = await utilsServerWithDatabaseAt(inject('databaseUrl'), { healthChecks: { ledger: { run: async () => 'down' } } });
    try {
      const degraded = await degradable.health();
      expect(degraded.statusCode).toBe(200);
      expect(degraded.json().data).toMatchObject({ status: 'degraded', checks: { database: 'ok', partner: 'down', mirror: 'error' }, failing: ['partner', 'mirror'] });
      const broken = await required.health();
      expect(broken.statusCode).toBe(503);
      expect(broken.json().data).toMatchObject({ status: 'error', checks: { ledger: 'down' }, failing: ['ledger'] });
    } finally {
      await degradable.close();
      await required.close();
    }
  });

  it('answers 503 naming the queue when a due job has waited past the stall limit with no worker taking it (PostgreSQL queue)', async () => {
    const fresh = await createFreshDatabaseForFile();
    const server = await utilsServerWithDatabaseAt(fresh.url, { redisUrl: undefined });
    try {
      const before = await server.health();
      expect(before.json().data.checks.queue).toBe('ok');
      await fresh.owner.query(sql`
        INSERT INTO job_queue (queue, key, payload, run_at) VALUES ('health-test', 'stuck', '{}'::jsonb, now() - interval '10 minutes')`);
      const response = await server.health();
      expect(response.statusCode).toBe(503);
      expect(response.json().data).toMatchObject({ status: 'error', checks: { database: 'ok', queue: 'stalled' }, failing: ['queue'] });
    } finally {
      await server.close();
    }
  });

  it('answers 503 with status error when the database refuses connections', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));

    const server = await utilsServerWithDatabaseAt(`postgres://svc@127.0.0.1:${port}/none`);
    const response = await server.health();
    await server.close();
    expect(response.statusCode).toBe(503);
    expect(response.json().data).toMatchObject({ status: 'error', checks: { database: 'unreachable' }, version: packageVersion });
  });

  it('answers 503 in bounded time when the database accepts a connection but never answers', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const server = await utilsServerWithDatabaseAt(`postgres://svc@127.0.0.1:${port}/none`);
    try {
      const started = Date.now();
      const response = await server.health();
      expect(response.statusCode).toBe(503);
      expect(response.json().data).toMatchObject({ status: 'error', checks: { database: 'unreachable' } });
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      // The pool still waits for the silent server; cut it off so the pool can end.
      for (const socket of sockets) socket.destroy();
      silent.close();
      await server.close();
    }
  });
});

describe('GET /utils/health with NATS_URL', () => {
  it('answers broker ok when the NATS server answers, with JetStream', async () => {
    const withNats = await serviceWithNats(process.env.NATS_URL ?? 'nats://127.0.0.1:4222');
    try {
      const response = await withNats.request('GET', '/utils/health');
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({ status: 'ok', checks: { database: 'ok', storage: 'ok', broker: 'ok' }, failing: [] });
    } finally {
      await withNats.close();
    }
  });

  it('answers 200 degraded naming the broker, promptly, when nothing listens at NATS_URL', async () => {
    const withNats = await serviceWithNats(`nats://127.0.0.1:${await freePort()}`);
    try {
      const started = Date.now();
      const response = await withNats.request('GET', '/utils/health');
      const tookMs = Date.now() - started;
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({ status: 'degraded', checks: { database: 'ok', storage: 'ok', broker: 'down' }, failing: ['broker'] });
      // The refused connection is the answer: the probe did not wait for its timeout.
      expect(tookMs).toBeLessThan(NATS_PROBE_TIMEOUT_MS);
    } finally {
      await withNats.close();
    }
  });
});

describe('GET /utils/version', () => {
  it('answers the service version and API version', async () => {
    const response = await service.request('GET', '/utils/version');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ version: packageVersion, api: 1, node: process.version, startedAt: expect.any(String) });
    expect(Number.isNaN(Date.parse(response.body.data.startedAt))).toBe(false);
  });
});
