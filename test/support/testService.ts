// A real running service for a test file: real PostgreSQL, real HTTP on a free port.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { afterAll, inject } from 'vitest';
import { loadConfig, type Config } from '../../src/config/config.ts';
import { createContext } from '../../src/boot/boot.ts';
import type { AppContext } from '../../src/runtime/context.ts';
import { buildServer } from '../../src/server/app.ts';

export const INSTANCE_TOKEN = 'test-instance-token-0123456789';

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is (for malformed bodies). */
  rawBody?: string;
  token?: string | null;
  site?: string | null;
  headers?: Record<string, string>;
}

export interface TestService {
  url: string;
  context: AppContext;
  server: FastifyInstance;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  close(): Promise<void>;
}

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PORT: '0',
    DATABASE_URL: inject('databaseUrl'),
    SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-test-data-')),
    SVC_SECRET: 'test-secret-that-is-long-enough-0123456789',
    SVC_INSTANCE_TOKEN: INSTANCE_TOKEN,
    SVC_PROJECTION_POLL_MS: '200',
    SVC_DB_POOL_SIZE: '10',
    // Tests tick the scheduler themselves (startScheduler(...).tick(now)); a background tick could take a task's lock first.
    SVC_SCHEDULER_TICK_MS: '3600000',
    // Every test file's service names fresh sites from 127.0.0.1, counted in one shared Redis: the
    // site-lookup limit is tested on its own (test/server/siteResolution.e2e.spec.ts).
    SVC_RATE_LIMIT_SITE_LOOKUP: '0',
    ...overrides,
  });
}

/** `logger` replaces the service's own (a test that reads the log lines passes one writing to it). */
export async function startTestService(overrides: Record<string, string> = {}, options: { logger?: Logger; port?: number } = {}): Promise<TestService> {
  const context = await createContext(testConfig(overrides), options.logger ? { logger: options.logger } : {});
  const server = await buildServer(context);
  // A given port: a test that restarts the service where its clients reconnect.
  const address = await server.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  return {
    url: address,
    context,
    server,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.site) headers['x-svc-site'] = options.site;
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      let body: string | undefined;
      if (options.rawBody !== undefined) {
        body = options.rawBody;
        headers['content-type'] ??= 'application/json';
      } else if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] = 'application/json';
      }
      const response = await fetch(`${address}/api/v1${path}`, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, headers: response.headers, body: parsed as any };
    },
    async close() {
      await server.close();
      await context.close();
    },
  };
}

/**
 * Starts a service for the test file that calls it (at its top level, with `await`) and closes it
 * after the file's last test.
 */
export async function startTestServiceForFile(overrides: Record<string, string> = {}, options: { logger?: Logger } = {}): Promise<TestService> {
  const service = await startTestService(overrides, options);
  afterAll(() => service.close());
  return service;
}

export function uniqueSiteId(prefix = 't'): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}

export interface TestSite {
  siteId: string;
  adminEmail: string;
  adminPassword: string;
  adminToken: string;
  adminUserId: string;
}

/** Creates a fresh site through the instance API and signs its administrator in. */
export async function createTestSite(service: TestService, prefix = 't'): Promise<TestSite> {
  const siteId = uniqueSiteId(prefix);
  const adminEmail = `admin@${siteId}.test`;
  const adminPassword = 'correct horse battery staple';
  const created = await service.request('POST', '/instance/sites', { token: INSTANCE_TOKEN, body: { id: siteId, adminEmail, adminPassword } });
  if (created.status !== 201) throw new Error(`site creation failed: ${created.status} ${JSON.stringify(created.body)}`);
  const login = await service.request('POST', '/auth/login', { site: siteId, body: { email: adminEmail, password: adminPassword } });
  if (login.status !== 200) throw new Error(`admin login failed: ${login.status} ${JSON.stringify(login.body)}`);
  return { siteId, adminEmail, adminPassword, adminToken: login.body.data.token, adminUserId: login.body.data.user.id };
}
