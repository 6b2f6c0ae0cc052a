// /agent/autonomy over real HTTP (docs/agents.md "Autonomy"): each role's level ('read' until set),
// set by administrators; promotions filed by anyone of the site (an agent's key included), listed and
// read, decided by a person administering the site (a member, an admin role's key: 403), once (409);
// an approval sets the level; another site's promotions and roles are 404.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createAgentRole, createAgentSite, expectError, memberWith, ok, roleKey } from './gateSupport.ts';

const service = await startTestServiceForFile();

describe('/agent/autonomy', () => {
  it('lists every role’s level, read until set; an administrator sets one', async () => {
    const site = await createAgentSite(service);
    await createAgentRole(site, { name: 'writer' });
    await createAgentRole(site, { name: 'auditor' });
    const member = await memberWith(site);
    const levels = await ok(site, 'GET', '/agent/autonomy', 200, undefined, member.token);
    expect(levels).toEqual([
      { role: 'auditor', level: 'read', promotionId: null, updatedAt: null },
      { role: 'writer', level: 'read', promotionId: null, updatedAt: null },
    ]);
    expect(await ok(site, 'PUT', '/agent/autonomy/writer', 200, { level: 'stage' })).toMatchObject({ role: 'writer', level: 'stage', promotionId: null });
    expect((await ok(site, 'GET', '/agent/autonomy', 200)).map((row: { level: string }) => row.level)).toEqual(['read', 'stage']);

    expectError(await site.as(member.token, 'PUT', '/agent/autonomy/writer', { level: 'act' }), 403, 'PERMISSION_DENIED');
    expectError(await site.admin('PUT', '/agent/autonomy/writer', { level: 'root' }), 400, 'VALIDATION_FAILED', ['body', 'level']);
    expectError(await site.admin('PUT', '/agent/autonomy/nobody', { level: 'act' }), 404, 'NOT_FOUND');
    expectError(await site.as(null, 'GET', '/agent/autonomy'), 401, 'UNAUTHENTICATED');

    // A deleted role's level goes with it: created again, it starts at read.
    await ok(site, 'DELETE', '/agent/roles/writer', 204);
    await createAgentRole(site, { name: 'writer' });
    expect((await ok(site, 'GET', '/agent/autonomy', 200)).find((row: { role: string }) => row.role === 'writer').level).toBe('read');
  });

  it('takes a promotion request from an agent’s key, and an administrator approves it: the level is set', async () => {
    const site = await createAgentSite(service);
    await createAgentRole(site, { name: 'writer' });
    const agentKey = await roleKey(site);
    const requested = await ok(site, 'POST', '/agent/autonomy/promotions', 201, { role: 'writer', level: 'act', reason: 'Ten clean runs' }, agentKey);
    expect(requested).toMatchObject({ role: 'writer', level: 'act', reason: 'Ten clean runs', status: 'pending', decidedBy: null, decidedAt: null });
    expect(requested.requestedBy).toMatch(/^apikey:/);
    expect(await ok(site, 'GET', `/agent/autonomy/promotions/${requested.id}`, 200, undefined, agentKey)).toEqual(requested);

    const approved = await ok(site, 'POST', `/agent/autonomy/promotions/${requested.id}/decide`, 200, { decision: 'approved', reason: 'Agreed' });
    expect(approved).toMatchObject({ id: requested.id, status: 'approved', decidedBy: site.adminUserId, decisionReason: 'Agreed' });
    expect(await ok(site, 'GET', '/agent/autonomy', 200)).toEqual([expect.objectContaining({ role: 'writer', level: 'act', promotionId: requested.id })]);

    // Decided once: a second decision, either way, is 409 and changes nothing.
    expectError(await site.admin('POST', `/agent/autonomy/promotions/${requested.id}/decide`, { decision: 'rejected' }), 409, 'CONFLICT');
    expectError(await site.admin('POST', `/agent/autonomy/promotions/${requested.id}/decide`, { decision: 'approved' }), 409, 'CONFLICT');
    expect((await ok(site, 'GET', `/agent/autonomy/promotions/${requested.id}`, 200)).status).toBe('approved');
  });

  it('rejects without changing the level, lists by status, and refuses bad requests', async () => {
    const site = await createAgentSite(service);
    await createAgentRole(site, { name: 'writer' });
    await ok(site, 'PUT', '/agent/autonomy/writer', 200, { level: 'stage' });
    const member = await memberWith(site);
    const first = await ok(site, 'POST', '/agent/autonomy/promotions', 201, { role: 'writer', level: 'act', reason: 'Please' }, member.token);
    const second = await ok(site, 'POST', '/agent/autonomy/promotions', 201, { role: 'writer', level: 'act', reason: 'Again' }, member.token);
    expect((await ok(site, 'POST', `/agent/autonomy/promotions/${first.id}/decide`, 200, { decision: 'rejected' })).status).toBe('rejected');
    expect((await ok(site, 'GET', '/agent/autonomy', 200))[0].level).toBe('stage');

    const ids = async (query: string) => (await ok(site, 'GET', `/agent/autonomy/promotions${query}`, 200)).map((row: { id: string }) => row.id);
    expect(await ids('')).toEqual([second.id, first.id]);
    expect(await ids('?status=pending')).toEqual([second.id]);
    expect(await ids('?status=rejected')).toEqual([first.id]);
    expect(await ids('?status=approved')).toEqual([]);
    expectError(await site.admin('GET', '/agent/autonomy/promotions?status=maybe'), 400, 'VALIDATION_FAILED', ['query', 'status']);

    expectError(await site.admin('POST', '/agent/autonomy/promotions', { role: 'nobody', level: 'act', reason: 'x' }), 400, 'VALIDATION_FAILED', ['body', 'role']);
    expectError(await site.admin('POST', '/agent/autonomy/promotions', { role: 'writer', level: 'stage', reason: 'x' }), 409, 'CONFLICT', ['body', 'level']);
    expectError(await site.admin('POST', '/agent/autonomy/promotions', { role: 'writer', level: 'act', reason: '  ' }), 400, 'VALIDATION_FAILED', ['body', 'reason']);
    expectError(await site.admin('POST', '/agent/autonomy/promotions', { role: 'writer', level: 'god', reason: 'x' }), 400, 'VALIDATION_FAILED', ['body', 'level']);
    expectError(await site.admin('POST', `/agent/autonomy/promotions/${second.id}/decide`, { decision: 'maybe' }), 400, 'VALIDATION_FAILED', ['body', 'decision']);
    expectError(await site.as(null, 'POST', '/agent/autonomy/promotions', { role: 'writer', level: 'act', reason: 'x' }), 401, 'UNAUTHENTICATED');
  });

  it('lets only a person administering the site decide: a member and an admin role’s API key get 403', async () => {
    const site = await createAgentSite(service);
    await createAgentRole(site, { name: 'writer' });
    const member = await memberWith(site, ['agents:freeze']);
    const adminKey = await roleKey(site, { admin: true });
    const requested = await ok(site, 'POST', '/agent/autonomy/promotions', 201, { role: 'writer', level: 'act', reason: 'Self-promotion' }, adminKey);
    expectError(await site.as(member.token, 'POST', `/agent/autonomy/promotions/${requested.id}/decide`, { decision: 'approved' }), 403, 'PERMISSION_DENIED');
    expectError(await site.as(adminKey, 'POST', `/agent/autonomy/promotions/${requested.id}/decide`, { decision: 'approved' }), 403, 'PERMISSION_DENIED');
    expect((await ok(site, 'GET', `/agent/autonomy/promotions/${requested.id}`, 200)).status).toBe('pending');
    expect((await ok(site, 'GET', '/agent/autonomy', 200))[0].level).toBe('read');
  });

  it('answers 404 for unknown and another site’s promotions, and 409 for approving a role deleted since', async () => {
    const site = await createAgentSite(service);
    const other = await createAgentSite(service);
    await createAgentRole(other, { name: 'writer' });
    const theirs = await ok(other, 'POST', '/agent/autonomy/promotions', 201, { role: 'writer', level: 'act', reason: 'x' });
    for (const id of [theirs.id, randomUUID(), 'not-a-uuid']) {
      expectError(await site.admin('GET', `/agent/autonomy/promotions/${id}`), 404, 'NOT_FOUND');
      expectError(await site.admin('POST', `/agent/autonomy/promotions/${id}/decide`, { decision: 'approved' }), 404, 'NOT_FOUND');
    }
    expect(await ok(site, 'GET', '/agent/autonomy/promotions', 200)).toEqual([]);
    expect((await ok(other, 'GET', `/agent/autonomy/promotions/${theirs.id}`, 200)).status).toBe('pending');

    await ok(other, 'DELETE', '/agent/roles/writer', 204);
    expectError(await other.admin('POST', `/agent/autonomy/promotions/${theirs.id}/decide`, { decision: 'approved' }), 409, 'CONFLICT');
    expect((await ok(other, 'POST', `/agent/autonomy/promotions/${theirs.id}/decide`, 200, { decision: 'rejected' })).status).toBe('rejected');
  });
});
