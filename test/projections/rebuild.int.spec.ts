// Every read model rebuilt from the log gives the same rows as the incremental run. Generic over
// projections/index.ts: read models added later are compared too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userDecider } from '../../domain/identity/user.ts';
import { streamId } from '../../domain/shared/events.ts';
import { hashPassword } from '../../infra/crypto/passwords.ts';
import { findProjection, projections } from '../../projections/index.ts';
import { handleCommand } from '../../src/runtime/commandHandler.ts';
import { rebuildProjection } from '../../src/runtime/projectionRunner.ts';
import { createTestSite, INSTANCE_TOKEN, startTestService, type TestService, type TestSite } from '../support/testService.ts';
import { createFreshDatabase, snapshotReadModels, type FreshDatabase } from './freshDatabase.ts';
import { sql } from '../../infra/postgres/sql.ts';

let fresh: FreshDatabase;
let service: TestService;

beforeAll(async () => {
  fresh = await createFreshDatabase();
  service = await startTestService({ DATABASE_URL: fresh.url });
});
afterAll(async () => {
  await service?.close();
  await fresh?.drop();
});

function refreshCookie(response: { headers: Headers }): string {
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith('svc_refresh='));
  if (!cookie) throw new Error('no refresh cookie');
  return cookie.split(';')[0]!;
}

/** Sign-ins, failed sign-ins, refreshes (body and cookie), token reuse, logouts, a password change, a deleted site. */
async function runWorkload(site: TestSite): Promise<void> {
  const credentials = { email: site.adminEmail, password: site.adminPassword };
  const login = () => service.request('POST', '/auth/login', { site: site.siteId, body: credentials });
  const first = await login();
  const rotated = await service.request('POST', '/auth/refresh', { site: site.siteId, body: { refreshToken: first.body.data.refreshToken } });
  expect(rotated.status).toBe(200);
  const viaCookie = await service.request('POST', '/auth/refresh', {
    site: site.siteId,
    headers: { cookie: refreshCookie(rotated), 'x-svc-refresh': '1' },
  });
  expect(viaCookie.status, JSON.stringify(viaCookie.body)).toBe(200);
  // Reusing a rotated token revokes the family.
  expect((await service.request('POST', '/auth/refresh', { site: site.siteId, body: { refreshToken: first.body.data.refreshToken } })).status).toBe(401);
  const second = await login();
  expect((await service.request('POST', '/auth/logout', { site: site.siteId, body: { refreshToken: second.body.data.refreshToken } })).status).toBe(204);
  expect((await service.request('POST', '/auth/login', { site: site.siteId, body: { ...credentials, password: 'wrong password' } })).status).toBe(401);
  expect((await service.request('POST', '/auth/login', { site: site.siteId, body: { email: 'nobody@example.test', password: 'whatever1' } })).status).toBe(401);
  await handleCommand(service.context, {
    siteId: site.siteId,
    streamId: streamId(site.siteId, 'user', site.adminUserId),
    decider: userDecider,
    command: { type: 'changePassword', passwordHash: await hashPassword('a new password 1'), reason: 'change' },
    metadata: { actor: { kind: 'system', id: 'rebuild-test' } },
  });
  await login();
}

/** Every row of every table a projection owns, as sorted JSON lines. */
async function snapshot(): Promise<Record<string, string[]>> {
  const tables = await snapshotReadModels(fresh.owner, projections);
  return tables;
}

describe('rebuilding read models', () => {
  it('gives the same rows, row for row, as the incremental run for every projection', { timeout: 60_000 }, async () => {
    const sites = await Promise.all([createTestSite(service, 'rb'), createTestSite(service, 'rb'), createTestSite(service, 'rb')]);
    await Promise.all(sites.map(runWorkload));
    const deleted = await service.request('DELETE', `/instance/sites/${sites[2]!.siteId}`, { token: INSTANCE_TOKEN });
    expect(deleted.status).toBe(204);
    await service.context.daemon.drain();
    const incremental = await snapshot();
    for (const table of ['sites', 'roles', 'users', 'sessions', 'audit_log']) {
      expect(incremental[table]!.length, `${table} has rows to compare`).toBeGreaterThan(0);
    }

    for (const projection of projections) {
      const result = await rebuildProjection(fresh.owner, projection);
      expect(result.events, `${projection.name} replayed the log`).toBeGreaterThan(0);
    }
    await service.context.daemon.drain();
    const rebuilt = await snapshot();

    for (const table of Object.keys(incremental)) {
      expect(rebuilt[table], `rows of ${table}`).toEqual(incremental[table]);
    }
  });

  it('keeps the old rows visible to readers until the rebuilt ones are committed', async () => {
    const site = await createTestSite(service, 'rb');
    const roles = findProjection('roles')!;
    const access = () =>
      service.context.database.query<{ admin: boolean | null }>(sql`SELECT admin FROM svc_user_access(${site.siteId}, ${site.adminUserId}::uuid, NULL)`);
    // A writer of the table holds the rebuild at its lock, with the old rows still in place.
    const writer = await fresh.owner.connect();
    try {
      await writer.query('BEGIN');
      await writer.query('LOCK TABLE roles IN ROW EXCLUSIVE MODE');
      const rebuilt = rebuildProjection(fresh.owner, roles);
      // A lock wait announces nothing: look for it (the rebuild reaches it within milliseconds).
      for (;;) {
        const [waiting] = await fresh.owner.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'roles'::regclass AND NOT granted`);
        if (waiting!.n > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // The token check reads roles in a SQL function, with a snapshot taken before any lock wait:
      // had the rebuild truncated the table, this read would have waited and then found it empty.
      const during = access();
      await writer.query('COMMIT');
      expect(await during).toEqual([{ admin: true }]);
      await rebuilt;
      expect(await access()).toEqual([{ admin: true }]);
    } finally {
      await writer.query('ROLLBACK').catch(() => undefined);
      writer.release();
    }
  });
});
