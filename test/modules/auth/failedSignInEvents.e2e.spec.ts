// Failed sign-ins cannot grow the log without bound: per account, client IP and window the first
// SVC_SIGNIN_FAILURE_EVENTS failures are an event each, the rest one event with their count once the
// window closes; the sum of the events' counts is every failure.
import { describe, expect, it } from 'vitest';
import { streamId } from '../../../domain/shared/events.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { summarizeSignInFailures } from '../../../src/modules/auth/failedSignIns.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';

const WINDOW_SECONDS = 3;
// The account limit and the per-IP limit are out of the way: this is about the log.
const service = await startTestServiceForFile({
  SVC_TRUST_PROXY: '1',
  SVC_SIGNIN_FAILURES_BEFORE_BACKOFF: '0',
  SVC_RATE_LIMIT_AUTH: '0',
  SVC_SIGNIN_FAILURE_EVENTS: '3',
  SVC_SIGNIN_FAILURE_EVENTS_WINDOW_SECONDS: String(WINDOW_SECONDS),
});
const owner = openOwnerDatabaseForFile();

function wrongSignIn(site: TestSite, email: string, ip = '203.0.113.7') {
  return service.request('POST', '/auth/login', { site: site.siteId, body: { email, password: 'wrong password' }, headers: { 'x-forwarded-for': ip } });
}

/** The site's failed sign-in events: how many, and how many failures they stand for. */
async function failureEvents(siteId: string, type: 'user.sign_in_failed' | 'auth.sign_in_failed') {
  const [row] = await owner.query<{ events: number; failures: number }>(sql`
    SELECT count(*)::int AS events, coalesce(sum(coalesce((data->>'failures')::int, 1)), 0)::int AS failures
      FROM events WHERE site_id = ${siteId} AND type = ${type}`);
  return row!;
}

/** Waits until the current window (aligned on multiples of its length) has closed, plus a little. */
async function nextWindow(): Promise<void> {
  const length = WINDOW_SECONDS * 1000;
  await new Promise((resolve) => setTimeout(resolve, length - (Date.now() % length) + 50));
}

/** Runs the rest only at the start of a window, so that a burst of attempts stays in one. */
async function atWindowStart(): Promise<void> {
  const length = WINDOW_SECONDS * 1000;
  if (Date.now() % length > length / 6) await nextWindow();
}

describe('failed sign-in events', () => {
  it('records the first failures of a window one by one, then the rest as one event with their count', async () => {
    const site = await createTestSite(service);
    await atWindowStart();
    for (let attempt = 0; attempt < 8; attempt += 1) expect((await wrongSignIn(site, site.adminEmail)).status).toBe(401);
    expect(await failureEvents(site.siteId, 'user.sign_in_failed')).toEqual({ events: 3, failures: 3 });

    await nextWindow();
    // The next failure on the site writes the closed window's count first.
    expect((await wrongSignIn(site, site.adminEmail)).status).toBe(401);
    expect(await failureEvents(site.siteId, 'user.sign_in_failed')).toEqual({ events: 5, failures: 9 });
    const [counted] = await owner.query<{ data: { failures: number; window: { from: string; to: string } }; stream_id: string }>(sql`
      SELECT data, stream_id FROM events WHERE site_id = ${site.siteId} AND type = 'user.sign_in_failed' AND data ? 'failures'`);
    expect(counted!.stream_id).toBe(streamId(site.siteId, 'user', site.adminUserId));
    expect(counted!.data.failures).toBe(5);
    expect(Date.parse(counted!.data.window.to) - Date.parse(counted!.data.window.from)).toBe(WINDOW_SECONDS * 1000);
  });

  it('counts unknown emails the same way, per email and client IP', async () => {
    const site = await createTestSite(service);
    const unknown = `nobody@${site.siteId}.test`;
    await atWindowStart();
    for (let attempt = 0; attempt < 8; attempt += 1) await wrongSignIn(site, unknown);
    for (let attempt = 0; attempt < 4; attempt += 1) await wrongSignIn(site, unknown, '198.51.100.4');
    expect(await failureEvents(site.siteId, 'auth.sign_in_failed')).toEqual({ events: 6, failures: 6 });

    await nextWindow();
    await summarizeSignInFailures(service.context, new Date());
    expect(await failureEvents(site.siteId, 'auth.sign_in_failed')).toEqual({ events: 8, failures: 12 });
    const [left] = await owner.query<{ windows: number }>(sql`SELECT count(*)::int AS windows FROM sign_in_failure_windows WHERE site_id = ${site.siteId}`);
    expect(left!.windows).toBe(0);
  });
});
