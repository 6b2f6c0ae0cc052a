// The rate-limit hook on a bare Fastify app: per-user scopes (items read and write), custom rules,
// both stores, and a Redis store that loses and regains its server.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRedis, redisReady, type Redis } from '../../../infra/redis/redis.ts';
import { createRateLimiting } from '../../../src/rateLimit/rateLimitHook.ts';
import { createMemoryStore, createRedisStore, RateLimitStoreUnavailable, type RateLimitStore } from '../../../src/rateLimit/rateLimitStore.ts';
import type { Principal } from '../../../src/auth/principal.ts';
import { handleError } from '../../../src/server/errorHandler.ts';
import { testConfig } from '../../support/testService.ts';
import { startPrivateRedis, type PrivateRedis } from './support/redisServer.ts';

const silent = { warn: () => undefined };

/** A bare app with the hook; without `store`, the one the environment selects (REDIS_URL or memory). */
async function appWith(store: RateLimitStore | undefined, environment: Record<string, string> = {}): Promise<FastifyInstance> {
  const config = testConfig({ SVC_RATE_LIMIT_ITEMS_WRITE: '2', SVC_RATE_LIMIT_ITEMS_READ: '3', SVC_RATE_LIMIT_AI_CHAT: '0', ...environment });
  const limiting = createRateLimiting({ config, logger: silent, store });
  const app = Fastify();
  app.setErrorHandler(handleError);
  app.decorateRequest('siteId', '');
  app.decorateRequest('principal', null as never);
  app.addHook('onRequest', async (request) => {
    request.siteId = String(request.headers['x-site'] ?? 'site-a');
    const user = request.headers['x-user'];
    request.principal = (
      typeof user === 'string'
        ? { kind: 'user', userId: user, roleId: null, admin: false, sessionId: null, via: 'session', realm: 'studio' }
        : { kind: 'anonymous' }
    ) satisfies Principal;
  });
  app.addHook('onRequest', limiting.onRequest);
  app.post('/items', { config: { rateLimit: 'itemsWrite' } }, async () => ({ ok: true }));
  app.get('/items', { config: { rateLimit: 'itemsRead' } }, async () => ({ ok: true }));
  app.post('/chat', { config: { rateLimit: 'aiChat' } }, async () => ({ ok: true }));
  app.get('/health', async () => ({ ok: true }));
  app.get('/deliver', { config: { rateLimit: { name: 'delivery', limit: 1, per: 'ip' } } }, async () => ({ ok: true }));
  app.addHook('onClose', () => limiting.close());
  await app.ready();
  return app;
}

const stores: [string, () => RateLimitStore][] = [
  ['memory', () => createMemoryStore()],
  ['redis', () => createRedisStore(createRedis('redis://127.0.0.1:6379', { enableOfflineQueue: false }), { keyPrefix: `svc:rl:test:${randomUUID()}:` })],
];

