// Pageviews over real HTTP and PostgreSQL, with counters in memory (no REDIS_URL) and in Redis: the
// beacon always answers an empty 204, counts only real visitors of real sites, and the flush moves
// the counts into the daily stats, a Redis flush that crashed midway included.
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, type Redis } from '../../../infra/redis/redis.ts';
import { createRedisCounters } from '../../../src/modules/pageviews/redisCounters.ts';
import { flushPageviews, pageviewKeyPrefix, startPageviewService } from '../../../src/modules/pageviews/pageviewService.ts';
import { utcDay } from '../../../src/modules/pageviews/visitorHash.ts';
import { createMember, grant, withHelpers } from '../access/support.ts';
import { createTestSite, INSTANCE_TOKEN, startTestService, uniqueSiteId, type TestService, type TestSite } from '../../support/testService.ts';

const REDIS_URL = 'redis://127.0.0.1:6379';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const RATE_LIMIT = 8;
const BASE_ENV = { SVC_TRUST_PROXY: 'true', SVC_PAGEVIEW_RATE_LIMIT: String(RATE_LIMIT), SVC_PAGEVIEW_FLUSH_SECONDS: '3600' };

interface Visitor {
  ip: string;
  userAgent: string;
}

/** A visitor of its own: a fresh IP (rate-limit counters in Redis outlive a test run) and a browser. */
function visitor(userAgent = BROWSER): Visitor {
  return { ip: `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`, userAgent };
}

interface BeaconOptions {
  body?: string;
  /** null: no Content-Type. */
  contentType?: string | null;
  from?: Visitor;
  headers?: Record<string, string>;
}

