// The audit log of a site (site administrators only) and the verification of its hash chains.
import { describe, expect, it } from 'vitest';
import { streamId } from '../../../domain/shared/events.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';

const service = await startTestServiceForFile();
const owner = openOwnerDatabaseForFile();

/** A site whose admin signed in once more with a known request id, then refreshed twice (a 3-event session stream). */
async function siteWithHistory(): Promise<TestSite & { requestId: string; sessionStream: string }> {
  const site = await createTestSite(service, 'audit');
  const requestId = `audit-login-${site.siteId}`;
  const login = await service.request('POST', '/auth/login', {
    site: site.siteId,
    body: { email: site.adminEmail, password: site.adminPassword },
    headers: { 'x-request-id': requestId },
  });
  let refreshToken = login.body.data.refreshToken as string;
  for (let n = 0; n < 2; n += 1) {
    const refreshed = await service.request('POST', '/auth/refresh', { site: site.siteId, body: { refreshToken } });
    refreshToken = refreshed.body.data.refreshToken;
  }
  await service.context.daemon.drain();
  return { ...site, requestId, sessionStream: streamId(site.siteId, 'session', refreshToken.split('.')[0]!) };
}

describe('GET /audit', () => {
  it('answers 401 without a token', async () => {
    const site = await createTestSite(service, 'audit');
    const response = await service.request('GET', '/audit', { site: site.siteId });
    expect(response.status).toBe(401);
    expect(response.body.errors[0].code).toBe('UNAUTHENTICATED');
  });

  it('lists every event of the site newest first, with actor, target and request id', async () => {
    const site = await siteWithHistory();
    const [{ n }] = (await owner.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM events WHERE site_id = ${site.siteId}`)) as [{ n: number }];
    const response = await service.request('GET', '/audit?limit=200', { site: site.siteId, token: site.adminToken });
    expect(response.status).toBe(200);
    expect(response.body.meta).toEqual({ total: n, page: 1, pageSize: 200 });
    const entries = response.body.data as { eventId: string; action: string; requestId: string | null; actor: { kind: string; id: string | null }; target: string }[];
    expect(entries).toHaveLength(n);
    // Newest first (entries carry no log position: auditPositions.e2e.spec.ts).
    const newestFirst = await owner.query<{ event_id: string }>(sql`SELECT event_id FROM audit_log WHERE site_id = ${site.siteId} ORDER BY position DESC`);
    expect(entries.map((entry) => entry.eventId)).toEqual(newestFirst.map((row) => row.event_id));
    expect(entries.map((entry) => entry.action)).toEqual(
      expect.arrayContaining(['site.created', 'role.created', 'user.created', 'session.started', 'session.refreshed']),
    );
    const started = entries.find((entry) => entry.action === 'session.started' && entry.requestId === site.requestId);
    expect(started).toMatchObject({ actor: { kind: 'user', id: site.adminUserId }, target: site.sessionStream.slice(site.siteId.length + 1) });
  });

  it('filters by action with filter[action][_eq] and pages with limit and page', async () => {
    const site = await siteWithHistory();
    const refreshes = await service.request('GET', '/audit?filter[action][_eq]=session.refreshed', { site: site.siteId, token: site.adminToken });
    expect(refreshes.status).toBe(200);
    expect(refreshes.body.meta.total).toBe(2);
    expect(refreshes.body.data.map((entry: { action: string }) => entry.action)).toEqual(['session.refreshed', 'session.refreshed']);

    const all = await service.request('GET', '/audit?limit=200', { site: site.siteId, token: site.adminToken });
    const secondPage = await service.request('GET', '/audit?limit=2&page=2', { site: site.siteId, token: site.adminToken });
    expect(secondPage.body.meta).toEqual({ total: all.body.meta.total, page: 2, pageSize: 2 });
    expect(secondPage.body.data).toEqual(all.body.data.slice(2, 4));
    const pastTheEnd = await service.request('GET', '/audit?limit=200&page=9', { site: site.siteId, token: site.adminToken });
    expect(pastTheEnd.body.data).toEqual([]);
  });

  it('refuses bad filters and limits with 400 VALIDATION_FAILED and the offending path', async () => {
    const site = await createTestSite(service, 'audit');
    const cases: [string, (string | number)[]][] = [
      ['/audit?filter[password][_eq]=x', ['filter', 'password']],
      ['/audit?filter[action][_gt]=x', ['filter', 'action', '_gt']],
      ['/audit?filter[occurredAt][_gt]=yesterday', ['filter', 'occurredAt', '_gt']],
      ['/audit?limit=0', ['query', 'limit']],
      ['/audit?limit=201', ['query', 'limit']],
      ['/audit?page=0', ['query', 'page']],
    ];
    for (const [path, errorPath] of cases) {
      const response = await service.request('GET', path, { site: site.siteId, token: site.adminToken });
      expect(response.status, path).toBe(400);
      expect(response.body.errors[0], path).toMatchObject({ code: 'VALIDATION_FAILED', path: errorPath });
    }
  });

  it('filters in the JSON form too, with _or groups, and $NOW and $CURRENT_USER values', async () => {
    const site = await siteWithHistory();
    const list = async (query: string) => {
      const response = await service.request('GET', `/audit?limit=200&${query}`, { site: site.siteId, token: site.adminToken });
      expect(response.status, query).toBe(200);
      return response.body.data as { action: string; requestId: string | null; actor: { id: string | null } }[];
    };
    const json = encodeURIComponent(JSON.stringify({ _or: [{ requestId: { _eq: site.requestId } }, { action: { _eq: 'site.created' } }] }));
    expect((await list(`filter=${json}`)).map((entry) => entry.action).sort()).toEqual(['session.started', 'site.created']);
    expect(await list(`filter[_or][0][requestId][_eq]=${site.requestId}&filter[_or][1][action][_eq]=site.created`)).toEqual(await list(`filter=${json}`));

    const all = await list('');
    expect(await list('filter[occurredAt][_gte]=$NOW(-1 hour)')).toEqual(all);
    expect(await list('filter[occurredAt][_lt]=$NOW(-1 hour)')).toEqual([]);
    const mine = await list('filter[actor][_eq]=$CURRENT_USER');
    expect(mine.length).toBeGreaterThan(0);
    expect(mine).toEqual(all.filter((entry) => entry.actor.id === site.adminUserId));
  });

  it('matches _starts_with literally, as a prefix', async () => {
    const site = await siteWithHistory();
    const [{ n }] = (await owner.query<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM events WHERE site_id = ${site.siteId} AND type LIKE 'session.%'`,
    )) as [{ n: number }];
    const sessions = await service.request('GET', '/audit?limit=200&filter[action][_starts_with]=session.', { site: site.siteId, token: site.adminToken });
    expect(sessions.body.meta.total).toBe(n);
    expect(sessions.body.data.every((entry: { action: string }) => entry.action.startsWith('session.'))).toBe(true);
    // `_` and `%` are LIKE's wildcards: here they are plain characters, which no action has.
    for (const prefix of ['session_', 'session%', '%']) {
      const response = await service.request('GET', `/audit?filter[action][_starts_with]=${encodeURIComponent(prefix)}`, { site: site.siteId, token: site.adminToken });
      expect(response.body.meta.total, prefix).toBe(0);
    }
    const stream = site.sessionStream.slice(site.siteId.length + 1);
    const ofStream = await service.request('GET', `/audit?filter[target][_starts_with]=${encodeURIComponent(stream)}`, { site: site.siteId, token: site.adminToken });
    expect(ofStream.body.data.map((entry: { action: string }) => entry.action)).toEqual(['session.refreshed', 'session.refreshed', 'session.started']);
  });

  it('answers every malformed filter with 400 and the path of the offending key, never a 500', async () => {
    const site = await createTestSite(service, 'audit');
    const cases: [string, string, (string | number)[]][] = [
      ['filter={"action":', 'VALIDATION', ['filter']],
      ['filter=[1]', 'VALIDATION', ['filter']],
      ['filter[id][_eq]=x', 'VALIDATION_FAILED', ['filter', 'id']],
      ['filter[status][_eq]=x', 'VALIDATION_FAILED', ['filter', 'status']],
      ['filter[action.deeper][_eq]=x', 'VALIDATION_FAILED', ['filter', 'action.deeper']],
      ['filter[action]=x', 'VALIDATION_FAILED', ['filter', 'action']],
      ['filter[actor][_starts_with]=x', 'VALIDATION_FAILED', ['filter', 'actor', '_starts_with']],
      ['filter[requestId][_in]=a,b', 'VALIDATION_FAILED', ['filter', 'requestId', '_in']],
      ['filter[action][_bogus]=x', 'VALIDATION_FAILED', ['filter', 'action', '_bogus']],
      ['filter[occurredAt][_gte]=2024-02-30', 'VALIDATION_FAILED', ['filter', 'occurredAt', '_gte']],
      ['filter[occurredAt][_lt]=$NOW(soon)', 'VALIDATION_FAILED', ['filter', 'occurredAt', '_lt']],
      ['filter[_or][1][action][_gt]=x&filter[_or][0][action][_eq]=y', 'VALIDATION_FAILED', ['filter', '_or', 1, 'action', '_gt']],
      [`filter=${encodeURIComponent('{"_and":{"action":{"_eq":"x"}}}')}`, 'VALIDATION_FAILED', ['filter', '_and']],
      [`filter=${encodeURIComponent('{"target":{"_starts_with":"a\\u0000b"}}')}`, 'VALIDATION_FAILED', ['filter', 'target', '_starts_with']],
    ];
    for (const [query, code, errorPath] of cases) {
      const response = await service.request('GET', `/audit?${query}`, { site: site.siteId, token: site.adminToken });
      expect(response.status, query).toBe(400);
      expect(response.body.errors[0], query).toMatchObject({ code, path: errorPath });
    }
  });

  it("never shows site A's entries to site B's administrator, whatever the filter", async () => {
    const [siteA, siteB] = await Promise.all([siteWithHistory(), siteWithHistory()]);
    const streamA = siteA.sessionStream.slice(siteA.siteId.length + 1);
    const filters = [
      `filter[requestId][_eq]=${siteA.requestId}`,
      `filter[actor][_in]=${siteA.adminUserId},${siteB.adminUserId}`,
      `filter[target][_eq]=${encodeURIComponent(streamA)}`,
      'filter[target][_starts_with]=session/',
      'filter[action][_neq]=nothing',
      'filter[actorKind][_in]=user,system',
      'filter[occurredAt][_gt]=2000-01-01T00:00:00Z',
      `filter=${encodeURIComponent(JSON.stringify({ _or: [{ requestId: { _eq: siteA.requestId } }, { actor: { _eq: siteA.adminUserId } }] }))}`,
    ];
    for (const filter of filters) {
      const response = await service.request('GET', `/audit?limit=200&${filter}`, { site: siteB.siteId, token: siteB.adminToken });
      expect(response.status, filter).toBe(200);
      expect(response.body.data.filter((entry: { siteId: string }) => entry.siteId !== siteB.siteId), filter).toEqual([]);
      expect(response.body.meta.total, filter).toBe(response.body.data.length);
    }
    const withA = await service.request('GET', `/audit?limit=200&filter[requestId][_eq]=${siteA.requestId}`, { site: siteA.siteId, token: siteA.adminToken });
    expect(withA.body.data).toHaveLength(1);
  });

  it("never shows site A's entries to site B's administrator", async () => {
    const [siteA, siteB] = await Promise.all([siteWithHistory(), siteWithHistory()]);
    const asB = await service.request('GET', `/audit?limit=200&filter[requestId][_eq]=${siteA.requestId}`, { site: siteB.siteId, token: siteB.adminToken });
    expect(asB.status).toBe(200);
    expect(asB.body.data).toEqual([]);
    const everything = await service.request('GET', '/audit?limit=200', { site: siteB.siteId, token: siteB.adminToken });
    expect(everything.body.data.every((entry: { siteId: string }) => entry.siteId === siteB.siteId)).toBe(true);
    const crossSite = await service.request('GET', '/audit', { site: siteA.siteId, token: siteB.adminToken });
    expect(crossSite.status).toBe(401);
  });
});

