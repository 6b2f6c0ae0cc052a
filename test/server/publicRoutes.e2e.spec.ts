// Public routes that need no site (the OpenAPI document, health, version) answer whatever credentials
// come with the request; public routes of a site still read the principal, so bad credentials fail there.
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';

const service = await startTestServiceForFile();

const siteLessPublicRoutes = ['/openapi.json', '/utils/version', '/utils/health'];

describe('public routes without a site', () => {
  it('answer a valid token sent with its X-Svc-Site, and an API key', async () => {
    const site = await createTestSite(service, 'pub');
    const apiKey = await service.request('POST', '/api-keys', { site: site.siteId, token: site.adminToken, body: { name: 'docs', userId: site.adminUserId } });
    expect(apiKey.status, JSON.stringify(apiKey.body)).toBe(201);
    for (const path of siteLessPublicRoutes) {
      for (const token of [site.adminToken, apiKey.body.data.key]) {
        const response = await service.request('GET', path, { site: site.siteId, token });
        expect(response.status, `${path} ${JSON.stringify(response.body)}`).toBe(200);
      }
    }
    const document = await service.request('GET', '/openapi.json', { site: site.siteId, token: site.adminToken });
    expect(document.body.openapi).toBe('3.1.0');
  });

  it('answer a token of another site, an unknown or malformed token, an unknown site and a bad Authorization header', async () => {
    const site = await createTestSite(service, 'pub');
    const other = await createTestSite(service, 'pub');
    const credentials: { label: string; site?: string; token?: string; headers?: Record<string, string> }[] = [
      { label: 'token of another site', site: other.siteId, token: site.adminToken },
      { label: 'token without a site', token: site.adminToken },
      { label: 'garbage token', site: site.siteId, token: 'not-a-token' },
      { label: 'unknown API key', site: site.siteId, token: `svk_${'A'.repeat(43)}` },
      { label: 'malformed API key', site: site.siteId, token: 'svk_short' },
      { label: 'unknown site', site: 'no-such-site-0000', token: site.adminToken },
      { label: 'not a bearer header', site: site.siteId, headers: { authorization: 'Basic dXNlcjpwYXNz' } },
    ];
    for (const path of siteLessPublicRoutes) {
      for (const { label, ...options } of credentials) {
        const response = await service.request('GET', path, options);
        expect(response.status, `${path} with ${label}: ${JSON.stringify(response.body)}`).toBe(200);
      }
    }
  });
});

describe('public routes of a site', () => {
  it('still authenticate: a valid token is the principal, a bad one is 401 UNAUTHENTICATED', async () => {
    const site = await createTestSite(service, 'pub');
    const other = await createTestSite(service, 'pub');
    const signedIn = await service.request('GET', '/permissions/me', { site: site.siteId, token: site.adminToken });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.principal).toMatchObject({ kind: 'user', userId: site.adminUserId, admin: true });

    const anonymous = await service.request('GET', '/permissions/me', { site: site.siteId });
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.data.principal).toMatchObject({ kind: 'anonymous', userId: null, admin: false });

    for (const [label, token] of [
      ['token of another site', other.adminToken],
      ['garbage token', 'not-a-token'],
    ] as const) {
      const refused = await service.request('GET', '/permissions/me', { site: site.siteId, token });
      expect(refused.status, label).toBe(401);
      expect(refused.body).toEqual({ errors: [{ code: 'UNAUTHENTICATED', message: expect.any(String), path: [], extensions: {} }] });
    }
    const badHeader = await service.request('GET', '/permissions/me', { site: site.siteId, headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(badHeader.status).toBe(401);
  });
});