async function beacon(service: TestService, siteId: string, options: BeaconOptions = {}): Promise<{ status: number; text: string }> {
  const from = options.from ?? visitor();
  const headers: Record<string, string> = { 'user-agent': from.userAgent, 'x-forwarded-for': from.ip, ...options.headers };
  if (options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json';
  const response = await fetch(`${service.url}/api/v1/pageviews/${siteId}/hit`, { method: 'POST', headers, body: options.body ?? JSON.stringify({ path: '/' }) });
  return { status: response.status, text: await response.text() };
}

/** A counted-looking view: answered 204 with nothing in the body, as every beacon request is. */
async function view(service: TestService, siteId: string, path: string, from: Visitor = visitor(), headers: Record<string, string> = {}): Promise<void> {
  const answer = await beacon(service, siteId, { body: JSON.stringify({ path }), from, headers });
  expect(answer).toEqual({ status: 204, text: '' });
}

async function stats(service: TestService, site: TestSite, query = ''): Promise<{ day: string; views: number; uniques: number }> {
  const today = utcDay(new Date());
  const answer = await service.request('GET', `/pageviews/stats?from=${today}&to=${today}${query}`, { site: site.siteId, token: site.adminToken });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.data[0];
}

const modes = [
  { mode: 'in memory', env: {} as Record<string, string> },
  { mode: 'in Redis', env: { REDIS_URL } as Record<string, string> },
];

describe.each(modes)('pageviews $mode', ({ env }) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ ...BASE_ENV, ...env });
  });
  afterAll(async () => service?.close());

  /** Redis: the exported flush, as a bench or another instance would call it; memory: this instance's own buffer. */
  async function flush(): Promise<void> {
    if (env.REDIS_URL) {
      await flushPageviews(service.context);
      return;
    }
    const answer = await service.request('POST', '/pageviews/flush', { token: INSTANCE_TOKEN });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  }

  it('answers 204 with an empty body to every request, and counts only well-formed hits of known sites', async () => {
    const site = await createTestSite(service);
    const refused: BeaconOptions[] = [
      { body: '{"path": "/', contentType: 'application/json' },
      { body: 'not json', contentType: 'text/plain' },
      { body: JSON.stringify({ page: '/' }) },
      { body: JSON.stringify({ path: 42 }) },
      { body: JSON.stringify(['/']) },
      { body: JSON.stringify({ path: 'relative/page' }) },
      { body: JSON.stringify({ path: `/${'a'.repeat(2_000)}` }) },
      { body: JSON.stringify({ path: '/with\u0000nul' }) },
      { body: 'path=/', contentType: 'application/x-www-form-urlencoded' },
      { body: '', contentType: null },
      { body: JSON.stringify({ path: `/${'x'.repeat(40_000)}` }) },
      { headers: { authorization: 'Bearer not-a-token' } },
    ];
    for (const options of refused.slice(0, -1)) expect(await beacon(service, site.siteId, options)).toEqual({ status: 204, text: '' });
    // Credentials are not read: a bad token neither fails nor stops the hit.
    expect(await beacon(service, site.siteId, refused.at(-1))).toEqual({ status: 204, text: '' });
    // navigator.sendBeacon sends a string as text/plain.
    expect(await beacon(service, site.siteId, { body: JSON.stringify({ path: '/beacon' }), contentType: 'text/plain;charset=UTF-8' })).toEqual({ status: 204, text: '' });
    // Unknown sites and ids that cannot be sites: the same answer, nothing counted.
    for (const unknown of [uniqueSiteId('nobody'), 'NOT A SITE', 'x'.repeat(70)]) {
      expect(await beacon(service, encodeURIComponent(unknown))).toEqual({ status: 204, text: '' });
    }
    await flush();
    expect(await stats(service, site)).toMatchObject({ views: 2, uniques: 2 });
    expect(await stats(service, site, '&path=/beacon')).toMatchObject({ views: 1, uniques: 1 });
  });

  it('does not count bots, Do Not Track or Global Privacy Control', async () => {
    const site = await createTestSite(service);
    const bots = [
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'curl/8.5.0',
      'Wget/1.21',
      'python-requests/2.31.0',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36',
      'Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120 Mobile Safari/537.36 Chrome-Lighthouse',
      'Mozilla/5.0 (compatible; bingbot/2.0)',
      'Screaming Frog SEO Spider/19.0',
      '',
    ];
    for (const userAgent of bots) await view(service, site.siteId, '/', visitor(userAgent));
    await view(service, site.siteId, '/', visitor(), { dnt: '1' });
    await view(service, site.siteId, '/', visitor(), { 'sec-gpc': '1' });
    await view(service, site.siteId, '/', visitor(), { dnt: '0' });
    await flush();
    expect(await stats(service, site)).toMatchObject({ views: 1, uniques: 1 });
  });

  it('counts each visitor once per day and path, across flushes, without the query string', async () => {
    const site = await createTestSite(service);
    const alice = visitor();
    const bob = visitor();
    const aliceOnHerPhone = { ip: alice.ip, userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1' };
    await view(service, site.siteId, '/a', alice);
    await view(service, site.siteId, '/a?utm_source=news#top', alice);
    await view(service, site.siteId, '/b', alice);
    await view(service, site.siteId, '/a', bob);
    await view(service, site.siteId, '/a', aliceOnHerPhone);
    await flush();
    expect(await stats(service, site)).toMatchObject({ views: 5, uniques: 3 });
    expect(await stats(service, site, '&path=/a')).toMatchObject({ views: 4, uniques: 3 });
    expect(await stats(service, site, '&path=/b')).toMatchObject({ views: 1, uniques: 1 });
    expect(await stats(service, site, '&path=/c')).toMatchObject({ views: 0, uniques: 0 });

    await view(service, site.siteId, '/a', alice);
    await view(service, site.siteId, '/b', bob);
    await flush();
    expect(await stats(service, site)).toMatchObject({ views: 7, uniques: 3 });
    expect(await stats(service, site, '&path=/a')).toMatchObject({ views: 5, uniques: 3 });
    expect(await stats(service, site, '&path=/b')).toMatchObject({ views: 2, uniques: 2 });
    // No raw address is stored: only 16-byte hashes.
    const rows = await service.context.database.withSite(site.siteId, (tx) =>
      tx.query<{ hash: Buffer }>({ text: 'SELECT visitor_hash AS hash FROM pageview_uniques WHERE site_id = $1', values: [site.siteId] }),
    );
    expect(rows.length).toBe(3 + 3 + 2);
    for (const { hash } of rows) expect(hash.length).toBe(16);
  });

  it(`counts at most ${RATE_LIMIT} hits per client IP and window, answering 204 past it`, async () => {
    const site = await createTestSite(service);
    const crawler = visitor();
    for (let hit = 0; hit < RATE_LIMIT + 3; hit += 1) await view(service, site.siteId, `/page-${hit}`, crawler);
    await view(service, site.siteId, '/', visitor());
    await flush();
    expect(await stats(service, site)).toMatchObject({ views: RATE_LIMIT + 1, uniques: 2 });
  });

  it("keeps each site's stats to itself", async () => {
    const first = await createTestSite(service);
    const second = await createTestSite(service);
    const someone = visitor();
    await view(service, first.siteId, '/shared', someone);
    await view(service, first.siteId, '/shared', visitor());
    await view(service, second.siteId, '/shared', someone);
    await flush();
    expect(await stats(service, first)).toMatchObject({ views: 2, uniques: 2 });
    expect(await stats(service, second, '&path=/shared')).toMatchObject({ views: 1, uniques: 1 });
    // The second site's administrator cannot read the first site's stats.
    const crossed = await service.request('GET', '/pageviews/stats', { site: first.siteId, token: second.adminToken });
    expect(crossed.status).toBe(401);
  });
});

