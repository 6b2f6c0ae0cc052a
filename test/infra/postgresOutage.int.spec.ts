// PostgreSQL stopped under a running service, on a server of its own (the embedded PostgreSQL on a
// free port and a temporary data dir; never the shared one on 5432): requests answer 503
// SERVICE_UNAVAILABLE with Retry-After at once, the health answer is 503 naming the database, the
// reconnect failures of the background parts are logged once per interval, and the service serves
// again when PostgreSQL is back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../infra/postgres/embedded.ts';
import { createContext, createLogger } from '../../src/boot/boot.ts';
import type { AppContext } from '../../src/runtime/context.ts';
import { buildServer } from '../../src/server/app.ts';
import { until } from '../modules/cdc/support.ts';
import { freePort } from '../support/freePort.ts';
import { INSTANCE_TOKEN, testConfig } from '../support/testService.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'svc-pg-outage-'));
const lines: { level: number; msg: string; suppressed?: number }[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line));
    done();
  },
});

let port: number;
let postgres: EmbeddedServer | null = null;
let context: AppContext | null = null;
let server: FastifyInstance | null = null;
let url = '';

async function request(method: string, path: string, options: { token?: string; site?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.site) headers['x-svc-site'] = options.site;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const started = Date.now();
  const response = await fetch(`${url}/api/v1${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null, ms: Date.now() - started };
}

beforeAll(async () => {
  port = await freePort();
  postgres = await startEmbeddedPostgres(dataDir, { port });
  const config = testConfig({ DATABASE_URL: postgres.connectionString, LOG_LEVEL: 'warn', SVC_PROJECTION_POLL_MS: '100' });
  context = await createContext(config, { logger: createLogger(config, logStream) });
  server = await buildServer(context);
  url = await server.listen({ host: '127.0.0.1', port: 0 });
}, 180_000);

afterAll(async () => {
  await server?.close();
  await context?.close();
  await postgres?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('PostgreSQL stopped and started under a running service', () => {
  const siteId = `pg-outage-${process.pid}`;
  let adminToken = '';

  it('serves while PostgreSQL runs', async () => {
    const created = await request('POST', '/instance/sites', { token: INSTANCE_TOKEN, body: { id: siteId, adminEmail: 'admin@outage.test', adminPassword: 'correct horse battery staple' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const login = await request('POST', '/auth/login', { site: siteId, body: { email: 'admin@outage.test', password: 'correct horse battery staple' } });
    expect(login.status).toBe(200);
    adminToken = login.body.data.token;
    expect((await request('GET', '/roles', { site: siteId, token: adminToken })).status).toBe(200);
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After at once, and a 503 health naming the database', { timeout: 120_000 }, async () => {
    await postgres!.stop();
    const linesBefore = lines.length;
    const outageStarted = Date.now();

    for (let attempt = 0; attempt < 20; attempt += 1) {
      const answer = await request('GET', '/roles', { site: siteId, token: adminToken });
      // Before: 500 INTERNAL.
      expect(answer.status, JSON.stringify(answer.body)).toBe(503);
      expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(answer.body.errors[0]).toMatchObject({ code: 'SERVICE_UNAVAILABLE', extensions: { dependency: 'database' } });
      expect(answer.ms).toBeLessThan(6_000);
    }
    const health = await request('GET', '/utils/health');
    expect(health.status).toBe(503);
    expect(health.body.data).toMatchObject({ status: 'error', checks: { database: 'unreachable', search: 'unreachable' } });
    expect(health.ms).toBeLessThan(3_000);

    // Let the background parts (projection daemon, LISTEN connection, field index builder) retry a while.
    await until(async () => Date.now() - outageStarted, (elapsed) => elapsed > 5_000, 10_000);
    const outageLines = lines.slice(linesBefore);
    const byMessage = new Map<string, number>();
    for (const line of outageLines) byMessage.set(line.msg, (byMessage.get(line.msg) ?? 0) + 1);
    // Once per message per 30 s: a handful of lines, not one per retry and per request.
    for (const [message, count] of byMessage) expect(count, `${message}: ${count} lines`).toBeLessThanOrEqual(2);
    expect(outageLines.length).toBeLessThan(20);
  });

  it('serves again when PostgreSQL is back', { timeout: 120_000 }, async () => {
    postgres = await startEmbeddedPostgres(dataDir, { port });
    const health = await until(
      () => request('GET', '/utils/health'),
      (answer) => answer.status === 200,
      30_000,
    );
    expect(health.body.data.checks.database).toBe('ok');
    const roles = await until(
      () => request('GET', '/roles', { site: siteId, token: adminToken }),
      (answer) => answer.status === 200,
      30_000,
    );
    expect(roles.status).toBe(200);
  });
});
