// Two running services sharing PostgreSQL and Redis: a logout or a role change made through one
// instance closes the sockets and ends the GraphQL subscription streams held by the other.
import { afterAll, describe, expect, it } from 'vitest';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createMember, createRole, grant, withHelpers } from '../access/support.ts';
import { REDIS_URL } from '../cdc/support.ts';
import { openSubscription } from '../graphql/sse.ts';
import { connect, createCollections, ticketFor, type RealtimeClient } from './support.ts';

const database = await createFreshDatabaseForFile();
const env = { DATABASE_URL: database.url, REDIS_URL };
const first = await startTestServiceForFile(env);
const second = await startTestServiceForFile(env);
const clients: RealtimeClient[] = [];
afterAll(() => {
  for (const client of clients) client.close();
});

async function siteWithReader() {
  const site = withHelpers(first, await createTestSite(first, 'rtrevc'));
  await createCollections(first, site, ['articles']);
  const role = await createRole(site);
  await grant(site, { roleId: role.id }, [{ collection: 'articles', action: 'read' }]);
  const member = await createMember(first, site, { roleId: role.id });
  return { site, member };
}

describe('revocation across instances (Redis)', () => {
  it('closes a socket on one instance when its session logs out through the other', async () => {
    const { site, member } = await siteWithReader();
    const socket = await connect(second, await ticketFor(second, site, 'ticket', member.token));
    clients.push(socket);
    const stream = await openSubscription(second, site.siteId, member.token, 'subscription { articles_events { action } }');
    expect((await first.request('POST', '/auth/logout', { site: site.siteId, body: { refreshToken: member.refreshToken } })).status).toBe(204);
    expect(await socket.closed).toEqual({ code: 4401 });
    expect((await stream.ended).map((payload) => payload.errors?.[0]?.extensions.code)).toEqual(['UNAUTHENTICATED']);
  });

  it("ends a stream on one instance when the user's role changes through the other", async () => {
    const { site, member } = await siteWithReader();
    const socket = await connect(second, await ticketFor(second, site, 'ticket', member.token));
    clients.push(socket);
    const stream = await openSubscription(second, site.siteId, member.token, 'subscription { articles_events { action } }');
    expect((await site.admin('PATCH', `/users/${member.userId}`, { roleId: (await createRole(site)).id })).status).toBe(200);
    expect(await socket.closed).toEqual({ code: 4403 });
    expect((await stream.ended).map((payload) => payload.errors?.[0]?.extensions.code)).toEqual(['PERMISSION_DENIED']);
  });
});