describe('pageview stats', () => {
  let service: TestService;
  let site: TestSite;
  beforeAll(async () => {
    service = await startTestService(BASE_ENV);
    site = await createTestSite(service);
  });
  afterAll(async () => service?.close());

  const get = (query: string, token: string | null = site.adminToken) => service.request('GET', `/pageviews/stats${query}`, { site: site.siteId, token });

  it('covers the last 30 days by default, one row per day with zeros', async () => {
    const answer = await get('');
    expect(answer.status).toBe(200);
    const days: string[] = answer.body.data.map((row: { day: string }) => row.day);
    expect(days).toHaveLength(30);
    expect(days.at(-1)).toBe(utcDay(new Date()));
    expect(days[0]).toBe(utcDay(new Date(Date.now() - 29 * 86_400_000)));
    expect(answer.body.data[0]).toEqual({ day: days[0], views: 0, uniques: 0 });
    expect(answer.body.meta).toEqual({ from: days[0], to: days.at(-1), path: null });
    const year = await get('?from=2024-01-01&to=2024-12-31');
    expect(year.body.data).toHaveLength(366);
  });

  it('refuses bad dates, ranges and paths with 400 at the parameter', async () => {
    const cases: [string, string][] = [
      ['?from=2024-13-01', 'from'],
      ['?from=2023-02-29', 'from'],
      ['?to=yesterday', 'to'],
      ['?from=2024-05-02&to=2024-05-01', 'from'],
      ['?from=2023-12-31&to=2024-12-31', 'from'],
      ['?path=no-slash', 'path'],
      [`?path=/${'p'.repeat(2_000)}`, 'path'],
    ];
    for (const [query, parameter] of cases) {
      const answer = await get(query);
      expect(answer.status, query).toBe(400);
      expect(answer.body.errors[0], query).toMatchObject({ code: 'VALIDATION_FAILED', path: ['query', parameter] });
    }
  });

  it('is for site administrators and holders of pageviews:read', async () => {
    expect((await get('', null)).status).toBe(401);
    const helpers = withHelpers(service, site);
    const member = await createMember(service, site);
    const refused = await get('', member.token);
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].code).toBe('PERMISSION_DENIED');
    await grant(helpers, { userId: member.userId }, [{ collection: null, action: 'pageviews:read' }]);
    expect((await get('', member.token)).status).toBe(200);
  });

  it('flushes an instance buffer on POST /pageviews/flush with the instance token only', async () => {
    expect((await service.request('POST', '/pageviews/flush')).status).toBe(401);
    expect((await service.request('POST', '/pageviews/flush', { token: site.adminToken })).status).toBe(401);
    await view(service, site.siteId, '/flushed');
    const flushed = await service.request('POST', '/pageviews/flush', { token: INSTANCE_TOKEN });
    expect(flushed.status).toBe(200);
    expect(flushed.body.data).toEqual({ days: 1, views: 1 });
    expect(await stats(service, site, '&path=/flushed')).toMatchObject({ views: 1, uniques: 1 });
  });

  it('flushes the in-process buffer when the instance stops', async () => {
    const stopping = await startTestService(BASE_ENV);
    await view(stopping, site.siteId, '/last-words');
    await view(stopping, site.siteId, '/last-words');
    await stopping.close();
    expect(await stats(service, site, '&path=/last-words')).toMatchObject({ views: 2 });
  });
});

