// Attacks on the service's own access tokens.
import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { deriveKey } from '../../../infra/crypto/secrets.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createMember } from './support/identity.ts';

const service = await startTestServiceForFile();

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
}

describe('internal access tokens', () => {
  it('refuses alg none carrying valid-looking claims', async () => {
    const site = await createTestSite(service);
    const claims = claimsOf(site.adminToken);
    const unsigned = new UnsecuredJWT(claims).encode();
    const response = await service.request('GET', '/users', { site: site.siteId, token: unsigned });
    expect(response.status).toBe(401);
    expect(response.body.errors[0].code).toBe('UNAUTHENTICATED');
  });

  it('refuses a token signed with another key, or with the right key under another algorithm', async () => {
    const site = await createTestSite(service);
    const claims = claimsOf(site.adminToken);
    const wrongKey = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('x'.repeat(32)));
    expect((await service.request('GET', '/users', { site: site.siteId, token: wrongKey })).status).toBe(401);
    const key = deriveKey('test-secret-that-is-long-enough-0123456789', 'access-token');
    const hs512 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS512' }).sign(new Uint8Array([...key, ...key]));
    expect((await service.request('GET', '/users', { site: site.siteId, token: hs512 })).status).toBe(401);
  });

  it('refuses a tampered payload (another user, another tokenVersion, an added admin claim)', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    const [header, , signature] = member.token.split('.');
    const claims = claimsOf(member.token);
    for (const tampered of [{ ...claims, sub: site.adminUserId }, { ...claims, tv: 99 }, { ...claims, admin: true }]) {
      const forged = `${header}.${Buffer.from(JSON.stringify(tampered)).toString('base64url')}.${signature}`;
      expect((await service.request('GET', '/auth/me', { site: site.siteId, token: forged })).status).toBe(401);
    }
  });

  it('refuses a token issued for another site', async () => {
    const site = await createTestSite(service);
    const other = await createTestSite(service);
    const response = await service.request('GET', '/auth/me', { site: other.siteId, token: site.adminToken });
    expect(response.status).toBe(401);
    expect(response.body.errors[0].message).toContain('another site');
  });

  it('a correctly signed token whose tokenVersion is stale is refused', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    await service.request('PATCH', `/users/${member.userId}`, { site: site.siteId, token: site.adminToken, body: { password: 'brand new one 123' } });
    const response = await service.request('GET', '/auth/me', { site: site.siteId, token: member.token });
    expect(response.status).toBe(401);
    expect(response.body.errors[0].message).toContain('no longer valid');
  });

  it('refuses a malformed Authorization header', async () => {
    const site = await createTestSite(service);
    const response = await service.request('GET', '/auth/me', { site: site.siteId, headers: { authorization: `Basic ${site.adminToken}` } });
    expect(response.status).toBe(401);
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: 'not.a.jwt' })).status).toBe(401);
  });
});
