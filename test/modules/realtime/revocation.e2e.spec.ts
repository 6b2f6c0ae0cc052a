// Realtime sockets end with the credential behind them (security review, issue 27 finding 12): a
// logout, a password change, a suspension or an API key's revocation closes them with 4401; a change
// of the user's role, or of its grants that takes away a collection of its ticket, with 4403. A
// ticket whose session ended before it was used is refused.
import { afterAll, describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createMember, createRole, grant, withHelpers, type AccessSite } from '../access/support.ts';
import { signIn } from '../identity/support/identity.ts';
import { connect, createCollections, subscribe, ticketFor, type RealtimeClient } from './support.ts';

const service = await startTestServiceForFile();
const clients: RealtimeClient[] = [];
afterAll(() => {
  for (const client of clients) client.close();
});

async function open(site: AccessSite, token: string): Promise<RealtimeClient> {
  const client = await connect(service, await ticketFor(service, site, 'ticket', token));
  clients.push(client);
  return client;
}

/** A site with `articles` and `news`, and a member whose role reads both. */
async function siteWithReader() {
  const site = withHelpers(service, await createTestSite(service, 'rtrev'));
  await createCollections(service, site, ['articles', 'news']);
  const role = await createRole(site);
  const policy = await grant(site, { roleId: role.id }, [
    { collection: 'articles', action: 'read' },
    { collection: 'news', action: 'read' },
  ]);
  const member = await createMember(service, site, { roleId: role.id });
  return { site, role, policy, member };
}

/** Whether the socket is still open once every frame the server sent before now has arrived. */
async function stillOpen(client: RealtimeClient): Promise<boolean> {
  return Promise.race([client.sync().then(() => true), client.closed.then(() => false)]);
}

describe('realtime sockets and the credential behind them', () => {
  it("closes a session's socket with 4401 when it logs out, and leaves the user's other session open", async () => {
    const { site, member } = await siteWithReader();
    const other = await signIn(service, site.siteId, member.email, member.password);
    const first = await open(site, member.token);
    const second = await open(site, other.body.data.token);
    await subscribe(first, 'articles');

    expect((await service.request('POST', '/auth/logout', { site: site.siteId, body: { refreshToken: member.refreshToken } })).status).toBe(204);
    expect(await first.closed).toEqual({ code: 4401 });
    expect(first.frames.at(-1)).toMatchObject({ type: 'error', code: 'UNAUTHENTICATED' });
    expect(await stillOpen(second)).toBe(true);
  });

  it('closes every socket of the user with 4401 after a password change', async () => {
    const { site, member } = await siteWithReader();
    const other = await signIn(service, site.siteId, member.email, member.password);
    const sockets = [await open(site, member.token), await open(site, other.body.data.token)];
    const changed = await site.as(member.token, 'POST', '/me/change-password', { currentPassword: member.password, newPassword: 'another password 456' });
    expect(changed.status, JSON.stringify(changed.body)).toBe(204);
    for (const socket of sockets) expect(await socket.closed).toEqual({ code: 4401 });
  });

  it('closes with 4401 when an administrator suspends the user or ends its sessions', async () => {
    const { site, member } = await siteWithReader();
    const socket = await open(site, member.token);
    expect((await site.admin('PATCH', `/users/${member.userId}`, { status: 'suspended' })).status).toBe(200);
    expect(await socket.closed).toEqual({ code: 4401 });

    const again = await siteWithReader();
    const revoked = await open(again.site, again.member.token);
    expect((await again.site.as(again.member.token, 'DELETE', '/me/sessions')).status).toBe(204);
    expect(await revoked.closed).toEqual({ code: 4401 });
  });

  it("closes with 4403 when the user's role changes", async () => {
    const { site, member } = await siteWithReader();
    const socket = await open(site, member.token);
    const otherRole = await createRole(site);
    expect((await site.admin('PATCH', `/users/${member.userId}`, { roleId: otherRole.id })).status).toBe(200);
    expect(await socket.closed).toEqual({ code: 4403 });
    expect(socket.frames.at(-1)).toMatchObject({ type: 'error', code: 'PERMISSION_DENIED' });
  });

  it("closes with 4403 when the role's grants no longer reach a collection of the ticket", async () => {
    const { site, policy, member } = await siteWithReader();
    const socket = await open(site, member.token);
    expect((await site.admin('DELETE', `/policies/${policy}`)).status).toBe(204);
    expect(await socket.closed).toEqual({ code: 4403 });
  });

  it('closes an API key socket with 4401 when the key is revoked', async () => {
    const { site, role } = await siteWithReader();
    const key = await site.admin('POST', '/api-keys', { name: 'listener', roleId: role.id });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    const socket = await open(site, key.body.data.key);
    expect((await site.admin('DELETE', `/api-keys/${key.body.data.id}`)).status).toBe(204);
    expect(await socket.closed).toEqual({ code: 4401 });
  });

  it('refuses a ticket whose session logged out before it was used', async () => {
    const { site, member } = await siteWithReader();
    const ticket = await ticketFor(service, site, 'ticket', member.token);
    expect((await service.request('POST', '/auth/logout', { site: site.siteId, body: { refreshToken: member.refreshToken } })).status).toBe(204);
    await expect(connect(service, ticket)).rejects.toMatchObject({ status: 401 });
  });
});
