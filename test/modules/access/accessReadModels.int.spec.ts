// The access read models rebuild to the same rows, and the per-instance cache of effective grants
// follows changes made on this instance at once and on another instance when its NOTIFY arrives,
// while a cached read costs no more queries than an administrator's.
import { describe, expect, it } from 'vitest';
import { identifier, sql } from '../../../infra/postgres/sql.ts';
import { findProjection } from '../../../projections/index.ts';
import { rebuildProjection } from '../../../src/runtime/projectionRunner.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createContentModel, createItem, createMember, createRole, grant, withHelpers } from './support.ts';

// A database of the file's own: the query counts below would otherwise take in the background work
// (the async daemon, index builds) that every other test file's writes cause on the shared one.
const fresh = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: fresh.url });
const other = await startTestServiceForFile({ DATABASE_URL: fresh.url });
const owner = fresh.owner;

const TABLES = ['roles', 'policies', 'policy_permissions', 'policy_attachments', 'access_versions'];

async function snapshot(siteId: string): Promise<Record<string, unknown[]>> {
  const rows: Record<string, unknown[]> = {};
  for (const table of TABLES) rows[table] = await owner.query(sql`SELECT * FROM ${identifier(table)} t WHERE site_id = ${siteId} ORDER BY t::text`);
  return rows;
}

describe('access read models', () => {
  it('rebuild to the same rows', async () => {
    const site = withHelpers(service, await createTestSite(service));
    await createContentModel(site);
    const parent = await createRole(site, { name: 'Parent', description: 'p' });
    const role = await createRole(site, { name: 'Child', parentId: parent.id });
    await site.admin('PATCH', `/roles/${role.id}`, { name: 'Renamed', description: 'd', admin: true });
    await site.admin('PATCH', `/roles/${role.id}`, { admin: false, parentId: null });
    const gone = await createRole(site, { name: 'Gone' });
    const member = await createMember(service, site, { roleId: role.id });
    const team = (await site.admin('POST', '/teams', { name: 'Desk', members: [member.userId] })).body.data;
    const policy = await grant(site, { roleId: role.id }, [
      { collection: 'articles', action: 'read', fields: ['title'], conditions: { status: { _eq: 'published' } } },
      { collection: null, action: 'cdc:subscribe' },
    ]);
    await site.admin('POST', `/policies/${policy}/attach`, { teamId: team.id });
    await site.admin('POST', `/policies/${policy}/attach`, { userId: member.userId });
    await site.admin('POST', `/policies/${policy}/attach`, { roleId: gone.id });
    await site.admin('DELETE', `/roles/${gone.id}`);
    await site.admin('PATCH', `/policies/${policy}`, { description: 'changed' });
    const rules = (await site.admin('GET', `/policies/${policy}/permissions`)).body.data;
    await site.admin('DELETE', `/policies/${policy}/permissions/${rules[1].id}`);
    const doomed = await grant(site, { teamId: team.id }, [{ collection: 'authors', action: 'read' }]);
    await site.admin('DELETE', `/policies/${doomed}`);
    await site.admin('DELETE', `/teams/${team.id}`);
    await site.admin('GET', '/roles');

    const before = await snapshot(site.siteId);
    expect(before.policy_attachments).toHaveLength(2);
    expect(before.policy_permissions).toHaveLength(1);
    for (const name of ['roles', 'policies']) await rebuildProjection(owner, findProjection(name)!);
    expect(await snapshot(site.siteId)).toEqual(before);
  });
});

describe('the cache of effective grants', () => {
  it('costs a member no more queries per item read than an administrator', async () => {
    const site = withHelpers(service, await createTestSite(service));
    await createContentModel(site);
    const item = await createItem(site, 'articles', { title: 'Out', status: 'published' });
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [{ collection: 'articles', action: 'read', fields: ['id', 'title'], conditions: { status: { _eq: 'published' } } }]);
    const member = await createMember(service, site, { roleId: role.id });
    const queriesOf = async (token: string) => {
      let fewest = Number.POSITIVE_INFINITY;
      // The fewest of several reads, in a row: a rebuild in another test file may drop every site's
      // cached grants, and a cache entry older than 5 s is revalidated.
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const before = service.context.database.stats.queries;
        const response = await site.as(token, 'GET', `/items/articles/${item.id}`);
        expect(response.status).toBe(200);
        fewest = Math.min(fewest, service.context.database.stats.queries - before);
      }
      return fewest;
    };
    // The async read models' daemon queries through the same pool, and in a full run it follows every
    // test file's writes: stopped while the reads are counted (draining it first could take longer
    // than the cache's revalidation age, so each counted read would revalidate).
    await service.context.daemon.drain();
    await service.context.daemon.stop();
    try {
      await queriesOf(member.token);
      expect(await queriesOf(member.token)).toBeLessThanOrEqual(await queriesOf(site.adminToken));
    } finally {
      await service.context.daemon.start();
    }
  });

  it('follows a change made on another instance once its notification arrives', async () => {
    const site = withHelpers(service, await createTestSite(service));
    await createContentModel(site);
    const item = await createItem(site, 'articles', { title: 'Out', status: 'published' });
    const role = await createRole(site);
    const member = await createMember(service, site, { roleId: role.id });
    const read = () => service.request('GET', `/items/articles/${item.id}`, { site: site.siteId, token: member.token });
    expect((await read()).status).toBe(403);

    const heard = new Promise<void>((resolve) => {
      const stop = service.context.notifier.on('svc_access', (siteId) => {
        if (siteId === site.siteId) {
          stop();
          resolve();
        }
      });
    });
    const policy = await other.request('POST', '/policies', { site: site.siteId, token: site.adminToken, body: { name: 'Remote' } });
    await other.request('POST', `/policies/${policy.body.data.id}/permissions`, {
      site: site.siteId,
      token: site.adminToken,
      body: { collection: 'articles', action: 'read', fields: ['title'] },
    });
    const attached = await other.request('POST', `/policies/${policy.body.data.id}/attach`, { site: site.siteId, token: site.adminToken, body: { roleId: role.id } });
    expect(attached.status).toBe(200);
    await heard;
    // The notification of the last change may come after the first; wait until the grant shows.
    let response = await read();
    while (response.status !== 200) {
      await service.context.notifier.next('svc_access', 1_000);
      response = await read();
    }
    expect(response.body.data).toEqual({ id: item.id, title: 'Out' });
  });
});
