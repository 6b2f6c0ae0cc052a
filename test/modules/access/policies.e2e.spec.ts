import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { auditActions } from '../identity/support/identity.ts';
import { createContentModel, createMember, createRole, withHelpers, type AccessSite } from './support.ts';

const service = await startTestServiceForFile();

const UNKNOWN = '6f1c1b7e-0000-4000-8000-000000000000';

async function modelSite(): Promise<AccessSite> {
  const site = withHelpers(service, await createTestSite(service));
  await createContentModel(site);
  return site;
}

describe('/policies', () => {
  it('creates, reads, lists, updates and deletes a policy with its rules; every change is audited', async () => {
    const site = await modelSite();
    const created = await site.admin('POST', '/policies', { name: 'Editors', description: 'Edit articles' });
    expect(created.status).toBe(201);
    const policy = created.body.data;
    expect(policy).toMatchObject({ name: 'Editors', description: 'Edit articles', permissionCount: 0, attachments: { roles: [], users: [], teams: [] } });

    const rule = await site.admin('POST', `/policies/${policy.id}/permissions`, {
      collection: 'articles',
      action: 'read',
      fields: ['title', 'title', 'status'],
      conditions: { status: { _eq: 'published' } },
    });
    expect(rule.status).toBe(201);
    expect(rule.body.data).toMatchObject({ policyId: policy.id, collection: 'articles', action: 'read', fields: ['title', 'status'], conditions: { status: { _eq: 'published' } } });
    const capability = await site.admin('POST', `/policies/${policy.id}/permissions`, { collection: null, action: 'media:create' });
    expect(capability.body.data).toMatchObject({ collection: null, action: 'media:create', fields: [], conditions: null });
    const everything = await site.admin('POST', `/policies/${policy.id}/permissions`, { collection: 'authors', action: 'update', fields: ['name', '*'] });
    expect(everything.body.data.fields).toEqual(['*']);

    const listedRules = await site.admin('GET', `/policies/${policy.id}/permissions`);
    expect(listedRules.body.data.map((entry: { id: string }) => entry.id)).toEqual([rule.body.data.id, capability.body.data.id, everything.body.data.id]);
    const detail = await site.admin('GET', `/policies/${policy.id}`);
    expect(detail.body.data).toMatchObject({ name: 'Editors', permissionCount: 3 });
    expect(detail.body.data.permissions).toHaveLength(3);

    const renamed = await site.admin('PATCH', `/policies/${policy.id}`, { name: 'Senior editors', description: null });
    expect(renamed.body.data).toMatchObject({ name: 'Senior editors', description: null });
    await site.admin('POST', '/policies', { name: 'Authors' });
    const listed = await site.admin('GET', '/policies');
    expect(listed.body.data.map((entry: { name: string }) => entry.name)).toEqual(['Authors', 'Senior editors']);
    expect(listed.body.meta.total).toBe(2);

    expect((await site.admin('DELETE', `/policies/${policy.id}/permissions/${capability.body.data.id}`)).status).toBe(204);
    expect((await site.admin('DELETE', `/policies/${policy.id}/permissions`, { ids: [rule.body.data.id, everything.body.data.id] })).status).toBe(204);
    expect((await site.admin('GET', `/policies/${policy.id}/permissions`)).body.data).toEqual([]);

    expect((await site.admin('DELETE', `/policies/${policy.id}`)).status).toBe(204);
    expect((await site.admin('GET', `/policies/${policy.id}`)).status).toBe(404);
    const actions = (await auditActions(service, site, `&filter[target][_eq]=policy/${policy.id}`)).map((entry) => entry.action);
    expect(actions).toEqual([
      'policy.deleted',
      'policy.permission_removed',
      'policy.permission_removed',
      'policy.permission_removed',
      'policy.updated',
      'policy.permission_added',
      'policy.permission_added',
      'policy.permission_added',
      'policy.created',
    ]);
  });

  it('answers 404 for an unknown policy on every route, and keeps other sites\' policies apart', async () => {
    const site = await modelSite();
    const other = withHelpers(service, await createTestSite(service));
    const foreign = (await other.admin('POST', '/policies', { name: 'Theirs' })).body.data.id;
    for (const id of [UNKNOWN, foreign, 'not-a-uuid']) {
      const attempts: [string, string, unknown][] = [
        ['GET', `/policies/${id}`, undefined],
        ['PATCH', `/policies/${id}`, { name: 'x' }],
        ['DELETE', `/policies/${id}`, undefined],
        ['GET', `/policies/${id}/permissions`, undefined],
        ['POST', `/policies/${id}/permissions`, { collection: 'articles', action: 'read' }],
        ['DELETE', `/policies/${id}/permissions/${UNKNOWN}`, undefined],
        ['POST', `/policies/${id}/attach`, { roleId: UNKNOWN }],
        ['POST', `/policies/${id}/detach`, { roleId: UNKNOWN }],
      ];
      for (const [method, path, body] of attempts) {
        const response = await site.admin(method, path, body);
        expect(response.status, `${method} ${path}`).toBe(404);
        expect(response.body.errors[0].code).toBe('NOT_FOUND');
      }
    }
    expect((await other.admin('GET', `/policies/${foreign}`)).body.data.name).toBe('Theirs');
    const policy = (await site.admin('POST', '/policies', { name: 'Mine' })).body.data.id;
    const missingRule = await site.admin('DELETE', `/policies/${policy}/permissions/${UNKNOWN}`);
    expect(missingRule.status).toBe(404);
    const kept = await site.admin('POST', `/policies/${policy}/permissions`, { collection: 'articles', action: 'read' });
    const partly = await site.admin('DELETE', `/policies/${policy}/permissions`, { ids: [kept.body.data.id, UNKNOWN] });
    expect(partly.status).toBe(404);
    expect((await site.admin('GET', `/policies/${policy}/permissions`)).body.data).toHaveLength(1);
  });

  it('refuses bad bodies and duplicate names', async () => {
    const site = await modelSite();
    expect((await site.admin('POST', '/policies', { name: '' })).body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'name'] });
    expect((await site.admin('POST', '/policies', { name: 'A', admin: true })).status).toBe(400);
    await site.admin('POST', '/policies', { name: 'Editors' });
    const duplicate = await site.admin('POST', '/policies', { name: 'EDITORS' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.errors[0]).toMatchObject({ code: 'CONFLICT', path: ['body', 'name'] });
    const other = (await site.admin('POST', '/policies', { name: 'Other' })).body.data.id;
    expect((await site.admin('PATCH', `/policies/${other}`, { name: 'editors' })).status).toBe(409);
    expect((await site.admin('GET', '/policies')).body.meta.total).toBe(2);
  });
});

