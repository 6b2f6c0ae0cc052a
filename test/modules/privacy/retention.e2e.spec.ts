// /retention: the horizons, and a run that prunes ended sessions past theirs in the caller's site
// only; a rebuild of the sessions read model brings pruned rows back (the log keeps them).
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { sessionsProjection } from '../../../projections/sessionsProjection.ts';
import { rebuildProjection } from '../../../src/runtime/projectionRunner.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { createMember } from '../access/support.ts';

const service = await startTestServiceForFile({ SVC_RETENTION_SESSIONS_DAYS: '30' });
const owner = openOwnerDatabaseForFile();

/** A member whose session was revoked `daysAgo` days ago (the read model backdated as time would have). */
async function endedSession(site: TestSite, daysAgo: number): Promise<string> {
  const member = await createMember(service, site);
  await service.request('DELETE', '/me/sessions', { site: site.siteId, token: member.token });
  await owner.query(sql`UPDATE sessions SET revoked_at = now() - make_interval(days => ${daysAgo}) WHERE site_id = ${site.siteId} AND user_id = ${member.userId}`);
  return member.userId;
}

const sessionsOf = async (siteId: string) => owner.query<{ user_id: string }>(sql`SELECT user_id FROM sessions WHERE site_id = ${siteId}`);

describe('retention', () => {
  it('shows the configured horizons to a site administrator only', async () => {
    const site = await createTestSite(service, 'retention');
    const response = await service.request('GET', '/retention', { site: site.siteId, token: site.adminToken });
    expect(response.status).toBe(200);
    expect(response.body.data.horizons).toEqual([
      expect.objectContaining({ readModel: 'sessions', days: 30, setting: 'SVC_RETENTION_SESSIONS_DAYS', prunedBy: 'POST /retention/run' }),
      expect.objectContaining({ readModel: 'pageview_uniques', days: 4 }),
      expect.objectContaining({ readModel: 'cdc_feed, cdc_deliveries', days: 7, setting: 'SVC_CDC_RETENTION' }),
    ]);
    const member = await createMember(service, site);
    expect((await service.request('GET', '/retention', { site: site.siteId, token: member.token })).status).toBe(403);
    expect((await service.request('POST', '/retention/run', { site: site.siteId, token: member.token })).status).toBe(403);
    expect((await service.request('GET', '/retention', { site: site.siteId })).status).toBe(401);
  });

  it('prunes sessions ended past the horizon, keeps recent and active ones, and touches no other site', async () => {
    const site = await createTestSite(service, 'retention');
    const old = await endedSession(site, 45);
    const recent = await endedSession(site, 5);
    const elsewhere = await createTestSite(service, 'retention');
    const oldElsewhere = await endedSession(elsewhere, 45);

    const run = await service.request('POST', '/retention/run', { site: site.siteId, token: site.adminToken });
    expect(run.status).toBe(200);
    expect(run.body.data).toEqual({ pruned: { sessions: 1 } });
    const kept = (await sessionsOf(site.siteId)).map((row) => row.user_id);
    expect(kept).not.toContain(old);
    expect(kept).toEqual(expect.arrayContaining([recent, site.adminUserId]));
    expect((await sessionsOf(elsewhere.siteId)).map((row) => row.user_id)).toContain(oldElsewhere);

    // The log keeps the session's events: a rebuild brings the pruned row back.
    await rebuildProjection(owner, sessionsProjection);
    expect((await sessionsOf(site.siteId)).map((row) => row.user_id)).toContain(old);
  });
});
