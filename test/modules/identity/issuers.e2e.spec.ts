import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { auditActions, createMember, createRole } from './support/identity.ts';

const service = await startTestServiceForFile();

const validIssuer = {
  issuer: 'https://idp.example.test/realms/acme',
  jwksUri: 'https://idp.example.test/realms/acme/certs',
  audience: 'svc-acme',
  algorithms: ['RS256', 'ES256'],
};

async function createIssuer(site: TestSite, body: Record<string, unknown>) {
  return service.request('POST', '/admin/auth/issuers', { site: site.siteId, token: site.adminToken, body });
}

describe('/admin/auth/issuers', () => {
  it('creates with defaults, reads, lists, updates and deletes a trusted issuer', async () => {
    const site = await createTestSite(service);
    const roleId = await createRole(service, site.siteId);
    const created = await createIssuer(site, { ...validIssuer, roleMapping: { editor: { roleId }, reader: { systemKey: 'subscriber' } } });
    expect(created.status).toBe(201);
    const issuer = created.body.data;
    expect(issuer).toMatchObject({
      ...validIssuer,
      discoveryUrl: null,
      claimMapping: { email: 'email', roles: 'roles' },
      roleMapping: { editor: { roleId }, reader: { systemKey: 'subscriber' } },
      defaultRoleId: null,
      jitProvisioning: false,
      clockSkewSeconds: 60,
      enabled: true,
    });
    expect((await service.request('GET', `/admin/auth/issuers/${issuer.id}`, { site: site.siteId, token: site.adminToken })).body.data).toEqual(issuer);
    expect((await service.request('GET', '/admin/auth/issuers', { site: site.siteId, token: site.adminToken })).body.data).toEqual([issuer]);

    // Switching to discovery: the patch clears jwksUri and sets discoveryUrl.
    const updated = await service.request('PATCH', `/admin/auth/issuers/${issuer.id}`, {
      site: site.siteId,
      token: site.adminToken,
      body: { jwksUri: null, discoveryUrl: 'https://idp.example.test/realms/acme/.well-known/openid-configuration', clockSkewSeconds: 300, enabled: false },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ jwksUri: null, clockSkewSeconds: 300, enabled: false, audience: 'svc-acme' });

    expect((await service.request('DELETE', `/admin/auth/issuers/${issuer.id}`, { site: site.siteId, token: site.adminToken })).status).toBe(204);
    const gone = await service.request('GET', `/admin/auth/issuers/${issuer.id}`, { site: site.siteId, token: site.adminToken });
    expect(gone.status).toBe(404);
    expect(gone.body.errors[0].code).toBe('NOT_FOUND');
    const actions = (await auditActions(service, site, '&filter[action][_starts_with]=issuer.')).map((entry) => entry.action);
    expect(actions).toEqual(['issuer.deleted', 'issuer.updated', 'issuer.created']);
  });

  it('refuses HS* and none algorithms with 422 VALIDATION_FAILED', async () => {
    const site = await createTestSite(service);
    for (const algorithm of ['HS256', 'HS512', 'none']) {
      const response = await createIssuer(site, { ...validIssuer, algorithms: ['RS256', algorithm] });
      expect(response.status).toBe(422);
      expect(response.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'algorithms', 1] });
    }
    const empty = await createIssuer(site, { ...validIssuer, algorithms: [] });
    expect(empty.status).toBe(422);
    expect((await service.request('GET', '/admin/auth/issuers', { site: site.siteId, token: site.adminToken })).body.data).toEqual([]);
  });

  it('refuses clockSkewSeconds above 300, and needs exactly one of jwksUri and discoveryUrl (422)', async () => {
    const site = await createTestSite(service);
    const skew = await createIssuer(site, { ...validIssuer, clockSkewSeconds: 301 });
    expect(skew.status).toBe(422);
    expect(skew.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'clockSkewSeconds'] });
    const both = await createIssuer(site, { ...validIssuer, discoveryUrl: 'https://idp.example.test/.well-known/openid-configuration' });
    expect(both.status).toBe(422);
    expect(both.body.errors[0].path).toEqual(['body', 'discoveryUrl']);
    const neither = await createIssuer(site, { ...validIssuer, jwksUri: undefined });
    expect(neither.status).toBe(422);
    expect(neither.body.errors[0].path).toEqual(['body', 'jwksUri']);
    const badUrl = await createIssuer(site, { ...validIssuer, jwksUri: 'ftp://idp.example.test/certs' });
    expect(badUrl.status).toBe(422);
    expect(badUrl.body.errors[0].path).toEqual(['body', 'jwksUri']);
    const reserved = await createIssuer(site, { ...validIssuer, issuer: 'svc' });
    expect(reserved.status).toBe(422);
    const unknownRole = await createIssuer(site, { ...validIssuer, defaultRoleId: '6f1c1b7e-0000-4000-8000-000000000000' });
    expect(unknownRole.status).toBe(422);
    expect(unknownRole.body.errors[0].path).toEqual(['body', 'defaultRoleId']);
    const badMapping = await createIssuer(site, { ...validIssuer, roleMapping: { editor: { roleId: 'x', systemKey: 'y' } } });
    expect(badMapping.status).toBe(422);
    expect(badMapping.body.errors[0].path.slice(0, 3)).toEqual(['body', 'roleMapping', 'editor']);
    const unknownField = await createIssuer(site, { ...validIssuer, secret: 'x' });
    expect(unknownField.status).toBe(422);
    const notJson = await service.request('POST', '/admin/auth/issuers', { site: site.siteId, token: site.adminToken, rawBody: '{nope' });
    expect(notJson.status).toBe(422);
    expect((await service.request('GET', '/admin/auth/issuers', { site: site.siteId, token: site.adminToken })).body.data).toEqual([]);
  });

  it('re-validates the merged issuer on PATCH (422) and leaves it unchanged', async () => {
    const site = await createTestSite(service);
    const created = await createIssuer(site, validIssuer);
    const id = created.body.data.id;
    const both = await service.request('PATCH', `/admin/auth/issuers/${id}`, {
      site: site.siteId,
      token: site.adminToken,
      body: { discoveryUrl: 'https://idp.example.test/.well-known/openid-configuration' },
    });
    expect(both.status).toBe(422);
    const hs = await service.request('PATCH', `/admin/auth/issuers/${id}`, { site: site.siteId, token: site.adminToken, body: { algorithms: ['HS256'] } });
    expect(hs.status).toBe(422);
    const skew = await service.request('PATCH', `/admin/auth/issuers/${id}`, { site: site.siteId, token: site.adminToken, body: { clockSkewSeconds: 1000 } });
    expect(skew.status).toBe(422);
    const read = await service.request('GET', `/admin/auth/issuers/${id}`, { site: site.siteId, token: site.adminToken });
    expect(read.body.data).toEqual(created.body.data);
  });

  it('refuses a second issuer with the same issuer string: 409 ISSUER_ALREADY_EXISTS', async () => {
    const site = await createTestSite(service);
    const other = await createTestSite(service);
    await createIssuer(site, validIssuer);
    const duplicate = await createIssuer(site, { ...validIssuer, audience: 'another' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.errors[0]).toMatchObject({ code: 'ISSUER_ALREADY_EXISTS', path: ['body', 'issuer'] });
    const second = await createIssuer(site, { ...validIssuer, issuer: 'https://other.example.test' });
    const rename = await service.request('PATCH', `/admin/auth/issuers/${second.body.data.id}`, {
      site: site.siteId,
      token: site.adminToken,
      body: { issuer: validIssuer.issuer },
    });
    expect(rename.status).toBe(409);
    expect(rename.body.errors[0].code).toBe('ISSUER_ALREADY_EXISTS');
    // Another site may trust the same issuer.
    expect((await createIssuer(other, validIssuer)).status).toBe(201);
  });

  it('answers 404 NOT_FOUND for unknown ids, including another site’s issuer', async () => {
    const site = await createTestSite(service);
    const other = await createTestSite(service);
    const created = await createIssuer(site, validIssuer);
    for (const [method, body] of [['GET', undefined], ['PATCH', { audience: 'x' }], ['DELETE', undefined]] as const) {
      const unknown = await service.request(method, '/admin/auth/issuers/6f1c1b7e-0000-4000-8000-000000000000', { site: site.siteId, token: site.adminToken, body });
      expect(unknown.status).toBe(404);
      expect(unknown.body.errors[0].code).toBe('NOT_FOUND');
      const crossSite = await service.request(method, `/admin/auth/issuers/${created.body.data.id}`, { site: other.siteId, token: other.adminToken, body });
      expect(crossSite.status).toBe(404);
    }
    expect((await service.request('GET', '/admin/auth/issuers/garbage', { site: site.siteId, token: site.adminToken })).status).toBe(404);
  });

  it('is for site administrators only', async () => {
    const site = await createTestSite(service);
    const member = await createMember(service, site);
    expect((await service.request('GET', '/admin/auth/issuers', { site: site.siteId, token: member.token })).status).toBe(403);
    const denied = await service.request('POST', '/admin/auth/issuers', { site: site.siteId, token: member.token, body: validIssuer });
    expect(denied.status).toBe(403);
    expect((await service.request('GET', '/admin/auth/issuers', { site: site.siteId })).status).toBe(401);
  });
});