describe('/policies/:id/permissions validation', () => {
  it('answers 400 with the path of what is wrong, and writes nothing', async () => {
    const site = await modelSite();
    const policy = (await site.admin('POST', '/policies', { name: 'Rules' })).body.data.id;
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ collection: 'articles', action: 'publish' }, ['body', 'action']],
      [{ collection: 'articles', action: 'READ' }, ['body', 'action']],
      [{ collection: null, action: 'read' }, ['body', 'collection']],
      [{ action: 'update' }, ['body', 'collection']],
      [{ collection: 'articles', action: 'cdc:subscribe' }, ['body', 'collection']],
      [{ collection: null, action: 'agents:freeze', conditions: { a: 1 } }, ['body', 'conditions']],
      [{ collection: null, action: 'media:read', fields: ['title'] }, ['body', 'fields']],
      [{ collection: 'ghosts', action: 'read' }, ['body', 'collection']],
      [{ collection: 'articles', action: 'read', fields: ['title', 'nope'] }, ['body', 'fields', 1]],
      [{ collection: 'articles', action: 'read', conditions: { nope: { _eq: 1 } } }, ['body', 'conditions', 'nope']],
      [{ collection: 'articles', action: 'read', conditions: { title: { _bogus: 1 } } }, ['body', 'conditions', 'title', '_bogus']],
      [{ collection: 'articles', action: 'read', conditions: { _or: [{ rating: { _gt: 'high' } }] } }, ['body', 'conditions', '_or', 0, 'rating', '_gt']],
      [{ collection: 'articles', action: 'read', conditions: { rating: { _eq: '$CURRENT_USER' } } }, ['body', 'conditions', 'rating', '_eq']],
      [{ collection: 'articles', action: 'create', conditions: { author: { name: { _eq: 'Ann' } } } }, ['body', 'conditions']],
      [{ collection: 'articles', action: 'read', extra: true }, ['body']],
      [{ collection: 'articles', action: 'read', fields: 'title' }, ['body', 'fields']],
    ];
    for (const [body, path] of cases) {
      const response = await site.admin('POST', `/policies/${policy}/permissions`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errors[0].code, JSON.stringify(body)).toBe('VALIDATION_FAILED');
      expect(response.body.errors[0].path, JSON.stringify(body)).toEqual(path);
    }
    expect((await site.admin('GET', `/policies/${policy}/permissions`)).body.data).toEqual([]);

    const accepted: Record<string, unknown>[] = [
      { collection: null, action: 'review:legal' },
      { collection: null, action: 'read_decrypted' },
      { collection: 'authors', action: 'read_decrypted', fields: ['email'] },
      { collection: 'articles', action: 'read', conditions: { author: { name: { _eq: 'Ann' } }, createdAt: { _gte: '$NOW(-7 days)' } } },
      { collection: 'articles', action: 'update', conditions: { _and: [{ userCreated: { _eq: '$CURRENT_USER' } }, { status: { _neq: 'archived' } }] } },
    ];
    for (const body of accepted) {
      const response = await site.admin('POST', `/policies/${policy}/permissions`, body);
      expect(response.status, JSON.stringify(response.body)).toBe(201);
    }
  });
});

