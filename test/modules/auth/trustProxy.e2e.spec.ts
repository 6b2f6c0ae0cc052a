// The client IP behind proxies (SVC_TRUST_PROXY): a hop count or the proxies' addresses pick the
// entry of X-Forwarded-For that a trusted proxy wrote, never one the client wrote to its left.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestService, type TestService, type TestSite } from '../../support/testService.ts';

const owner = openOwnerDatabaseForFile();

/** Starts a service with `environment` for the describe block that calls it. */
function serviceWith(environment: Record<string, string>): () => TestService {
  let service: TestService | undefined;
  beforeAll(async () => {
    service = await startTestService(environment);
  });
  afterAll(async () => service?.close());
  return () => service!;
}

/** Signs the site's admin in with the given X-Forwarded-For; answers the IP recorded on the new session. */
async function sessionIpWith(service: TestService, site: TestSite, forwardedFor: string): Promise<string | null> {
  const login = await service.request('POST', '/auth/login', {
    site: site.siteId,
    body: { email: site.adminEmail, password: site.adminPassword },
    headers: { 'x-forwarded-for': forwardedFor },
  });
  expect(login.status).toBe(200);
  const sessionId = String(login.body.data.refreshToken).split('.')[0]!;
  const [started] = await owner.query<{ ip: string | null }>(sql`
    SELECT data->>'ip' AS ip FROM events WHERE site_id = ${site.siteId} AND type = 'session.started' AND data->>'sessionId' = ${sessionId}`);
  return started!.ip;
}

describe('SVC_TRUST_PROXY=1 (one proxy in front, as in docker-compose)', () => {
  // The account limit is off here, so that only the per-IP limit can answer 429.
  const service = serviceWith({ SVC_TRUST_PROXY: '1', SVC_SIGNIN_FAILURES_BEFORE_BACKOFF: '0' });

  it('limits 40 wrong-password sign-ins whose client-written X-Forwarded-For entries all differ: the proxy-written entry counts', async () => {
    const site = await createTestSite(service());
    const statuses: number[] = [];
    for (let n = 1; n <= 40; n += 1) {
      const response = await service().request('POST', '/auth/login', {
        site: site.siteId,
        body: { email: site.adminEmail, password: `wrong password ${n}` },
        headers: { 'x-forwarded-for': `10.9.0.${n}, 127.0.0.1` },
      });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 29).every((status) => status === 401)).toBe(true);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(10);
    expect(statuses.at(-1)).toBe(429);
  });

  it('records the right-most X-Forwarded-For entry on the session', async () => {
    const site = await createTestSite(service());
    expect(await sessionIpWith(service(), site, '203.0.113.7, 198.51.100.9')).toBe('198.51.100.9');
  });
});

describe('SVC_TRUST_PROXY=2 (two proxies)', () => {
  const service = serviceWith({ SVC_TRUST_PROXY: '2' });

  it('takes the entry two hops from the socket', async () => {
    const site = await createTestSite(service());
    expect(await sessionIpWith(service(), site, '192.0.2.1, 203.0.113.7, 198.51.100.9')).toBe('203.0.113.7');
  });
});

describe('SVC_TRUST_PROXY as a list of proxy addresses and CIDRs', () => {
  const service = serviceWith({ SVC_TRUST_PROXY: '127.0.0.1, 198.51.100.0/24' });

  it('skips the trusted proxies from the right and stops at the first address that is not one', async () => {
    const site = await createTestSite(service());
    expect(await sessionIpWith(service(), site, '192.0.2.1, 203.0.113.7, 198.51.100.9, 198.51.100.20')).toBe('203.0.113.7');
  });
});

describe('SVC_TRUST_PROXY unset', () => {
  const service = serviceWith({});

  it('ignores X-Forwarded-For: the socket address is the client', async () => {
    const site = await createTestSite(service());
    expect(await sessionIpWith(service(), site, '203.0.113.7')).toBe('127.0.0.1');
  });
});
