import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { auditActions } from '../identity/support/identity.ts';
import { createMember, createRole, grant, withHelpers } from './support.ts';

const service = await startTestServiceForFile();

describe('/roles', () => {
  it('creates, reads, lists, updates and deletes a role; every change is audited', async () => {
    const site = withHelpers(service, await createTestSite(service));
    const created = await site.admin('POST', '/roles', { name: 'Editors', description: 'Edit things' });
    expect(created.status).toBe(201);
    const role = created.body.data;
    expect(role).toMatchObject({ name: 'Editors', description: 'Edit things', admin: false, parentId: null, systemKey: null });
    expect((await site.admin('GET', `/roles/${role.id}`)).body.data).toEqual(role);

    const parent = await createRole(site, { name: 'Writers' });
    const updated = await site.admin('PATCH', `/roles/${role.id}`, { name: 'Senior editors', parentId: parent.id, description: null });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ name: 'Senior editors', parentId: parent.id, description: null });

    const listed = await site.admin('GET', '/roles');
    expect(listed.status).toBe(200);
    const names = listed.body.data.map((entry: { name: string }) => entry.name);
    expect(names).toEqual(expect.arrayContaining(['Administrator', 'Public', 'Senior editors', 'Writers']));
    const publicRole = listed.body.data.find((entry: { systemKey: string | null }) => entry.systemKey === 'public');
    expect(publicRole).toMatchObject({ admin: false, parentId: null });
    // Listing again does not create a second public role.
    const again = await site.admin('GET', '/roles');
    expect(again.body.data.filter((entry: { systemKey: string | null }) => entry.systemKey === 'public')).toHaveLength(1);

    expect((await site.admin('DELETE', `/roles/${role.id}`)).status).toBe(204);
    expect((await site.admin('GET', `/roles/${role.id}`)).status).toBe(404);
    expect((await site.admin('DELETE', `/roles/${role.id}`)).status).toBe(404);
    const actions = (await auditActions(service, site, `&filter[target][_eq]=role/${role.id}`)).map((entry) => entry.action);
    expect(actions).toEqual(['role.deleted', 'role.updated', 'role.created']);
  });

  it('refuses inheritance cycles and unknown parents with 400 on parentId', async () => {
    const site = withHelpers(service, await createTestSite(service));
    const a = await createRole(site);
    const b = await createRole(site, { parentId: a.id });
    const c = await createRole(site, { parentId: b.id });
    const cycle = await site.admin('PATCH', `/roles/${a.id}`, { parentId: c.id });
    expect(cycle.status).toBe(400);
    expect(cycle.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'parentId'] });
    const self = await site.admin('PATCH', `/roles/${a.id}`, { parentId: a.id });
    expect(self.status).toBe(400);
    expect(self.body.errors[0].path).toEqual(['body', 'parentId']);
    const unknown = await site.admin('POST', '/roles', { name: 'Orphan', parentId: '6f1c1b7e-0000-4000-8000-000000000000' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'parentId'] });
    // Nothing changed.
    expect((await site.admin('GET', `/roles/${a.id}`)).body.data.parentId).toBeNull();
    // Moving c under a (no cycle) is fine, and clearing the parent too.
    expect((await site.admin('PATCH', `/roles/${c.id}`, { parentId: a.id })).body.data.parentId).toBe(a.id);
    expect((await site.admin('PATCH', `/roles/${c.id}`, { parentId: null })).body.data.parentId).toBeNull();
  });

  it('refuses bad bodies, duplicate names, unknown ids and roles still in use', async () => {
    const site = withHelpers(service, await createTestSite(service));
    const noName = await site.admin('POST', '/roles', { name: '  ' });
    expect(noName.status).toBe(400);
    expect(noName.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'name'] });
    const extra = await site.admin('POST', '/roles', { name: 'X', systemKey: 'admin' });
    expect(extra.status).toBe(400);
    const badAdmin = await site.admin('POST', '/roles', { name: 'X', admin: 'yes' });
    expect(badAdmin.body.errors[0].path).toEqual(['body', 'admin']);
    const role = await createRole(site, { name: 'Editors' });
    const duplicate = await site.admin('POST', '/roles', { name: 'editors' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.errors[0]).toMatchObject({ code: 'CONFLICT', path: ['body', 'name'] });
    expect((await site.admin('PATCH', `/roles/${role.id}`, { name: 'Administrator' })).status).toBe(409);
    expect((await site.admin('GET', '/roles/not-a-uuid')).status).toBe(404);
    expect((await site.admin('PATCH', '/roles/6f1c1b7e-0000-4000-8000-000000000000', { name: 'Y' })).status).toBe(404);

    const member = await createMember(service, site, { roleId: role.id });
    const inUse = await site.admin('DELETE', `/roles/${role.id}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.errors[0]).toMatchObject({ code: 'CONFLICT', extensions: { users: 1, childRoles: 0, apiKeys: 0 } });
    const child = await createRole(site, { parentId: role.id });
    await site.admin('PATCH', `/users/${member.userId}`, { roleId: null });
    expect((await site.admin('DELETE', `/roles/${role.id}`)).body.errors[0].extensions).toMatchObject({ users: 0, childRoles: 1 });
    await site.admin('DELETE', `/roles/${child.id}`);
    expect((await site.admin('DELETE', `/roles/${role.id}`)).status).toBe(204);
  });

  it('protects the system roles', async () => {
    const site = withHelpers(service, await createTestSite(service));
    const roles = (await site.admin('GET', '/roles')).body.data;
    const adminRole = roles.find((role: { systemKey: string }) => role.systemKey === 'admin');
    const publicRole = roles.find((role: { systemKey: string }) => role.systemKey === 'public');
    const demote = await site.admin('PATCH', `/roles/${adminRole.id}`, { admin: false });
    expect(demote.status).toBe(400);
    expect(demote.body.errors[0].path).toEqual(['body', 'admin']);
    const promote = await site.admin('PATCH', `/roles/${publicRole.id}`, { admin: true });
    expect(promote.status).toBe(400);
    expect(promote.body.errors[0].path).toEqual(['body', 'admin']);
    expect((await site.admin('DELETE', `/roles/${publicRole.id}`)).status).toBe(409);
    expect((await site.admin('PATCH', `/roles/${publicRole.id}`, { name: 'Visitors' })).body.data.name).toBe('Visitors');
  });

  it('keeps roles of one site invisible from another', async () => {
    const one = withHelpers(service, await createTestSite(service));
    const two = withHelpers(service, await createTestSite(service));
    const role = await createRole(one);
    expect((await two.admin('GET', `/roles/${role.id}`)).status).toBe(404);
    expect((await two.admin('PATCH', `/roles/${role.id}`, { name: 'Taken over' })).status).toBe(404);
    expect((await two.admin('DELETE', `/roles/${role.id}`)).status).toBe(404);
    expect((await two.admin('GET', '/roles')).body.data.map((entry: { id: string }) => entry.id)).not.toContain(role.id);
  });
});

describe('escalation', () => {
  it('refuses non-administrators every role and policy change, including on themselves', async () => {
    const site = withHelpers(service, await createTestSite(service));
    const role = await createRole(site);
    const member = await createMember(service, site, { roleId: role.id });
    const policyId = await grant(site, null, [{ collection: null, action: 'cdc:subscribe' }]);
    const attempts: [string, string, unknown][] = [
      ['POST', '/roles', { name: 'Root', admin: true }],
      ['PATCH', `/roles/${role.id}`, { admin: true }],
      ['DELETE', `/roles/${role.id}`, undefined],
      ['GET', '/roles', undefined],
      ['POST', '/policies', { name: 'Mine' }],
      ['POST', `/policies/${policyId}/attach`, { userId: member.userId }],
      ['POST', `/policies/${policyId}/attach`, { roleId: role.id }],
      ['POST', `/policies/${policyId}/permissions`, { collection: null, action: 'agents:freeze' }],
      ['PATCH', `/users/${member.userId}`, { roleId: site.adminUserId }],
    ];
    for (const [method, path, body] of attempts) {
      const response = await site.as(member.token, method, path, body);
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.errors[0].code).toBe('PERMISSION_DENIED');
    }
    const roles = (await site.admin('GET', '/roles')).body.data;
    expect(roles.filter((entry: { admin: boolean }) => entry.admin)).toHaveLength(1);
    expect((await site.admin('GET', `/policies/${policyId}`)).body.data.attachments).toEqual({ roles: [], users: [], teams: [] });
    // Anonymous requests get 401.
    expect((await site.as(null, 'POST', '/roles', { name: 'Root', admin: true })).status).toBe(401);
  });
});
