// The public role (what requests without credentials may do) is made with its site, by the roles
// command in the site's creation; listing roles writes nothing. A site created before that has it
// from migration 0461, which appends the same event and writes the same rows as the command.
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { roleDecider } from '../../../domain/identity/role.ts';
import { userDecider } from '../../../domain/identity/user.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { siteDecider } from '../../../domain/sites/site.ts';
import { readStream } from '../../../infra/eventstore/eventStore.ts';
import { hashPassword } from '../../../infra/crypto/passwords.ts';
import { MIGRATIONS_DIRECTORY } from '../../../infra/postgres/migrate.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { findProjection } from '../../../projections/index.ts';
import { handleCommandIn } from '../../../src/runtime/commandHandler.ts';
import { systemRoleId } from '../../../src/modules/users/systemRoles.ts';
import { connectOwnerClientForFile, createFreshDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { createTestSite, startTestServiceForFile, uniqueSiteId, type TestSite } from '../../support/testService.ts';
import { createMember } from './support/identity.ts';

// A database of the file's own: the rebuild below truncates the roles read models, which would drop
// every other test file's cached grants on the shared one.
const fresh = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: fresh.url });
const owner = await connectOwnerClientForFile(fresh.url);
const ownerDatabase = fresh.owner;

type Role = { id: string; name: string; systemKey: string | null; admin: boolean };

async function listRoles(site: TestSite): Promise<Role[]> {
  const listed = await service.request('GET', '/roles', { site: site.siteId, token: site.adminToken });
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  return listed.body.data;
}

async function eventCount(siteId: string): Promise<number> {
  const { rows } = await owner.query('SELECT count(*)::int AS n FROM events WHERE site_id = $1', [siteId]);
  return rows[0].n;
}

/** A site as createSite made it before 0461: the site, its administrator role and user, no public role. */
async function createSiteWithoutPublicRole(): Promise<TestSite> {
  const siteId = uniqueSiteId('old');
  const adminEmail = `admin@${siteId}.test`;
  const adminPassword = 'correct horse battery staple';
  const metadata: EventMetadata = { actor: { kind: 'instance', id: null } };
  const { context } = service;
  const roleId = randomUUID();
  const passwordHash = await hashPassword(adminPassword);
  await context.database.withSite(siteId, async (tx) => {
    const write = { siteId, metadata };
    await handleCommandIn(tx, context.projections, { ...write, streamId: streamId(siteId, 'site', siteId), decider: siteDecider, command: { type: 'createSite', siteId, name: siteId, now: new Date() } });
    await handleCommandIn(tx, context.projections, {
      ...write,
      streamId: streamId(siteId, 'role', roleId),
      decider: roleDecider,
      command: { type: 'createRole', roleId, name: 'Administrator', admin: true, systemKey: 'admin' },
    });
    const userId = randomUUID();
    await handleCommandIn(tx, context.projections, {
      ...write,
      streamId: streamId(siteId, 'user', userId),
      decider: userDecider,
      command: { type: 'createUser', userId, email: adminEmail, passwordHash, roleId, firstName: 'Admin', lastName: null },
    });
  });
  const login = await service.request('POST', '/auth/login', { site: siteId, body: { email: adminEmail, password: adminPassword } });
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  return { siteId, adminEmail, adminPassword, adminToken: login.body.data.token, adminUserId: login.body.data.user.id };
}

const migration = readFileSync(`${MIGRATIONS_DIRECTORY}/0461_public_roles.sql`, 'utf8');

describe('the public role', () => {
  it("is created with the site, in the site's transaction, and listing roles writes nothing", async () => {
    const site = await createTestSite(service, 'pub');
    const { rows } = await owner.query(
      `SELECT type, data, tx_id::text FROM events WHERE site_id = $1 AND type IN ('site.created', 'role.created') ORDER BY position`,
      [site.siteId],
    );
    const publicEvent = rows.find((row) => row.data.systemKey === 'public');
    expect(publicEvent?.data).toEqual({ roleId: systemRoleId(site.siteId, 'public'), name: 'Public', admin: false, parentId: null, systemKey: 'public' });
    expect(publicEvent.tx_id).toBe(rows.find((row) => row.type === 'site.created').tx_id);
    const before = await eventCount(site.siteId);
    const roles = await listRoles(site);
    expect(roles.filter((role) => role.systemKey === 'public')).toEqual([expect.objectContaining({ id: systemRoleId(site.siteId, 'public'), name: 'Public', admin: false })]);
    expect(await eventCount(site.siteId)).toBe(before);
  });

  it("is listed to the site's administrators only, and never to another site", async () => {
    const site = await createTestSite(service, 'pub-a');
    const other = await createTestSite(service, 'pub-b');
    const mine = (await listRoles(site)).find((role) => role.systemKey === 'public')!;
    expect((await listRoles(other)).map((role) => role.id)).not.toContain(mine.id);
    const theirs = await service.request('GET', `/roles/${mine.id}`, { site: other.siteId, token: other.adminToken });
    expect(theirs.status).toBe(404);
    expect(theirs.body.errors[0].code).toBe('NOT_FOUND');
    const member = await createMember(service, site);
    const asMember = await service.request('GET', '/roles', { site: site.siteId, token: member.token });
    expect(asMember.status).toBe(403);
    expect(asMember.body.errors[0].code).toBe('PERMISSION_DENIED');
    expect((await service.request('GET', '/roles', { site: site.siteId })).status).toBe(401);
  });

  it('comes to a site created without one through migration 0461: the event the command appends, the same rows on a rebuild', async () => {
    const old = await createSiteWithoutPublicRole();
    const untouched = await createTestSite(service, 'pub-new');
    expect((await listRoles(old)).map((role) => role.systemKey)).toEqual(['admin']);
    // Listing does not make it any more.
    expect((await listRoles(old)).map((role) => role.systemKey)).toEqual(['admin']);
    const eventsOfNewSite = await eventCount(untouched.siteId);

    await owner.query(migration);
    const roleId = systemRoleId(old.siteId, 'public');
    expect((await listRoles(old)).find((role) => role.systemKey === 'public')).toMatchObject({ id: roleId, name: 'Public', admin: false });
    // The event reads back through the store's checks, on the role's own stream.
    const events = await service.context.database.withSite(old.siteId, (tx) => readStream(tx, streamId(old.siteId, 'role', roleId)));
    expect(events.map((event) => [event.type, event.streamPosition, event.data])).toEqual([
      ['role.created', 1, { roleId, name: 'Public', admin: false, parentId: null, systemKey: 'public' }],
    ]);
    // A site that has its role is left alone, and a second run finds nothing to do.
    expect(await eventCount(untouched.siteId)).toBe(eventsOfNewSite);
    const afterFirstRun = await eventCount(old.siteId);
    await owner.query(migration);
    expect(await eventCount(old.siteId)).toBe(afterFirstRun);

    await expectRebuildToGiveSameRows({
      service,
      owner: ownerDatabase,
      projections: [findProjection('roles')!, findProjection('policies')!],
      tablesWithRows: ['roles', 'access_versions'],
      snapshot: async () => ({
        roles: (await ownerDatabase.query(sql`SELECT * FROM roles WHERE site_id = ${old.siteId} ORDER BY id`)).map((row) => JSON.stringify(row)),
        access_versions: (await ownerDatabase.query(sql`SELECT * FROM access_versions WHERE site_id = ${old.siteId}`)).map((row) => JSON.stringify(row)),
      }),
    });
  });
});