describe('GET /audit/verify', () => {
  it('finds every chain of an untouched site intact', async () => {
    const site = await siteWithHistory();
    const [counts] = await owner.query<{ events: number; streams: number }>(
      sql`SELECT count(*)::int AS events, count(DISTINCT stream_id)::int AS streams FROM events WHERE site_id = ${site.siteId}`,
    );
    const response = await service.request('GET', '/audit/verify', { site: site.siteId, token: site.adminToken });
    expect(response.status).toBe(200);
    // Checkpoints may have been taken by another file's scheduler tick: their count is not pinned.
    expect(response.body.data).toEqual({
      valid: true,
      eventsChecked: counts!.events,
      streamsChecked: counts!.streams,
      firstBrokenLink: null,
      checkpoints: expect.objectContaining({ problems: [] }),
      erasures: { executed: 0, latest: [] },
    });
  });

  async function middleOfSession(site: { sessionStream: string }) {
    const [row] = await owner.query<{ position: number }>(sql`SELECT position FROM events WHERE stream_id = ${site.sessionStream} AND stream_position = 2`);
    return row!.position;
  }

  async function verify(site: TestSite) {
    const response = await service.request('GET', '/audit/verify', { site: site.siteId, token: site.adminToken });
    expect(response.status).toBe(200);
    return response.body.data;
  }

  it('reports the first broken link when an event was edited in place', async () => {
    const site = await siteWithHistory();
    const position = await middleOfSession(site);
    await owner.query(sql`UPDATE events SET data = jsonb_set(data, '{expiresAt}', '"2099-01-01T00:00:00.000Z"') WHERE position = ${position}`);
    expect(await verify(site)).toMatchObject({
      valid: false,
      firstBrokenLink: { position, streamId: site.sessionStream, streamPosition: 2, reason: 'hash_mismatch' },
    });
  });

  it('reports the next event when an edited event was given a freshly computed hash', async () => {
    const site = await siteWithHistory();
    const position = await middleOfSession(site);
    await owner.query(sql`
      UPDATE events SET data = jsonb_set(data, '{expiresAt}', '"2099-01-01T00:00:00.000Z"'),
                        hash = svc_event_hash(prev_hash, site_id, stream_id, stream_position, event_id, type, schema_version,
                                              jsonb_set(data, '{expiresAt}', '"2099-01-01T00:00:00.000Z"'), metadata, recorded_at)
       WHERE position = ${position}`);
    const [next] = await owner.query<{ position: number }>(sql`SELECT position FROM events WHERE stream_id = ${site.sessionStream} AND stream_position = 3`);
    expect(await verify(site)).toMatchObject({
      valid: false,
      firstBrokenLink: { position: next!.position, streamId: site.sessionStream, streamPosition: 3, reason: 'broken_link' },
    });
  });

  it('reports a gap when an event was deleted', async () => {
    const site = await siteWithHistory();
    const position = await middleOfSession(site);
    await owner.query(sql`DELETE FROM events WHERE position = ${position}`);
    expect(await verify(site)).toMatchObject({ valid: false, firstBrokenLink: { streamId: site.sessionStream, streamPosition: 3, reason: 'gap' } });
  });
});
