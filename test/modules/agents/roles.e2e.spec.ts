// /agent/roles over real HTTP (docs/agents.md "Agent roles"): administrators only (a member, a
// non-admin role's API key: 403; an admin role's key may); create, read, list, change, delete; a taken
// name 409; bad names, unknown skills and bad collections 400 at their path; another site's roles 404.
import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createAgentRole, createAgentSite, expectError, memberWith, ok, roleKey } from './gateSupport.ts';

const service = await startTestServiceForFile();

describe('/agent/roles', () => {
  it('creates, reads, lists (by name, paged), changes and deletes a role', async () => {
    const site = await createAgentSite(service);
    const writer = await createAgentRole(site, { name: 'writer', description: 'Drafts articles', skills: ['items.create', 'items.list'], collections: ['articles', 'pages'] });
    expect(writer).toMatchObject({ name: 'writer', description: 'Drafts articles', skills: ['items.create', 'items.list'], collections: ['articles', 'pages'] });
    expect(Date.parse(writer.createdAt)).not.toBeNaN();
    await createAgentRole(site, { name: 'auditor', skills: ['*'], collections: ['*'] });
    expect(await ok(site, 'GET', '/agent/roles/writer', 200)).toEqual(writer);

    const listed = await site.admin('GET', '/agent/roles');
    expect(listed.body.data.map((role: { name: string }) => role.name)).toEqual(['auditor', 'writer']);
    expect(listed.body.meta).toEqual({ total: 2, page: 1, pageSize: 25 });
    const second = await site.admin('GET', '/agent/roles?limit=1&page=2');
    expect(second.body.data.map((role: { name: string }) => role.name)).toEqual(['writer']);

    const changed = await ok(site, 'PATCH', '/agent/roles/writer', 200, { skills: ['items.*'], description: null });
    expect(changed).toMatchObject({ name: 'writer', description: null, skills: ['items.*'], collections: ['articles', 'pages'] });
    // Nothing changed: the same role, no new event.
    expect(await ok(site, 'PATCH', '/agent/roles/writer', 200, { skills: ['items.*'] })).toEqual(changed);

    await ok(site, 'DELETE', '/agent/roles/writer', 204);
    expectError(await site.admin('GET', '/agent/roles/writer'), 404, 'NOT_FOUND');
    expectError(await site.admin('DELETE', '/agent/roles/writer'), 404, 'NOT_FOUND');
    expectError(await site.admin('PATCH', '/agent/roles/writer', { skills: [] }), 404, 'NOT_FOUND');
    // A deleted role's name may be used again.
    expect(await createAgentRole(site, { name: 'writer' })).toMatchObject({ name: 'writer', skills: ['items.*'] });
  });

  it('refuses a taken name (409) and bad bodies (400 at the field)', async () => {
    const site = await createAgentSite(service);
    await createAgentRole(site, { name: 'writer' });
    expectError(await site.admin('POST', '/agent/roles', { name: 'writer', skills: [], collections: [] }), 409, 'CONFLICT', ['body', 'name']);
    expectError(await site.admin('POST', '/agent/roles', { name: 'Not A Slug', skills: [], collections: [] }), 400, 'VALIDATION_FAILED', ['body', 'name']);
    expectError(await site.admin('POST', '/agent/roles', { name: 'x', skills: ['items.list', 'nope.delete'], collections: [] }), 400, 'VALIDATION_FAILED', ['body', 'skills', 1]);
    expectError(await site.admin('POST', '/agent/roles', { name: 'x', skills: ['ghosts.*'], collections: [] }), 400, 'VALIDATION_FAILED', ['body', 'skills', 0]);
    // A registered command that is not a skill is no skill either.
    expectError(await site.admin('POST', '/agent/roles', { name: 'x', skills: ['agents.freeze'], collections: [] }), 400, 'VALIDATION_FAILED', ['body', 'skills', 0]);
    expectError(await site.admin('POST', '/agent/roles', { name: 'x', skills: [], collections: ['bad name!'] }), 400, 'VALIDATION_FAILED', ['body', 'collections', 0]);
    expectError(await site.admin('POST', '/agent/roles', { name: 'x', skills: 'items.*', collections: [] }), 400, 'VALIDATION_FAILED', ['body', 'skills']);
    expectError(await site.admin('POST', '/agent/roles', { name: 'x', collections: [] }), 400, 'VALIDATION_FAILED', ['body', 'skills']);
    expectError(await site.admin('POST', '/agent/roles', { name: 'x', skills: [], collections: [], admin: true }), 400, 'VALIDATION_FAILED');
    expectError(await site.admin('PATCH', '/agent/roles/writer', { skills: ['items.nothing'] }), 400, 'VALIDATION_FAILED', ['body', 'skills', 0]);
    expectError(await site.admin('PATCH', '/agent/roles/writer', { name: 'renamed' }), 400, 'VALIDATION_FAILED');
    expectError(await site.admin('GET', '/agent/roles?limit=0'), 400, 'VALIDATION_FAILED', ['query', 'limit']);
    // Nothing was written by the refusals.
    expect((await site.admin('GET', '/agent/roles')).body.data.map((role: { name: string }) => role.name)).toEqual(['writer']);
  });

  it('is for administrators only: a member and a non-admin role’s API key get 403, no credentials 401, an admin role’s key passes', async () => {
    const site = await createAgentSite(service);
    await createAgentRole(site, { name: 'writer' });
    const member = await memberWith(site, ['agents:freeze']);
    const agentKey = await roleKey(site);
    const adminKey = await roleKey(site, { admin: true });
    for (const token of [member.token, agentKey]) {
      expectError(await site.as(token, 'GET', '/agent/roles'), 403, 'PERMISSION_DENIED');
      expectError(await site.as(token, 'GET', '/agent/roles/writer'), 403, 'PERMISSION_DENIED');
      expectError(await site.as(token, 'POST', '/agent/roles', { name: 'mine', skills: ['*'], collections: ['*'] }), 403, 'PERMISSION_DENIED');
      expectError(await site.as(token, 'PATCH', '/agent/roles/writer', { skills: ['*'] }), 403, 'PERMISSION_DENIED');
      expectError(await site.as(token, 'DELETE', '/agent/roles/writer'), 403, 'PERMISSION_DENIED');
    }
    expectError(await site.as(null, 'GET', '/agent/roles'), 401, 'UNAUTHENTICATED');
    expect(await ok(site, 'POST', '/agent/roles', 201, { name: 'keyed', skills: ['items.list'], collections: ['*'] }, adminKey)).toMatchObject({ name: 'keyed' });
    expect((await site.admin('GET', '/agent/roles/writer')).body.data.skills).toEqual(['items.*']);
  });

  it('never shows or changes another site’s roles: 404', async () => {
    const site = await createAgentSite(service);
    const other = await createAgentSite(service);
    await createAgentRole(other, { name: 'theirs' });
    expectError(await site.admin('GET', '/agent/roles/theirs'), 404, 'NOT_FOUND');
    expectError(await site.admin('PATCH', '/agent/roles/theirs', { skills: [] }), 404, 'NOT_FOUND');
    expectError(await site.admin('DELETE', '/agent/roles/theirs'), 404, 'NOT_FOUND');
    expect((await site.admin('GET', '/agent/roles')).body.data).toEqual([]);
    // Its own role of the same name is its own.
    await createAgentRole(site, { name: 'theirs', skills: ['items.list'] });
    expect((await other.admin('GET', '/agent/roles/theirs')).body.data.skills).toEqual(['items.*']);
  });
});