describe.each(stores)('rate-limit hook with the %s store', (_name, makeStore) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await appWith(makeStore());
  });
  afterAll(async () => app?.close());

  it('limits item writes per user, leaving other users and reads their own budget', async () => {
    const write = (user: string) => app.inject({ method: 'POST', url: '/items', headers: { 'x-user': user } });
    expect((await write('u1')).statusCode).toBe(200);
    expect((await write('u1')).statusCode).toBe(200);
    const limited = await write('u1');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().errors[0].code).toBe('RATE_LIMITED');
    expect(limited.headers['x-ratelimit-limit']).toBe('2');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await write('u2')).statusCode).toBe(200);
    const read = await app.inject({ method: 'GET', url: '/items', headers: { 'x-user': 'u1' } });
    expect(read.statusCode).toBe(200);
    expect(read.headers['x-ratelimit-limit']).toBe('3');
    expect(read.headers['x-ratelimit-remaining']).toBe('2');
    // The same user id on another site has its own counter.
    expect((await app.inject({ method: 'POST', url: '/items', headers: { 'x-user': 'u1', 'x-site': 'site-b' } })).statusCode).toBe(200);
  });

  it('counts anonymous callers of a per-user scope by IP', async () => {
    const read = () => app.inject({ method: 'GET', url: '/items', remoteAddress: '10.9.8.7' });
    expect((await read()).statusCode).toBe(200);
    expect((await read()).statusCode).toBe(200);
    expect((await read()).statusCode).toBe(200);
    expect((await read()).statusCode).toBe(429);
  });

  it('applies custom rules, and a limit of 0 disables a scope', async () => {
    expect((await app.inject({ method: 'GET', url: '/deliver', remoteAddress: '10.1.1.1' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/deliver', remoteAddress: '10.1.1.1' })).statusCode).toBe(429);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const chat = await app.inject({ method: 'POST', url: '/chat', headers: { 'x-user': 'u1' } });
      expect(chat.statusCode).toBe(200);
      expect(chat.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });
});

describe('memory store windows', () => {
  afterEach(() => vi.useRealTimers());

  it('starts a new window once the previous one ends', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
    const store = createMemoryStore();
    expect(await store.hit('k', 60_000)).toEqual({ count: 1, resetAt: Date.parse('2030-01-01T00:01:00Z') });
    vi.setSystemTime(new Date('2030-01-01T00:00:59Z'));
    expect((await store.hit('k', 60_000)).count).toBe(2);
    vi.setSystemTime(new Date('2030-01-01T00:01:00Z'));
    expect(await store.hit('k', 60_000)).toEqual({ count: 1, resetAt: Date.parse('2030-01-01T00:02:00Z') });
    await store.close();
  });
});

describe('Redis store outage', () => {
  it('reports the store unavailable while Redis is down, and works again once it is back', async () => {
    const redis = await startPrivateRedis();
    const client: Redis = createRedis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 500, retryStrategy: () => 50 });
    const store = createRedisStore(client);
    try {
      expect((await store.hit('outage', 60_000)).count).toBe(1);
      await redis.stop();
      await expect(store.hit('outage', 60_000)).rejects.toBeInstanceOf(RateLimitStoreUnavailable);
      await expect(store.hit('outage', 60_000)).rejects.toBeInstanceOf(RateLimitStoreUnavailable);
      await redis.start();
      await redisReady(client, 10_000);
      // A fresh server: the counter starts again.
      expect((await store.hit('outage', 60_000)).count).toBe(1);
    } finally {
      await store.close();
      await redis.stop();
    }
  });
});

describe('the hook when its Redis goes down', () => {
  let redis: PrivateRedis;
  let failOpen: FastifyInstance;
  let failClosed: FastifyInstance;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    failOpen = await appWith(undefined, { REDIS_URL: redis.url });
    failClosed = await appWith(undefined, { REDIS_URL: redis.url, SVC_RATE_LIMIT_FAIL_CLOSED: 'true' });
  });
  afterAll(async () => {
    await failOpen?.close();
    await failClosed?.close();
    await redis?.stop();
  });

  it('fails open by default and answers 503 RATE_LIMIT_UNAVAILABLE when fail-closed', async () => {
    const write = (app: FastifyInstance) => app.inject({ method: 'POST', url: '/items', headers: { 'x-user': 'outage-user' } });
    const upOpen = await write(failOpen);
    expect(upOpen.statusCode).toBe(200);
    expect(upOpen.headers['x-ratelimit-remaining']).toBe('1');
    // Both apps count in the same Redis.
    const upClosed = await write(failClosed);
    expect(upClosed.headers['x-ratelimit-remaining']).toBe('0');

    await redis.stop();

    for (let attempt = 0; attempt < 3; attempt += 1) {
      const downOpen = await write(failOpen);
      expect(downOpen.statusCode).toBe(200);
      expect(downOpen.headers['x-ratelimit-limit']).toBeUndefined();
    }
    const downClosed = await write(failClosed);
    expect(downClosed.statusCode).toBe(503);
    expect(downClosed.json().errors[0].code).toBe('RATE_LIMIT_UNAVAILABLE');
    expect(downClosed.headers['retry-after']).toBe('1');
    // Routes without a limit are not affected.
    expect((await failClosed.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });
});
