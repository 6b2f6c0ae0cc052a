// A trusted issuer's key set on a private or loopback address is fetched only with
// SVC_ISSUER_ALLOW_PRIVATE (finding 9 of the security review: NODE_ENV unset meant development, which
// allowed it silently).
import { afterAll, describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { startIssuerServer } from './support/issuerServer.ts';

const AUDIENCE = 'svc-tests';
const idp = await startIssuerServer(AUDIENCE);
afterAll(() => idp.close());
// NODE_ENV as a deployment that never set it gets.
const service = await startTestServiceForFile({ NODE_ENV: 'development', SVC_JWKS_COOLDOWN_SECONDS: '0' });

describe('trusted issuers on private addresses', () => {
  it('never fetches a loopback key set without SVC_ISSUER_ALLOW_PRIVATE, in development too', async () => {
    const key = await idp.createKey('ES256', 'ec-private');
    idp.publish(key);
    const site = await createTestSite(service);
    const created = await service.request('POST', '/admin/auth/issuers', {
      site: site.siteId,
      token: site.adminToken,
      body: { issuer: idp.issuer, jwksUri: idp.jwksUri, audience: AUDIENCE, algorithms: ['ES256'], jitProvisioning: true },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const token = await idp.sign(key, { sub: 'mallory', email: `mallory@${site.siteId}.test` });
    const me = await service.request('GET', '/auth/me', { site: site.siteId, token });
    expect(me.status).toBe(401);
    expect(idp.jwksFetches()).toBe(0);
  });
});
