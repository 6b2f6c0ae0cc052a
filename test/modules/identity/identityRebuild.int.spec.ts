// Every identity read model gives the same rows when rebuilt from the log as it did incrementally.
import { afterAll, describe, expect, it } from 'vitest';
import { identifier, sql } from '../../../infra/postgres/sql.ts';
import { findProjection } from '../../../projections/index.ts';
import { rebuildProjection } from '../../../src/runtime/projectionRunner.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createMember, createRole } from './support/identity.ts';
import { startIssuerServer } from './support/issuerServer.ts';

const idp = await startIssuerServer('svc-rebuild');
afterAll(() => idp.close());
const service = await startTestServiceForFile({ SVC_ISSUER_ALLOW_PRIVATE: 'true' });
const owner = openOwnerDatabaseForFile();

const READ_MODELS: Record<string, string[]> = {
  users: ['users'],
  sessions: ['sessions'],
  roles: ['roles'],
  teams: ['teams', 'team_members'],
  api_keys: ['api_keys'],
  trusted_issuers: ['trusted_issuers'],
  user_identities: ['user_identities'],
  subscriber_access: ['subscriber_access'],
};

async function snapshot(siteId: string): Promise<Record<string, unknown[]>> {
  const rows: Record<string, unknown[]> = {};
  for (const table of Object.values(READ_MODELS).flat()) {
    rows[table] = await owner.query(sql`SELECT * FROM ${identifier(table)} WHERE site_id = ${siteId} ORDER BY 1, 2, 3`);
  }
  return rows;
}

describe('identity read models', () => {
  it('rebuild to the same rows', async () => {
    const site = await createTestSite(service);
    const roleId = await createRole(service, site.siteId);
    const member = await createMember(service, site, { roleId });
    const other = await createMember(service, site);
    const token = { site: site.siteId, token: site.adminToken };
    await service.request('PATCH', `/users/${member.userId}`, { ...token, body: { firstName: 'Renamed', avatar: 'a.png', status: 'suspended' } });
    await service.request('PATCH', `/users/${member.userId}`, { ...token, body: { status: 'active', email: `moved@${site.siteId}.test` } });
    await service.request('PATCH', '/me/preferences', { site: site.siteId, token: other.token, body: { saveAction: 'create_new', layout: { a: 1 } } });
    await service.request('DELETE', `/users/${other.userId}`, token);
    await service.request('POST', '/auth/register', { site: site.siteId, body: { email: `reader@${site.siteId}.test`, password: 'long enough 1' } });
    const team = await service.request('POST', '/teams', { ...token, body: { name: 'T', members: [member.userId] } });
    await service.request('PATCH', `/teams/${team.body.data.id}`, { ...token, body: { description: 'd', members: [site.adminUserId] } });
    await service.request('POST', '/teams', { ...token, body: { name: 'Gone' } }).then((gone) => service.request('DELETE', `/teams/${gone.body.data.id}`, token));
    const key = await service.request('POST', '/api-keys', { ...token, body: { name: 'k', roleId } });
    await service.request('POST', '/api-keys', { ...token, body: { name: 'k2', userId: member.userId } });
    await service.request('POST', '/api-keys', { ...token, body: { name: 'k3', roleId, expiresAt: '2999-01-01T00:00:00Z' } });
    await service.request('DELETE', `/api-keys/${key.body.data.id}`, token);
    await service.request('POST', '/users/subscriber-access', { ...token, body: { collection: 'a' } });
    await service.request('POST', '/users/subscriber-access', { ...token, body: { collection: 'b' } });
    await service.request('DELETE', '/users/subscriber-access/a', token);
    const issuer = await service.request('POST', '/admin/auth/issuers', {
      ...token,
      body: { issuer: idp.issuer, jwksUri: idp.jwksUri, audience: 'svc-rebuild', algorithms: ['ES256'], roleMapping: { r: { roleId } }, jitProvisioning: true },
    });
    await service.request('PATCH', `/admin/auth/issuers/${issuer.body.data.id}`, { ...token, body: { clockSkewSeconds: 10 } });
    const signingKey = await idp.createKey('ES256', 'k1');
    idp.publish(signingKey);
    const external = await service.request('GET', '/auth/me', {
      site: site.siteId,
      token: await idp.sign(signingKey, { sub: 'ext-1', email: `ext@${site.siteId}.test`, roles: ['r'] }),
    });
    expect(external.status).toBe(200);
    await service.request('POST', `/users/${member.userId}/impersonate`, token);

    const before = await snapshot(site.siteId);
    expect(before.team_members).toHaveLength(1);
    expect(before.user_identities).toHaveLength(1);
    expect(before.api_keys).toContainEqual(expect.objectContaining({ name: 'k3', expires_at: new Date('2999-01-01T00:00:00Z') }));
    for (const name of Object.keys(READ_MODELS)) {
      const projection = findProjection(name);
      expect(projection, name).toBeDefined();
      await rebuildProjection(owner, projection!);
    }
    expect(await snapshot(site.siteId)).toEqual(before);
  });
});
