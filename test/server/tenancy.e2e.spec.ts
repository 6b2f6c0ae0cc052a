// One site's data is invisible from another: through every route built so far, and through raw SQL
// under the other site's setting (row-level security, forced, for every site-scoped table).
import { beforeAll, describe, expect, it } from 'vitest';
import { streamId } from '../../domain/shared/events.ts';
import { appendToStream } from '../../infra/eventstore/eventStore.ts';
import { identifier, sql } from '../../infra/postgres/sql.ts';
import { openOwnerDatabaseForFile } from '../support/databases.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../support/testService.ts';
import { createContentModel, createItem, createMember, createRole, grant, withHelpers, type AccessSite } from '../modules/access/support.ts';

const service = await startTestServiceForFile();
const owner = openOwnerDatabaseForFile();
let siteA: TestSite;
let siteB: TestSite;
let refreshTokenA: string;

/** Every table of the schema with a site_id column: read models added later are covered too. */
let siteScopedTables: string[];

beforeAll(async () => {
  [siteA, siteB] = await Promise.all([createTestSite(service, 'ten-a'), createTestSite(service, 'ten-b')]);
  const login = await service.request('POST', '/auth/login', { site: siteA.siteId, body: { email: siteA.adminEmail, password: siteA.adminPassword } });
  refreshTokenA = login.body.data.refreshToken;
  await service.context.daemon.drain();
  const tables = await owner.query<{ table_name: string }>(sql`
    SELECT c.table_name FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
     WHERE c.table_schema = 'public' AND c.column_name = 'site_id' AND t.table_type = 'BASE TABLE'
     ORDER BY c.table_name`);
  siteScopedTables = tables.map((row) => row.table_name);
});

