// Rate limits of the auth endpoints through the real service: in memory (no REDIS_URL) and in the
// shared Redis (two instances count together). A Redis outage is in rateLimit.int.spec.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../../infra/redis/redis.ts';
import { createTestSite, startTestService, type TestService } from '../../support/testService.ts';

const SHARED_REDIS = 'redis://127.0.0.1:6379';

function wrongLogin(service: TestService, siteId: string, ip?: string) {
  return service.request('POST', '/auth/login', {
    site: siteId,
    body: { email: 'nobody@example.test', password: 'wrong password' },
    headers: ip ? { 'x-forwarded-for': ip } : {},
  });
}

describe('auth rate limit in memory', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ SVC_RATE_LIMIT_AUTH: '3', SVC_TRUST_PROXY: 'true' });
  });
  afterAll(async () => service?.close());

  it('counts auth requests per client IP and site, with headers, then answers 429 RATE_LIMITED with Retry-After', async () => {
    const site = await createTestSite(service);
    const ip = '203.0.113.7';
    const before = Math.floor(Date.now() / 1000);
    const remaining: string[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const response = await wrongLogin(service, site.siteId, ip);
      expect(response.status).toBe(401);
      expect(response.headers.get('x-ratelimit-limit')).toBe('3');
      remaining.push(response.headers.get('x-ratelimit-remaining')!);
      const reset = Number(response.headers.get('x-ratelimit-reset'));
      expect(reset).toBeGreaterThanOrEqual(before + 59);
      expect(reset).toBeLessThanOrEqual(before + 61);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const limited = await wrongLogin(service, site.siteId, ip);
    expect(limited.status).toBe(429);
    expect(limited.body.errors[0]).toMatchObject({ code: 'RATE_LIMITED' });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    // Every auth endpoint shares the counter; a correct password does not get through either.
    const register = await service.request('POST', '/auth/register', {
      site: site.siteId,
      body: { email: `r@${site.siteId}.test`, password: 'long enough 1' },
      headers: { 'x-forwarded-for': ip },
    });
    expect(register.status).toBe(429);
    const login = await service.request('POST', '/auth/login', {
      site: site.siteId,
      body: { email: site.adminEmail, password: site.adminPassword },
      headers: { 'x-forwarded-for': ip },
    });
    expect(login.status).toBe(429);

    // Another client, and another site, have their own counters.
    expect((await wrongLogin(service, site.siteId, '203.0.113.8')).status).toBe(401);
    const other = await createTestSite(service);
    expect((await wrongLogin(service, other.siteId, ip)).status).toBe(401);
  });

  it('leaves routes without a rate-limit flag alone', async () => {
    const site = await createTestSite(service);
    const me = await service.request('GET', '/auth/me', { site: site.siteId, token: site.adminToken });
    expect(me.status).toBe(200);
    expect(me.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('auth rate limit in Redis', () => {
  let first: TestService;
  let second: TestService;
  beforeAll(async () => {
    first = await startTestService({ REDIS_URL: SHARED_REDIS, SVC_RATE_LIMIT_AUTH: '4', SVC_TRUST_PROXY: 'true' });
    second = await startTestService({ REDIS_URL: SHARED_REDIS, SVC_RATE_LIMIT_AUTH: '4', SVC_TRUST_PROXY: 'true' });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it('is shared by every instance, and the window expires in Redis', async () => {
    const site = await createTestSite(first);
    const ip = `198.51.100.${Math.floor(Math.random() * 200) + 1}`;
    const statuses: number[] = [];
    for (const service of [first, second, first, second, first]) {
      statuses.push((await wrongLogin(service, site.siteId, ip)).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    const limited = await wrongLogin(second, site.siteId, ip);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);

    const redis = createRedis(SHARED_REDIS);
    try {
      const ttl = await redis.pttl(`svc:rl:auth:${site.siteId}:ip:${ip}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      expect(Number(await redis.get(`svc:rl:auth:${site.siteId}:ip:${ip}`))).toBe(6);
    } finally {
      redis.disconnect();
    }
  });
});
