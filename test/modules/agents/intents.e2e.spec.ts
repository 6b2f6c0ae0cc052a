// /agent/intents over real HTTP (docs/agent-goals.md "Intents"): create with an agent role (an unknown
// role 400), list and filter, read, change and close by the creator or an administrator (another
// member 403), once (409 after), and another site's or an unknown id 404; no credentials 401.
import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createAgentRole, createAgentSite, expectError, memberWith, ok } from './gateSupport.ts';

const service = await startTestServiceForFile();

describe('/agent/intents', () => {
  it('creates, lists, reads, changes and closes an intent, once', async () => {
    const site = await createAgentSite(service, 'intents');
    await createAgentRole(site, { name: 'writer' });
    const intent = await ok(site, 'POST', '/agent/intents', 201, { title: 'Spring launch', description: 'Everything for it', role: 'writer' });
    expect(intent).toMatchObject({ title: 'Spring launch', description: 'Everything for it', role: 'writer', status: 'open', createdBy: site.adminUserId, closedAt: null });
    const other = await ok(site, 'POST', '/agent/intents', 201, { title: 'Tidy tags' });
    expect(other.role).toBeNull();

    expect((await ok(site, 'GET', '/agent/intents', 200)).map((found: { id: string }) => found.id)).toEqual([other.id, intent.id]);
    const listed = await site.admin('GET', '/agent/intents?limit=1&page=2');
    expect(listed.body.meta).toEqual({ total: 2, page: 2, pageSize: 1 });
    expect(listed.body.data.map((found: { id: string }) => found.id)).toEqual([intent.id]);
    expect(await ok(site, 'GET', `/agent/intents/${intent.id}`, 200)).toEqual(intent);

    const changed = await ok(site, 'PATCH', `/agent/intents/${intent.id}`, 200, { title: 'Spring launch v2', role: null });
    expect(changed).toMatchObject({ title: 'Spring launch v2', description: 'Everything for it', role: null, status: 'open' });
    const closed = await ok(site, 'POST', `/agent/intents/${intent.id}/close`, 200, { reason: 'Shipped' });
    expect(closed).toMatchObject({ status: 'closed', closedBy: site.adminUserId, closeReason: 'Shipped' });
    expect(Date.parse(closed.closedAt)).not.toBeNaN();
    expectError(await site.admin('POST', `/agent/intents/${intent.id}/close`, {}), 409, 'CONFLICT');
    expectError(await site.admin('PATCH', `/agent/intents/${intent.id}`, { title: 'Again' }), 409, 'CONFLICT');
    expect((await ok(site, 'GET', '/agent/intents?status=closed', 200)).map((found: { id: string }) => found.id)).toEqual([intent.id]);
    expect((await ok(site, 'GET', '/agent/intents?status=open', 200)).map((found: { id: string }) => found.id)).toEqual([other.id]);
  });

  it('refuses bad bodies with the path, an unknown agent role, and another member’s changes', async () => {
    const site = await createAgentSite(service, 'intents');
    expectError(await site.admin('POST', '/agent/intents', { description: 'no title' }), 400, 'VALIDATION_FAILED', ['body', 'title']);
    expectError(await site.admin('POST', '/agent/intents', { title: 'x', extra: true }), 400, 'VALIDATION_FAILED');
    expectError(await site.admin('POST', '/agent/intents', { title: 'x', role: 'nobody' }), 400, 'VALIDATION_FAILED', ['body', 'role']);
    expectError(await site.admin('GET', '/agent/intents?status=maybe'), 400, 'VALIDATION_FAILED', ['query', 'status']);

    const member = await memberWith(site);
    const own = await ok(site, 'POST', '/agent/intents', 201, { title: 'Mine' }, member.token);
    expect(own.createdBy).toBe(member.userId);
    expect(await ok(site, 'PATCH', `/agent/intents/${own.id}`, 200, { description: 'still mine' }, member.token)).toMatchObject({ description: 'still mine' });
    const admins = await ok(site, 'POST', '/agent/intents', 201, { title: 'Theirs' });
    expectError(await site.as(member.token, 'PATCH', `/agent/intents/${admins.id}`, { title: 'Taken' }), 403, 'PERMISSION_DENIED');
    expectError(await site.as(member.token, 'POST', `/agent/intents/${admins.id}/close`, {}), 403, 'PERMISSION_DENIED');
    expect((await ok(site, 'GET', `/agent/intents/${admins.id}`, 200, undefined, member.token)).title).toBe('Theirs');
    expectError(await site.as(null, 'GET', '/agent/intents'), 401, 'UNAUTHENTICATED');
    expectError(await site.as(null, 'POST', '/agent/intents', { title: 'x' }), 401, 'UNAUTHENTICATED');
  });

  it('answers 404 for another site’s intents and ids that name nothing', async () => {
    const site = await createAgentSite(service, 'intents');
    const elsewhere = await createAgentSite(service, 'intents');
    const foreign = await ok(elsewhere, 'POST', '/agent/intents', 201, { title: 'Elsewhere' });
    expectError(await site.admin('GET', `/agent/intents/${foreign.id}`), 404, 'NOT_FOUND');
    expectError(await site.admin('PATCH', `/agent/intents/${foreign.id}`, { title: 'Mine now' }), 404, 'NOT_FOUND');
    expectError(await site.admin('POST', `/agent/intents/${foreign.id}/close`, {}), 404, 'NOT_FOUND');
    expectError(await site.admin('GET', '/agent/intents/not-a-uuid'), 404, 'NOT_FOUND');
    expect(await ok(site, 'GET', '/agent/intents', 200)).toEqual([]);
    expect((await ok(elsewhere, 'GET', `/agent/intents/${foreign.id}`, 200)).title).toBe('Elsewhere');
  });
});