describe('through the routes', () => {
  it("refuses site A's token on site B", async () => {
    for (const [method, path] of [
      ['GET', '/auth/me'],
      ['GET', '/audit'],
      ['GET', '/audit/verify'],
    ] as const) {
      const response = await service.request(method, path, { site: siteB.siteId, token: siteA.adminToken });
      expect(response.status, `${method} ${path}`).toBe(401);
    }
  });

  it("never signs site A's administrator in on site B", async () => {
    const response = await service.request('POST', '/auth/login', { site: siteB.siteId, body: { email: siteA.adminEmail, password: siteA.adminPassword } });
    expect(response.status).toBe(401);
    expect(response.body.errors[0].code).toBe('INVALID_CREDENTIALS');
  });

  it("neither refreshes nor revokes site A's refresh token from site B", async () => {
    const refreshed = await service.request('POST', '/auth/refresh', { site: siteB.siteId, body: { refreshToken: refreshTokenA } });
    expect(refreshed.status).toBe(401);
    const loggedOut = await service.request('POST', '/auth/logout', { site: siteB.siteId, body: { refreshToken: refreshTokenA } });
    expect(loggedOut.status).toBe(204);
    const stillValid = await service.request('POST', '/auth/refresh', { site: siteA.siteId, body: { refreshToken: refreshTokenA } });
    expect(stillValid.status).toBe(200);
    refreshTokenA = stillValid.body.data.refreshToken;
  });

  it("shows site B's administrator only site B's audit entries and chains", async () => {
    const audit = await service.request('GET', '/audit?limit=200', { site: siteB.siteId, token: siteB.adminToken });
    expect(audit.status).toBe(200);
    expect(audit.body.data.length).toBeGreaterThan(0);
    expect(new Set(audit.body.data.map((entry: { siteId: string }) => entry.siteId))).toEqual(new Set([siteB.siteId]));
    expect(JSON.stringify(audit.body)).not.toContain(siteA.siteId);
    expect(JSON.stringify(audit.body)).not.toContain(siteA.adminUserId);

    const verify = await service.request('GET', '/audit/verify', { site: siteB.siteId, token: siteB.adminToken });
    const [{ n }] = (await owner.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM events WHERE site_id = ${siteB.siteId}`)) as [{ n: number }];
    expect(verify.body.data).toMatchObject({ valid: true, eventsChecked: n });
  });
});

describe('through SQL under row-level security', () => {
  it("finds site A's rows with the owner, so the checks below are not vacuous", async () => {
    for (const table of ['events', 'users', 'roles', 'sessions', 'audit_log']) {
      expect(siteScopedTables).toContain(table);
      const [{ n }] = (await owner.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM ${identifier(table)} WHERE site_id = ${siteA.siteId}`)) as [
        { n: number },
      ];
      expect(n, table).toBeGreaterThan(0);
    }
  });

  it("returns none of site A's rows from any site-scoped table under site B's setting, or with no site set", async () => {
    for (const table of siteScopedTables) {
      const underB = await service.context.database.withSite(siteB.siteId, (tx) =>
        tx.query<{ site_id: string }>(sql`SELECT site_id FROM ${identifier(table)}`),
      );
      expect(underB.filter((row) => row.site_id !== siteB.siteId), table).toEqual([]);
      const aimedAtA = await service.context.database.withSite(siteB.siteId, (tx) =>
        tx.query(sql`SELECT 1 FROM ${identifier(table)} WHERE site_id = ${siteA.siteId}`),
      );
      expect(aimedAtA, table).toEqual([]);
      const noSite = await service.context.database.withSystem((tx) => tx.query(sql`SELECT 1 FROM ${identifier(table)} LIMIT 1`));
      expect(noSite, table).toEqual([]);
    }
  });

  it('forces row-level security on every site-scoped table', async () => {
    const rows = await owner.query<{ relname: string; relrowsecurity: boolean; relforcerowsecurity: boolean }>(sql`
      SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class
       WHERE relnamespace = 'public'::regnamespace AND relname = ANY(${siteScopedTables})`);
    expect(rows.filter((row) => !row.relrowsecurity || !row.relforcerowsecurity).map((row) => row.relname)).toEqual([]);
  });

  it("refuses to write a row of site A under site B's setting", async () => {
    await expect(
      service.context.database.withSite(siteB.siteId, (tx) =>
        appendToStream(tx, {
          siteId: siteA.siteId,
          streamId: streamId(siteA.siteId, 'item', 'smuggled'),
          expectedVersion: 'any',
          events: [{ type: 'probe.smuggled', data: {} }],
          metadata: { actor: { kind: 'system', id: 'tenancy-test' } },
        }),
      ),
    ).rejects.toMatchObject({ code: '42501' });
    expect(await owner.query(sql`SELECT 1 FROM events WHERE stream_id = ${streamId(siteA.siteId, 'item', 'smuggled')}`)).toEqual([]);
  });

  it('does not let the application role update, delete or truncate events, even of its own site', async () => {
    const [before] = await owner.query<{ data: unknown; n: number }>(
      sql`SELECT count(*)::int AS n, max(hash) AS data FROM events WHERE site_id = ${siteB.siteId}`,
    );
    for (const statement of [
      sql`UPDATE events SET data = '{}'::jsonb WHERE site_id = ${siteB.siteId}`,
      sql`DELETE FROM events WHERE site_id = ${siteB.siteId}`,
      sql`TRUNCATE events`,
    ]) {
      await expect(service.context.database.withSite(siteB.siteId, (tx) => tx.query(statement)), statement.text).rejects.toMatchObject({
        code: '42501',
      });
    }
    const [after] = await owner.query<{ data: unknown; n: number }>(
      sql`SELECT count(*)::int AS n, max(hash) AS data FROM events WHERE site_id = ${siteB.siteId}`,
    );
    expect(after).toEqual(before);
  });
});

