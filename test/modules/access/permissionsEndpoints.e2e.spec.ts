import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createContentModel, createItem, createMember, createRole, grant, withHelpers } from './support.ts';

const service = await startTestServiceForFile();

async function setup() {
  const site = withHelpers(service, await createTestSite(service));
  await createContentModel(site);
  const published = await createItem(site, 'articles', { title: 'Out', status: 'published' });
  const draft = await createItem(site, 'articles', { title: 'Soon', status: 'draft' });
  const parent = await createRole(site, { name: 'Readers' });
  const role = await createRole(site, { name: 'Writers', parentId: parent.id });
  const readPolicy = await grant(site, { roleId: parent.id }, [{ collection: 'articles', action: 'read', fields: ['id', 'title'], conditions: { status: { _eq: 'published' } } }], 'Read published');
  const writePolicy = await grant(
    site,
    { roleId: role.id },
    [
      { collection: 'articles', action: 'read', fields: ['status'], conditions: { userCreated: { _eq: '$CURRENT_USER' } } },
      { collection: 'articles', action: 'update', fields: ['title'] },
      { collection: null, action: 'cdc:subscribe' },
    ],
    'Write own',
  );
  const member = await createMember(service, site, { roleId: role.id });
  return { site, published, draft, parent, role, readPolicy, writePolicy, member };
}

describe('GET /permissions/me', () => {
  it('shows the effective matrix of a member, merged over its role chain', async () => {
    const { site, member, role, parent } = await setup();
    const me = await site.as(member.token, 'GET', '/permissions/me');
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({
      principal: { kind: 'user', userId: member.userId, roleId: role.id, admin: false },
      admin: false,
      roleChain: [role.id, parent.id],
      capabilities: ['cdc:subscribe'],
    });
    expect(Object.keys(me.body.data.collections)).toEqual(['articles']);
    expect(me.body.data.collections.articles).toEqual({
      create: { allowed: false, fields: [], conditions: null },
      read: {
        allowed: true,
        fields: ['id', 'status', 'title'],
        conditions: { _or: [{ status: { _eq: 'published' } }, { userCreated: { _eq: '$CURRENT_USER' } }] },
      },
      update: { allowed: true, fields: ['title'], conditions: null },
      delete: { allowed: false, fields: [], conditions: null },
    });
  });

  it('shows everything to an administrator and the public role to anonymous requests', async () => {
    const { site } = await setup();
    const admin = await site.admin('GET', '/permissions/me');
    expect(admin.body.data.admin).toBe(true);
    expect(Object.keys(admin.body.data.collections).sort()).toEqual(['articles', 'authors']);
    expect(admin.body.data.collections.authors.delete).toEqual({ allowed: true, fields: ['*'], conditions: null });
    expect(admin.body.data.capabilities).toContain('cdc:subscribe');

    const nobody = await site.as(null, 'GET', '/permissions/me');
    expect(nobody.status).toBe(200);
    expect(nobody.body.data).toMatchObject({ principal: { kind: 'anonymous' }, admin: false, collections: {}, capabilities: [] });
    const publicRole = (await site.admin('GET', '/roles')).body.data.find((entry: { systemKey: string }) => entry.systemKey === 'public');
    await grant(site, { roleId: publicRole.id }, [{ collection: 'authors', action: 'read', fields: ['name'] }]);
    const afterGrant = await site.as(null, 'GET', '/permissions/me');
    expect(afterGrant.body.data.principal.roleId).toBe(publicRole.id);
    expect(afterGrant.body.data.collections.authors.read).toEqual({ allowed: true, fields: ['name'], conditions: null });
    expect((await site.as(null, 'GET', '/permissions/me', undefined)).status).toBe(200);
    expect((await service.request('GET', '/permissions/me')).status).toBe(400);
  });
});