describe('pageview flush from Redis after a crash', () => {
  let service: TestService;
  let redis: Redis;
  let prefix: string;
  beforeAll(async () => {
    service = await startTestService({ ...BASE_ENV, REDIS_URL });
    redis = createRedis(REDIS_URL);
    prefix = pageviewKeyPrefix(service.context.config);
  });
  afterAll(async () => {
    redis?.disconnect();
    await service?.close();
  });

  it('finishes the batch a flush left in Redis after renaming its keys', async () => {
    const site = await createTestSite(service);
    const counters = createRedisCounters(redis, prefix);
    const member = `${site.siteId}/${utcDay(new Date())}`;
    await view(service, site.siteId, '/before');
    await view(service, site.siteId, '/before');
    // A flush that crashed after moving the counters into its batch, before writing anything.
    const batchId = await counters.claimPending();
    expect(batchId).not.toBeNull();
    expect(await redis.sismember(`${prefix}pending`, member)).toBe(0);
    expect(await redis.exists(`${prefix}views:${member}`)).toBe(0);
    expect(await redis.hget(`${prefix}batch:${batchId}:views:${member}`, '/before')).toBe('2');
    expect(await redis.sismember(`${prefix}batches`, batchId!)).toBe(1);
    // Hits after the rename start fresh counters.
    await view(service, site.siteId, '/after');
    expect(await redis.sismember(`${prefix}pending`, member)).toBe(1);

    await flushPageviews(service.context);
    expect(await stats(service, site)).toMatchObject({ views: 3, uniques: 3 });
    expect(await stats(service, site, '&path=/before')).toMatchObject({ views: 2, uniques: 2 });
    expect(await redis.exists(`${prefix}batch:${batchId}:views:${member}`, `${prefix}batch:${batchId}:members`)).toBe(0);
    expect(await redis.sismember(`${prefix}batches`, batchId!)).toBe(0);
  });

  it('does not count a batch twice when the crash came after its commit', async () => {
    const site = await createTestSite(service);
    const counters = createRedisCounters(redis, prefix);
    const member = `${site.siteId}/${utcDay(new Date())}`;
    await view(service, site.siteId, '/once');
    const batchId = await counters.claimPending();
    // Written into PostgreSQL, then the instance died before deleting the batch from Redis.
    expect(await counters.writeBatchDay(service.context.database, batchId!, member)).toBe(true);
    expect(await redis.exists(`${prefix}batch:${batchId}:views:${member}`)).toBe(1);

    await flushPageviews(service.context);
    expect(await stats(service, site)).toMatchObject({ views: 1, uniques: 1 });
    expect(await redis.exists(`${prefix}batch:${batchId}:views:${member}`)).toBe(0);
  });

  it('counts in memory while Redis cannot be reached, and flushes those hits from there', async () => {
    const site = await createTestSite(service);
    // This instance's pageview counters with a Redis nobody listens on.
    const context = { ...service.context, config: { ...service.context.config, REDIS_URL: 'redis://127.0.0.1:1' } };
    const offline = await startPageviewService(context);
    try {
      expect(await offline.record({ siteId: site.siteId, path: '/offline', ip: '10.0.0.1', userAgent: BROWSER })).toBe(true);
      expect(await offline.record({ siteId: uniqueSiteId('nobody'), path: '/offline', ip: '10.0.0.1', userAgent: BROWSER })).toBe(false);
      // The in-process part is written; the shared part fails (and is retried at the next flush).
      await expect(offline.flush()).rejects.toThrow();
    } finally {
      await offline.close();
    }
    expect(await stats(service, site, '&path=/offline')).toMatchObject({ views: 1, uniques: 1 });
  });
});