describe("another site's ids, sent to this site's routes", () => {
  /** A second sign-in of the site's administrator: its own session, access token and refresh token. */
  async function secondSession(site: TestSite) {
    const login = await service.request('POST', '/auth/login', { site: site.siteId, body: { email: site.adminEmail, password: site.adminPassword } });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const token = login.body.data.token as string;
    const sessions = await service.request('GET', '/me/sessions', { site: site.siteId, token });
    expect(sessions.status, JSON.stringify(sessions.body)).toBe(200);
    const current = (sessions.body.data as { id: string; current: boolean }[]).filter((session) => session.current);
    expect(current).toHaveLength(1);
    return { id: current[0]!.id, token, refreshToken: login.body.data.refreshToken as string };
  }

  it("does not revoke site B's session through DELETE /me/sessions/:id on site A, and B's session goes on working", async () => {
    const [a, b] = await Promise.all([createTestSite(service, 'ten-a'), createTestSite(service, 'ten-b')]);
    const ofB = await secondSession(b);

    const crossed = await service.request('DELETE', `/me/sessions/${ofB.id}`, { site: a.siteId, token: a.adminToken });
    expect(crossed.status, JSON.stringify(crossed.body)).toBe(404);
    expect(crossed.body.errors[0]).toMatchObject({ code: 'NOT_FOUND' });
    // A's token aimed at B's site is no credential there at all.
    const aimed = await service.request('DELETE', `/me/sessions/${ofB.id}`, { site: b.siteId, token: a.adminToken });
    expect(aimed.status, JSON.stringify(aimed.body)).toBe(401);
    expect(aimed.body.errors[0]).toMatchObject({ code: 'UNAUTHENTICATED' });

    // B's session still works: its access token, the session list, and its refresh token.
    expect((await service.request('GET', '/auth/me', { site: b.siteId, token: ofB.token })).status).toBe(200);
    const listed = await service.request('GET', '/me/sessions', { site: b.siteId, token: b.adminToken });
    expect(listed.body.data.map((session: { id: string }) => session.id)).toContain(ofB.id);
    const refreshed = await service.request('POST', '/auth/refresh', { site: b.siteId, body: { refreshToken: ofB.refreshToken } });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);

    // The same request on B's own site does revoke it, and these checks see that: they are not vacuous.
    expect((await service.request('DELETE', `/me/sessions/${ofB.id}`, { site: b.siteId, token: b.adminToken })).status).toBe(204);
    expect((await service.request('GET', '/auth/me', { site: b.siteId, token: refreshed.body.data.token })).status).toBe(401);
    const afterRevoke = await service.request('POST', '/auth/refresh', { site: b.siteId, body: { refreshToken: refreshed.body.data.refreshToken } });
    expect(afterRevoke.status, JSON.stringify(afterRevoke.body)).toBe(401);
  });

  it("reveals nothing of site B through POST /permissions/check on site A with B's user, role and item ids", async () => {
    const [a, b] = (await Promise.all([createTestSite(service, 'ten-a'), createTestSite(service, 'ten-b')])).map((site) => withHelpers(service, site)) as [AccessSite, AccessSite];
    await Promise.all([createContentModel(a), createContentModel(b)]);
    // What only B holds is marked: its policy's name and its item's title.
    const roleOfB = await createRole(b);
    await grant(b, { roleId: roleOfB.id }, [{ collection: 'articles', action: 'read', conditions: { category: { _eq: 'public' } } }], 'canary-policy-of-b');
    const memberOfB = await createMember(service, b, { roleId: roleOfB.id });
    const itemOfB = await createItem(b, 'articles', { title: 'canary article of b', category: 'public' });
    const check = (site: AccessSite, body: Record<string, unknown>) => site.admin('POST', '/permissions/check', body);
    const asked = [
      { action: 'read', collection: 'articles', principal: { userId: memberOfB.userId } },
      { action: 'read', collection: 'articles', principal: { roleId: roleOfB.id } },
      { action: 'read', collection: 'articles', itemId: itemOfB.id },
    ];

    // On B, the same questions do show B's policy and item: a leak would be seen.
    for (const body of asked) {
      const onB = await check(b, body);
      expect(onB.status, JSON.stringify(onB.body)).toBe(200);
      expect(onB.body.data.allowed).toBe(true);
    }
    const explainedOnB = await check(b, { ...asked[0], itemId: itemOfB.id });
    expect(explainedOnB.body.data.rules).toEqual([expect.objectContaining({ policyName: 'canary-policy-of-b', matchesItem: true })]);

    // On A, they find no such user, role or item, and say nothing of B.
    const [byUser, byRole, byItem] = await Promise.all(asked.map((body) => check(a, body)));
    expect([byUser!.status, byUser!.body.errors[0].code, byUser!.body.errors[0].path]).toEqual([400, 'VALIDATION_FAILED', ['body', 'principal', 'userId']]);
    expect([byRole!.status, byRole!.body.errors[0].code, byRole!.body.errors[0].path]).toEqual([400, 'VALIDATION_FAILED', ['body', 'principal', 'roleId']]);
    expect([byItem!.status, byItem!.body.errors[0].code]).toEqual([404, 'RECORD_NOT_FOUND']);
    for (const answer of [byUser!, byRole!, byItem!]) {
      expect(answer.body.data).toBeUndefined();
      const text = JSON.stringify(answer.body);
      expect(text.toLowerCase()).not.toContain('canary');
      expect(text).not.toContain(b.siteId);
      expect(text).not.toContain(roleOfB.id);
    }
  });
});