describe('POST /permissions/check', () => {
  it('names the policy and rule that allowed a decision, or says that none did', async () => {
    const { site, member, published, draft, readPolicy, parent } = await setup();
    const allowed = await site.as(member.token, 'POST', '/permissions/check', { action: 'read', collection: 'articles', itemId: published.id });
    expect(allowed.status).toBe(200);
    expect(allowed.body.data).toMatchObject({ allowed: true, reason: 'rule', action: 'read', collection: 'articles', itemId: published.id });
    expect(allowed.body.data.allowedBy).toEqual([
      expect.objectContaining({ policyId: readPolicy, policyName: 'Read published', via: { kind: 'role', id: parent.id }, matchesItem: true }),
    ]);
    expect(allowed.body.data.rules).toHaveLength(2);
    expect(allowed.body.data.message).toContain('Read published');

    // The member cannot see the draft: for itself, it does not exist.
    const hidden = await site.as(member.token, 'POST', '/permissions/check', { action: 'read', collection: 'articles', itemId: draft.id });
    expect(hidden.status).toBe(404);
    // An administrator asking on the member's behalf learns why.
    const onBehalf = await site.admin('POST', '/permissions/check', { action: 'read', collection: 'articles', itemId: draft.id, principal: { userId: member.userId } });
    expect(onBehalf.status).toBe(200);
    expect(onBehalf.body.data).toMatchObject({ allowed: false, reason: 'conditions_not_met', principal: { kind: 'user', userId: member.userId } });
    expect(onBehalf.body.data.rules.every((rule: { matchesItem: boolean }) => rule.matchesItem === false)).toBe(true);

    const noRule = await site.as(member.token, 'POST', '/permissions/check', { action: 'delete', collection: 'articles' });
    expect(noRule.body.data).toMatchObject({ allowed: false, reason: 'no_rule', allowedBy: [], fields: [] });
    const capability = await site.as(member.token, 'POST', '/permissions/check', { action: 'cdc:subscribe' });
    expect(capability.body.data).toMatchObject({ allowed: true, reason: 'rule', collection: null });
    const missingCapability = await site.as(member.token, 'POST', '/permissions/check', { action: 'agents:freeze', collection: null });
    expect(missingCapability.body.data).toMatchObject({ allowed: false, reason: 'no_rule' });
    const collectionWide = await site.as(member.token, 'POST', '/permissions/check', { action: 'update', collection: 'articles' });
    expect(collectionWide.body.data).toMatchObject({ allowed: true, fields: ['title'], conditions: null });

    const asRole = await site.admin('POST', '/permissions/check', { action: 'read', collection: 'articles', principal: { roleId: parent.id } });
    expect(asRole.body.data).toMatchObject({ allowed: true, principal: { userId: null, roleId: parent.id, admin: false }, fields: ['id', 'title'] });
    const admin = await site.admin('POST', '/permissions/check', { action: 'delete', collection: 'articles', itemId: draft.id });
    expect(admin.body.data).toMatchObject({ allowed: true, reason: 'admin' });
  });

  it('refuses bad checks with precise errors', async () => {
    const { site, member, published } = await setup();
    const cases: [string, unknown, number, string, (string | number)[]][] = [
      [member.token, { action: 'read', collection: 'articles', principal: { userId: site.adminUserId } }, 403, 'PERMISSION_DENIED', ['body', 'principal']],
      [site.adminToken, { action: 'publish', collection: 'articles' }, 400, 'VALIDATION_FAILED', ['body', 'action']],
      [site.adminToken, { action: 'read' }, 400, 'VALIDATION_FAILED', ['body', 'collection']],
      [site.adminToken, { action: 'read', collection: 'ghosts' }, 400, 'VALIDATION_FAILED', ['body', 'collection']],
      [site.adminToken, { action: 'cdc:subscribe', itemId: published.id }, 400, 'VALIDATION_FAILED', ['body', 'itemId']],
      [site.adminToken, { action: 'read', collection: 'articles', principal: { userId: '6f1c1b7e-0000-4000-8000-000000000000' } }, 400, 'VALIDATION_FAILED', ['body', 'principal', 'userId']],
      [site.adminToken, { action: 'read', collection: 'articles', principal: { roleId: '6f1c1b7e-0000-4000-8000-000000000000' } }, 400, 'VALIDATION_FAILED', ['body', 'principal', 'roleId']],
      [site.adminToken, { action: 'read', collection: 'articles', itemId: 'missing' }, 404, 'RECORD_NOT_FOUND', []],
    ];
    for (const [token, body, status, code, path] of cases) {
      const response = await site.as(token, 'POST', '/permissions/check', body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.errors[0], JSON.stringify(body)).toMatchObject({ code, path });
    }
    expect((await site.as(null, 'POST', '/permissions/check', { action: 'read', collection: 'articles' })).status).toBe(401);
    expect((await site.admin('POST', '/permissions/check', { collection: 'articles' })).body.errors[0].path).toEqual(['body', 'action']);
  });
});
