import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { auditActions, createMember } from './support/identity.ts';

const service = await startTestServiceForFile();

describe('/teams', () => {
  it('creates, reads, lists, updates and deletes a team with members', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const created = await service.request('POST', '/teams', {
      site: site.siteId,
      token: site.adminToken,
      body: { name: 'Editors', description: 'People who edit', members: [member.userId, member.userId] },
    });
    expect(created.status).toBe(201);
    const team = created.body.data;
    expect(team).toMatchObject({ name: 'Editors', description: 'People who edit', members: [member.userId] });
    expect((await service.request('GET', `/teams/${team.id}`, { site: site.siteId, token: site.adminToken })).body.data).toEqual(team);

    const updated = await service.request('PATCH', `/teams/${team.id}`, {
      site: site.siteId,
      token: site.adminToken,
      body: { name: 'Senior editors', members: [site.adminUserId, member.userId], description: null },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ name: 'Senior editors', description: null });
    expect([...updated.body.data.members].sort()).toEqual([site.adminUserId, member.userId].sort());

    await service.request('POST', '/teams', { site: site.siteId, token: site.adminToken, body: { name: 'Authors' } });
    const listed = await service.request('GET', '/teams', { site: site.siteId, token: site.adminToken });
    expect(listed.body.data.map((row: { name: string }) => row.name)).toEqual(['Authors', 'Senior editors']);
    expect(listed.body.meta.total).toBe(2);

    // A deleted user leaves its teams.
    await service.request('DELETE', `/users/${member.userId}`, { site: site.siteId, token: site.adminToken });
    const afterUserDelete = await service.request('GET', `/teams/${team.id}`, { site: site.siteId, token: site.adminToken });
    expect(afterUserDelete.body.data.members).toEqual([site.adminUserId]);

    expect((await service.request('DELETE', `/teams/${team.id}`, { site: site.siteId, token: site.adminToken })).status).toBe(204);
    expect((await service.request('GET', `/teams/${team.id}`, { site: site.siteId, token: site.adminToken })).status).toBe(404);
    expect((await service.request('DELETE', `/teams/${team.id}`, { site: site.siteId, token: site.adminToken })).status).toBe(404);
    const actions = (await auditActions(service, site, `&filter[target][_eq]=team/${team.id}`)).map((entry) => entry.action);
    expect(actions).toEqual(['team.deleted', 'team.updated', 'team.created']);
  });

  it('refuses a duplicate name (409), unknown members (400 with the index), and a bad body', async () => {
    const site = await createTestSite(service);
    await service.request('POST', '/teams', { site: site.siteId, token: site.adminToken, body: { name: 'Editors' } });
    const duplicate = await service.request('POST', '/teams', { site: site.siteId, token: site.adminToken, body: { name: 'editors' } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.errors[0]).toMatchObject({ code: 'CONFLICT', path: ['body', 'name'] });
    const unknownMember = await service.request('POST', '/teams', {
      site: site.siteId,
      token: site.adminToken,
      body: { name: 'Ghosts', members: [site.adminUserId, '6f1c1b7e-0000-4000-8000-000000000000'] },
    });
    expect(unknownMember.status).toBe(400);
    expect(unknownMember.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'members', 1] });
    const noName = await service.request('POST', '/teams', { site: site.siteId, token: site.adminToken, body: { name: '  ' } });
    expect(noName.status).toBe(400);
    expect(noName.body.errors[0].path).toEqual(['body', 'name']);
    const badMember = await service.request('POST', '/teams', { site: site.siteId, token: site.adminToken, body: { name: 'X', members: ['nope'] } });
    expect(badMember.body.errors[0].path).toEqual(['body', 'members', 0]);
    const listed = await service.request('GET', '/teams', { site: site.siteId, token: site.adminToken });
    expect(listed.body.meta.total).toBe(1);
  });

  it('refuses renaming onto another team and patching an unknown team', async () => {
    const site = await createTestSite(service);
    await service.request('POST', '/teams', { site: site.siteId, token: site.adminToken, body: { name: 'A' } });
    const b = await service.request('POST', '/teams', { site: site.siteId, token: site.adminToken, body: { name: 'B' } });
    const rename = await service.request('PATCH', `/teams/${b.body.data.id}`, { site: site.siteId, token: site.adminToken, body: { name: 'a' } });
    expect(rename.status).toBe(409);
    const sameName = await service.request('PATCH', `/teams/${b.body.data.id}`, { site: site.siteId, token: site.adminToken, body: { name: 'b' } });
    expect(sameName.status).toBe(200);
    const unknown = await service.request('PATCH', '/teams/6f1c1b7e-0000-4000-8000-000000000000', { site: site.siteId, token: site.adminToken, body: { name: 'C' } });
    expect(unknown.status).toBe(404);
  });

  it('is for site administrators, and keeps sites apart', async () => {
    const site = await createTestSite(service);
    const other = await createTestSite(service);
    const member = await createMember(service, site);
    const team = await service.request('POST', '/teams', { site: site.siteId, token: site.adminToken, body: { name: 'Mine' } });
    expect((await service.request('GET', '/teams', { site: site.siteId, token: member.token })).status).toBe(403);
    expect((await service.request('POST', '/teams', { site: site.siteId, token: member.token, body: { name: 'X' } })).status).toBe(403);
    expect((await service.request('GET', `/teams/${team.body.data.id}`, { site: other.siteId, token: other.adminToken })).status).toBe(404);
    expect((await service.request('DELETE', `/teams/${team.body.data.id}`, { site: other.siteId, token: other.adminToken })).status).toBe(404);
    const otherList = await service.request('GET', '/teams', { site: other.siteId, token: other.adminToken });
    expect(otherList.body.data).toEqual([]);
    // A member from another site cannot be added.
    const crossMember = await service.request('POST', '/teams', { site: other.siteId, token: other.adminToken, body: { name: 'Cross', members: [member.userId] } });
    expect(crossMember.status).toBe(400);
  });
});
