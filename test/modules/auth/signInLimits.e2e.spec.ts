// The per-account limit on failed sign-ins: whatever the client IP, an email gets a few free failures,
// then 429 RATE_LIMITED with Retry-After until its lock ends, the right password included; an unknown
// email answers exactly like a known one. In memory and in the shared Redis (an unreachable Redis:
// signInLimiter.int.spec.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSite, startTestService, type TestResponse, type TestService, type TestSite } from '../../support/testService.ts';

const SHARED_REDIS = 'redis://127.0.0.1:6379';

function serviceWith(environment: Record<string, string>): () => TestService {
  let service: TestService | undefined;
  beforeAll(async () => {
    service = await startTestService(environment);
  });
  afterAll(async () => service?.close());
  return () => service!;
}

let nextAddress = 0;
/** Each sign-in from another client IP (one trusted proxy hop): only the account limit can stop them. */
function signIn(service: TestService, site: TestSite, email: string, password: string) {
  nextAddress += 1;
  return service.request('POST', '/auth/login', {
    site: site.siteId,
    body: { email, password },
    headers: { 'x-forwarded-for': `10.9.${Math.floor(nextAddress / 250) % 250}.${(nextAddress % 250) + 1}` },
  });
}

/** What a client can tell apart: the status, the body, and the limit's headers. */
function answer(response: TestResponse) {
  return { status: response.status, body: response.body, retryAfter: response.headers.get('retry-after') };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the per-account limit in memory', () => {
  const service = serviceWith({ SVC_TRUST_PROXY: '1', SVC_SIGNIN_FAILURES_BEFORE_BACKOFF: '5', SVC_SIGNIN_LOCKOUT_SECONDS: '600' });

  it('stops 40 wrong passwords for one account from 40 client IPs with 429 RATE_LIMITED and Retry-After, the right password too', async () => {
    const site = await createTestSite(service());
    const statuses: number[] = [];
    let limited: TestResponse | undefined;
    for (let n = 1; n <= 40; n += 1) {
      const response = await signIn(service(), site, site.adminEmail, `wrong password ${n}`);
      statuses.push(response.status);
      if (response.status === 429) limited ??= response;
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5).every((status) => status === 429)).toBe(true);
    expect(limited!.body.errors[0]).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const right = await signIn(service(), site, site.adminEmail, site.adminPassword);
    expect(right.status).toBe(429);
    expect(right.body.errors[0].code).toBe('RATE_LIMITED');
  });

  it('answers an unknown email exactly as a known one, through the lockout', async () => {
    const site = await createTestSite(service());
    const unknown = `nobody@${site.siteId}.test`;
    const known: ReturnType<typeof answer>[] = [];
    const made: ReturnType<typeof answer>[] = [];
    for (let n = 1; n <= 8; n += 1) {
      known.push(answer(await signIn(service(), site, site.adminEmail, `wrong password ${n}`)));
      made.push(answer(await signIn(service(), site, unknown, `wrong password ${n}`)));
    }
    expect(known.map((entry) => entry.status)).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    expect(made).toEqual(known);
  });

  it('counts the email however it is written', async () => {
    const site = await createTestSite(service());
    for (let n = 1; n <= 5; n += 1) await signIn(service(), site, site.adminEmail, 'wrong password');
    const shouted = await signIn(service(), site, `  ${site.adminEmail.toUpperCase()} `, site.adminPassword);
    expect(shouted.status).toBe(429);
  });

  it('counts each site on its own', async () => {
    const site = await createTestSite(service());
    const other = await createTestSite(service());
    const email = 'same@example.test';
    for (let n = 1; n <= 5; n += 1) await signIn(service(), site, email, 'wrong password');
    expect((await signIn(service(), site, email, 'wrong password')).status).toBe(429);
    expect((await signIn(service(), other, email, 'wrong password')).status).toBe(401);
  });
});

describe('the lockout window', () => {
  const service = serviceWith({ SVC_TRUST_PROXY: '1', SVC_SIGNIN_FAILURES_BEFORE_BACKOFF: '3', SVC_SIGNIN_LOCKOUT_SECONDS: '1' });

  it('lets the right password in once the lock has passed, and a success starts the count afresh', async () => {
    const site = await createTestSite(service());
    for (let n = 1; n <= 3; n += 1) expect((await signIn(service(), site, site.adminEmail, 'wrong password')).status).toBe(401);
    const locked = await signIn(service(), site, site.adminEmail, site.adminPassword);
    expect(locked.status).toBe(429);
    expect(locked.headers.get('retry-after')).toBe('1');
    await sleep(1_100);
    expect((await signIn(service(), site, site.adminEmail, site.adminPassword)).status).toBe(200);
    expect((await signIn(service(), site, site.adminEmail, 'wrong password')).status).toBe(401);
    expect((await signIn(service(), site, site.adminEmail, 'wrong password')).status).toBe(401);
  });
});

describe('the per-account limit in the shared Redis', () => {
  let first: TestService;
  let second: TestService;
  beforeAll(async () => {
    const environment = { REDIS_URL: SHARED_REDIS, SVC_TRUST_PROXY: '1', SVC_SIGNIN_FAILURES_BEFORE_BACKOFF: '4' };
    first = await startTestService(environment);
    second = await startTestService(environment);
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it('is shared by every instance', async () => {
    const site = await createTestSite(first);
    const statuses: number[] = [];
    for (const service of [first, second, first, second, first, second]) {
      statuses.push((await signIn(service, site, site.adminEmail, 'wrong password')).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
  });
});