describe('/policies/:id/attach and /detach', () => {
  it('attaches to roles, users and teams, idempotently, and detaches', async () => {
    const site = await modelSite();
    const policy = (await site.admin('POST', '/policies', { name: 'Shared' })).body.data.id;
    const role = await createRole(site);
    const member = await createMember(service, site);
    const team = (await site.admin('POST', '/teams', { name: 'Desk' })).body.data;
    expect((await site.admin('POST', `/policies/${policy}/attach`, { roleId: role.id })).status).toBe(200);
    expect((await site.admin('POST', `/policies/${policy}/attach`, { userId: member.userId })).status).toBe(200);
    const third = await site.admin('POST', `/policies/${policy}/attach`, { teamId: team.id });
    expect(third.body.data.attachments).toEqual({ roles: [role.id], users: [member.userId], teams: [team.id] });
    const again = await site.admin('POST', `/policies/${policy}/attach`, { roleId: role.id });
    expect(again.status).toBe(200);
    expect(again.body.data.attachments.roles).toEqual([role.id]);

    const detached = await site.admin('POST', `/policies/${policy}/detach`, { userId: member.userId });
    expect(detached.status).toBe(200);
    expect(detached.body.data.attachments.users).toEqual([]);
    const notAttached = await site.admin('POST', `/policies/${policy}/detach`, { userId: member.userId });
    expect(notAttached.status).toBe(404);

    // Deleting the team or the role takes the attachment with it.
    await site.admin('DELETE', `/teams/${team.id}`);
    await site.admin('DELETE', `/roles/${role.id}`);
    expect((await site.admin('GET', `/policies/${policy}`)).body.data.attachments).toEqual({ roles: [], users: [], teams: [] });
    const actions = (await auditActions(service, site, `&filter[target][_eq]=policy/${policy}`)).map((entry) => entry.action);
    expect(actions.filter((action) => action === 'policy.attached')).toHaveLength(3);
    expect(actions.filter((action) => action === 'policy.detached')).toHaveLength(2);
  });

  it('refuses bodies naming no target, several targets, or an unknown one', async () => {
    const site = await modelSite();
    const policy = (await site.admin('POST', '/policies', { name: 'P' })).body.data.id;
    const role = await createRole(site);
    const cases: [unknown, (string | number)[]][] = [
      [{}, ['body']],
      [{ roleId: role.id, userId: site.adminUserId }, ['body']],
      [{ roleId: 'nope' }, ['body', 'roleId']],
      [{ groupId: role.id }, ['body']],
      [{ roleId: UNKNOWN }, ['body', 'roleId']],
      [{ userId: UNKNOWN }, ['body', 'userId']],
      [{ teamId: UNKNOWN }, ['body', 'teamId']],
    ];
    for (const [body, path] of cases) {
      const response = await site.admin('POST', `/policies/${policy}/attach`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errors[0].path, JSON.stringify(body)).toEqual(path);
    }
    expect((await site.admin('GET', `/policies/${policy}`)).body.data.attachments).toEqual({ roles: [], users: [], teams: [] });
  });
});
