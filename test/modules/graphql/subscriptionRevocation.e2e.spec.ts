// GraphQL subscription streams (SSE) end with the credential behind them (security review, issue 27
// finding 12): a logout, a password change or an API key's revocation ends the stream with an
// UNAUTHENTICATED error, a change of the user's role or of the grants that let it read the
// collection with PERMISSION_DENIED; the client subscribes again with a valid token.
import { describe, expect, it } from 'vitest';
import { createCollection } from '../../support/contentModel.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createMember, createRole, grant, withHelpers } from '../access/support.ts';
import { openSubscription } from './sse.ts';

const service = await startTestServiceForFile();

async function siteWithReader() {
  const site = withHelpers(service, await createTestSite(service, 'gqlrev'));
  await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
  const role = await createRole(site);
  const policy = await grant(site, { roleId: role.id }, [{ collection: 'articles', action: 'read' }]);
  const member = await createMember(service, site, { roleId: role.id });
  return { site, role, policy, member };
}

const SUBSCRIPTION = 'subscription { articles_events { action itemId } }';
const codesOf = (payloads: any[]) => payloads.flatMap((payload) => (payload.errors ?? []).map((error: { extensions: { code: string } }) => error.extensions.code));

describe('GraphQL subscription streams and the credential behind them', () => {
  it('ends the stream with UNAUTHENTICATED when its session logs out', async () => {
    const { site, member } = await siteWithReader();
    const stream = await openSubscription(service, site.siteId, member.token, SUBSCRIPTION);
    expect((await service.request('POST', '/auth/logout', { site: site.siteId, body: { refreshToken: member.refreshToken } })).status).toBe(204);
    expect(codesOf(await stream.ended)).toEqual(['UNAUTHENTICATED']);
  });

  it('ends the stream after a password change', async () => {
    const { site, member } = await siteWithReader();
    const stream = await openSubscription(service, site.siteId, member.token, SUBSCRIPTION);
    const changed = await site.as(member.token, 'POST', '/me/change-password', { currentPassword: member.password, newPassword: 'another password 456' });
    expect(changed.status).toBe(204);
    expect(codesOf(await stream.ended)).toEqual(['UNAUTHENTICATED']);
  });

  it("ends the stream with PERMISSION_DENIED when the user's role changes or its grants stop reaching the collection", async () => {
    const { site, member } = await siteWithReader();
    const stream = await openSubscription(service, site.siteId, member.token, SUBSCRIPTION);
    expect((await site.admin('PATCH', `/users/${member.userId}`, { roleId: (await createRole(site)).id })).status).toBe(200);
    expect(codesOf(await stream.ended)).toEqual(['PERMISSION_DENIED']);

    const again = await siteWithReader();
    const granted = await openSubscription(service, again.site.siteId, again.member.token, SUBSCRIPTION);
    expect((await again.site.admin('DELETE', `/policies/${again.policy}`)).status).toBe(204);
    expect(codesOf(await granted.ended)).toEqual(['PERMISSION_DENIED']);
  });

  it('ends an API key stream when the key is revoked', async () => {
    const { site, role } = await siteWithReader();
    const key = await site.admin('POST', '/api-keys', { name: 'listener', roleId: role.id });
    const stream = await openSubscription(service, site.siteId, key.body.data.key, SUBSCRIPTION);
    expect((await site.admin('DELETE', `/api-keys/${key.body.data.id}`)).status).toBe(204);
    expect(codesOf(await stream.ended)).toEqual(['UNAUTHENTICATED']);
  });

  it('keeps delivering to a stream whose credential holds', async () => {
    const { site, member } = await siteWithReader();
    const stream = await openSubscription(service, site.siteId, member.token, SUBSCRIPTION);
    // Another user's logout changes nothing for this stream.
    const other = await createMember(service, site);
    expect((await service.request('POST', '/auth/logout', { site: site.siteId, body: { refreshToken: other.refreshToken } })).status).toBe(204);
    const created = (await site.admin('POST', '/items/articles', { title: 'Still here' })).body.data;
    expect(await stream.received(1)).toEqual([{ data: { articles_events: { action: 'create', itemId: created.id } } }]);
    stream.close();
    await stream.ended.catch(() => undefined);
  });
});
