// Tokens of trusted external identity providers, verified against a real local JWKS / discovery
// server with real RS256 and ES256 keys.
import { exportSPKI, jwtVerify, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundHttp } from '../../../infra/http/outboundHttp.ts';
import { createIssuerKeySets } from '../../../src/auth/issuerKeySets.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { auditActions, createMember, createRole } from './support/identity.ts';
import { startIssuerServer, type IssuerServer, type SigningKey } from './support/issuerServer.ts';

const AUDIENCE = 'svc-tests';
const idp = await startIssuerServer(AUDIENCE);
afterAll(() => idp.close());
const service = await startTestServiceForFile({ SVC_JWKS_COOLDOWN_SECONDS: '0', SVC_ISSUER_ALLOW_PRIVATE: 'true' });
let rsaKey: SigningKey;
let ecKey: SigningKey;

beforeAll(async () => {
  rsaKey = await idp.createKey('RS256', 'rsa-1');
  ecKey = await idp.createKey('ES256', 'ec-1');
  idp.publish(rsaKey, ecKey);
});

interface Trust {
  site: TestSite;
  issuerId: string;
  editorRoleId: string;
}

/** A fresh site that trusts the local provider, mapping role claim `editor` to a non-admin role. */
async function trustingSite(options: Record<string, unknown> = {}, server: IssuerServer = idp): Promise<Trust> {
  const site = await createTestSite(service);
  const editorRoleId = await createRole(service, site.siteId, { name: 'Editor' });
  const created = await service.request('POST', '/admin/auth/issuers', {
    site: site.siteId,
    token: site.adminToken,
    body: {
      issuer: server.issuer,
      jwksUri: server.jwksUri,
      audience: AUDIENCE,
      algorithms: ['RS256', 'ES256'],
      roleMapping: { editor: { roleId: editorRoleId }, boss: { systemKey: 'admin' } },
      jitProvisioning: true,
      ...options,
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { site, issuerId: created.body.data.id, editorRoleId };
}

const me = (trust: Trust, token: string) => service.request('GET', '/auth/me', { site: trust.site.siteId, token });
const claimsFor = (trust: Trust, subject: string, extra: Record<string, unknown> = {}) => ({
  sub: subject,
  email: `${subject}@${trust.site.siteId}.test`,
  roles: ['editor'],
  ...extra,
});

describe('external JWT authentication', () => {
  it('accepts RS256 and ES256 tokens, provisions the user just in time once, and maps the role', async () => {
    const trust = await trustingSite();
    const rsToken = await idp.sign(rsaKey, claimsFor(trust, 'alice', { given_name: 'Alice' }));
    const first = await me(trust, rsToken);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject({ email: `alice@${trust.site.siteId}.test`, firstName: 'Alice' });
    const esToken = await idp.sign(ecKey, claimsFor(trust, 'alice'));
    const second = await me(trust, esToken);
    expect(second.body.data.id).toBe(first.body.data.id);

    const users = await service.request('GET', '/users', { site: trust.site.siteId, token: trust.site.adminToken });
    expect(users.body.meta.total).toBe(2);
    const alice = users.body.data.find((user: { id: string }) => user.id === first.body.data.id);
    expect(alice).toMatchObject({ roleId: trust.editorRoleId, status: 'active' });
    // Mapped to a non-admin role: no administration.
    expect((await service.request('GET', '/users', { site: trust.site.siteId, token: rsToken })).status).toBe(403);
    const actions = (await auditActions(service, trust.site, `&filter[target][_eq]=user/${alice.id}`)).map((entry) => entry.action);
    expect(actions).toEqual(['user.external_identity_linked', 'user.created']);
  });

  it('maps a role claim to the admin role by systemKey, and takes the role from each token', async () => {
    const trust = await trustingSite();
    const boss = await idp.sign(rsaKey, claimsFor(trust, 'bob', { roles: 'boss' }));
    expect((await service.request('GET', '/users', { site: trust.site.siteId, token: boss })).status).toBe(200);
    const demoted = await idp.sign(rsaKey, claimsFor(trust, 'bob', { roles: ['unknown', 'editor'] }));
    expect((await service.request('GET', '/users', { site: trust.site.siteId, token: demoted })).status).toBe(403);
  });

  it('denies by default: no mapped role and no default role is 403, never admin', async () => {
    const trust = await trustingSite();
    const unmapped = await me(trust, await idp.sign(rsaKey, claimsFor(trust, 'carol', { roles: ['admin', 'root'] })));
    expect(unmapped.status).toBe(403);
    expect(unmapped.body.errors[0].code).toBe('PERMISSION_DENIED');
    const noRoles = await me(trust, await idp.sign(rsaKey, claimsFor(trust, 'carol', { roles: undefined })));
    expect(noRoles.status).toBe(403);
    // Mapping keys are matched as own properties only.
    const prototypeTrick = await me(trust, await idp.sign(rsaKey, claimsFor(trust, 'carol', { roles: ['__proto__', 'constructor', 'toString'] })));
    expect(prototypeTrick.status).toBe(403);
    const users = await service.request('GET', '/users', { site: trust.site.siteId, token: trust.site.adminToken });
    expect(users.body.meta.total).toBe(1);
  });

  it('falls back to defaultRoleId when no role claim is mapped', async () => {
    const site = await createTestSite(service);
    const readerRoleId = await createRole(service, site.siteId, { name: 'Reader' });
    const created = await service.request('POST', '/admin/auth/issuers', {
      site: site.siteId,
      token: site.adminToken,
      body: { issuer: idp.issuer, jwksUri: idp.jwksUri, audience: AUDIENCE, algorithms: ['RS256'], defaultRoleId: readerRoleId, jitProvisioning: true },
    });
    expect(created.status).toBe(201);
    const token = await idp.sign(rsaKey, { sub: 'dave', email: `dave@${site.siteId}.test`, roles: ['whatever'] });
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token })).status).toBe(200);
    const users = await service.request('GET', `/users?roleId=${readerRoleId}`, { site: site.siteId, token: site.adminToken });
    expect(users.body.data).toHaveLength(1);
    // ES256 is not among this issuer's algorithms.
    const es = await idp.sign(ecKey, { sub: 'dave', email: `dave@${site.siteId}.test` });
    expect((await service.request('GET', '/auth/me', { site: site.siteId, token: es })).status).toBe(401);
  });

  it('without just-in-time provisioning an unknown user is 401; a known email is linked', async () => {
    const trust = await trustingSite({ jitProvisioning: false });
    const unknown = await me(trust, await idp.sign(rsaKey, claimsFor(trust, 'erin')));
    expect(unknown.status).toBe(401);
    const member = await createMember(service, trust.site);
    const linked = await me(trust, await idp.sign(rsaKey, { sub: 'member-ext', email: member.email.toUpperCase(), roles: ['editor'] }));
    expect(linked.status).toBe(200);
    expect(linked.body.data.id).toBe(member.userId);
    // Once linked the subject alone identifies the user, even with another email claim.
    const bySubject = await me(trust, await idp.sign(rsaKey, { sub: 'member-ext', email: 'changed@elsewhere.test', roles: ['editor'] }));
    expect(bySubject.body.data.id).toBe(member.userId);
    // An email the provider says is unverified is never used to link.
    const unverified = await me(trust, await idp.sign(rsaKey, { sub: 'other-ext', email: member.email, email_verified: false, roles: ['editor'] }));
    expect(unverified.status).toBe(401);
  });

  it('refuses a deleted or suspended user', async () => {
    const trust = await trustingSite();
    const token = await idp.sign(rsaKey, claimsFor(trust, 'frank'));
    const first = await me(trust, token);
    await service.request('PATCH', `/users/${first.body.data.id}`, { site: trust.site.siteId, token: trust.site.adminToken, body: { status: 'suspended' } });
    expect((await me(trust, token)).status).toBe(401);
  });

  it('checks the site claim: another site is refused, the same site accepted', async () => {
    const trust = await trustingSite({ claimMapping: { email: 'email', roles: 'roles', siteId: 'tenant' } });
    const missing = await me(trust, await idp.sign(rsaKey, claimsFor(trust, 'gina')));
    expect(missing.status).toBe(401);
    const otherSite = await me(trust, await idp.sign(rsaKey, claimsFor(trust, 'gina', { tenant: 'some-other-site' })));
    expect(otherSite.status).toBe(401);
    const sameSite = await me(trust, await idp.sign(rsaKey, claimsFor(trust, 'gina', { tenant: trust.site.siteId })));
    expect(sameSite.status).toBe(200);
    // Without a mapping, a literal siteId claim is still checked.
    const plain = await trustingSite();
    const forOther = await me(plain, await idp.sign(rsaKey, claimsFor(plain, 'hank', { siteId: trust.site.siteId })));
    expect(forOther.status).toBe(401);
  });

  it('refuses a wrong audience, an expired token, a token not yet valid, and a token without exp', async () => {
    const trust = await trustingSite({ clockSkewSeconds: 30 });
    const wrongAudience = await me(trust, await idp.sign(rsaKey, claimsFor(trust, 'ivy'), { audience: 'someone-else' }));
    expect(wrongAudience.status).toBe(401);
    expect(wrongAudience.body.errors[0]).toMatchObject({ code: 'UNAUTHENTICATED', message: expect.stringContaining('issuer') });
    const now = Math.floor(Date.now() / 1000);
    const expired = await me(trust, await idp.sign(rsaKey, claimsFor(trust, 'ivy'), { expiresIn: now - 120 }));
    expect(expired.status).toBe(401);
    expect(expired.body.errors[0].code).toBe('TOKEN_EXPIRED');
    const withinSkew = await me(trust, await idp.sign(rsaKey, claimsFor(trust, 'ivy'), { expiresIn: now - 10 }));
    expect(withinSkew.status).toBe(200);
    const notYet = await me(trust, await idp.sign(rsaKey, claimsFor(trust, 'ivy'), { notBefore: now + 600 }));
    expect(notYet.status).toBe(401);
    const noExp = await new SignJWT(claimsFor(trust, 'ivy'))
      .setProtectedHeader({ alg: 'RS256', kid: rsaKey.kid })
      .setIssuer(idp.issuer)
      .setAudience(AUDIENCE)
      .sign(rsaKey.privateKey);
    expect((await me(trust, noExp)).status).toBe(401);
  });

  it('refetches the key set when a token names a new key (rotation) and drops retired keys', async () => {
    const rotating = await startIssuerServer(AUDIENCE);
    try {
      const oldKey = await rotating.createKey('RS256', 'old');
      const newKey = await rotating.createKey('ES256', 'new');
      rotating.publish(oldKey);
      const trust = await trustingSite({}, rotating);
      expect((await me(trust, await rotating.sign(oldKey, claimsFor(trust, 'jack')))).status).toBe(200);
      const fetchesBefore = rotating.jwksFetches();
      rotating.publish(newKey);
      const rotated = await me(trust, await rotating.sign(newKey, claimsFor(trust, 'jack')));
      expect(rotated.status).toBe(200);
      expect(rotating.jwksFetches()).toBeGreaterThan(fetchesBefore);
      expect((await me(trust, await rotating.sign(oldKey, claimsFor(trust, 'jack')))).status).toBe(401);
    } finally {
      await rotating.close();
    }
  });

  it('refuses a token signed by a key the issuer never published', async () => {
    const trust = await trustingSite();
    const stranger = await idp.createKey('RS256', 'stranger');
    expect((await me(trust, await idp.sign(stranger, claimsFor(trust, 'kate')))).status).toBe(401);
    // Even under a published kid.
    const impostor = { ...stranger, kid: rsaKey.kid };
    expect((await me(trust, await idp.sign(impostor, claimsFor(trust, 'kate')))).status).toBe(401);
  });

  it('refuses alg none, and HS256 signed with the issuer public key', async () => {
    const trust = await trustingSite();
    const unsigned = new UnsecuredJWT(claimsFor(trust, 'leo')).setIssuer(idp.issuer).setAudience(AUDIENCE).setExpirationTime('5m').encode();
    expect((await me(trust, unsigned)).status).toBe(401);
    const publicPem = await exportSPKI(rsaKey.publicKey);
    for (const secret of [publicPem, JSON.stringify(rsaKey.publicJwk)]) {
      const confused = await new SignJWT(claimsFor(trust, 'leo'))
        .setProtectedHeader({ alg: 'HS256', kid: rsaKey.kid })
        .setIssuer(idp.issuer)
        .setAudience(AUDIENCE)
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(secret));
      expect((await me(trust, confused)).status).toBe(401);
    }
    const users = await service.request('GET', '/users', { site: trust.site.siteId, token: trust.site.adminToken });
    expect(users.body.meta.total).toBe(1);
  });

  it('refuses a tampered payload', async () => {
    const trust = await trustingSite();
    const token = await idp.sign(rsaKey, claimsFor(trust, 'mia'));
    const [header, , signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...claimsFor(trust, 'mia', { roles: ['boss'] }), iss: idp.issuer, aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) + 300 })).toString('base64url');
    expect((await me(trust, `${header}.${forged}.${signature}`)).status).toBe(401);
  });

  it('passes a token of an issuer the site does not trust to the internal JWT, which refuses it', async () => {
    const site = await createTestSite(service);
    const token = await idp.sign(rsaKey, { sub: 'nick', email: `nick@${site.siteId}.test`, roles: ['editor'] });
    const response = await service.request('GET', '/auth/me', { site: site.siteId, token });
    expect(response.status).toBe(401);
    expect(response.body.errors[0]).toMatchObject({ code: 'UNAUTHENTICATED', message: 'Invalid token' });
    // A trusted but disabled issuer is not trusted.
    const trust = await trustingSite();
    await service.request('PATCH', `/admin/auth/issuers/${trust.issuerId}`, { site: trust.site.siteId, token: trust.site.adminToken, body: { enabled: false } });
    expect((await me(trust, await idp.sign(rsaKey, claimsFor(trust, 'nick')))).status).toBe(401);
    // The site's own tokens keep working alongside.
    expect((await me(trust, trust.site.adminToken)).status).toBe(200);
  });

  it('finds the key set through the discovery document', async () => {
    const trust = await trustingSite({ jwksUri: null, discoveryUrl: idp.discoveryUrl });
    expect((await me(trust, await idp.sign(ecKey, claimsFor(trust, 'olga')))).status).toBe(200);
  });

  it('fails closed when the key set cannot be fetched', async () => {
    const trust = await trustingSite({ jwksUri: `${idp.issuer}/missing.json`, issuer: idp.issuer });
    expect((await me(trust, await idp.sign(rsaKey, claimsFor(trust, 'pam')))).status).toBe(401);
    const badDiscovery = await trustingSite({ jwksUri: null, discoveryUrl: `${idp.issuer}/nothing-here` });
    expect((await me(badDiscovery, await idp.sign(rsaKey, claimsFor(badDiscovery, 'pam')))).status).toBe(401);
  });

  it('does not fetch key sets from private addresses unless the deployment allows it', async () => {
    const http = createOutboundHttp({ allowPrivate: false });
    try {
      const keySets = createIssuerKeySets({ http, cacheMaxAgeMs: 60_000, cooldownMs: 0, timeoutMs: 2_000 });
      const config = {
        issuer: idp.issuer,
        jwksUri: idp.jwksUri,
        discoveryUrl: null,
        audience: AUDIENCE,
        algorithms: ['RS256' as const],
        claimMapping: { email: 'email', roles: 'roles' },
        roleMapping: {},
        defaultRoleId: null,
        jitProvisioning: false,
        clockSkewSeconds: 0,
        enabled: true,
      };
      const fetchesBefore = idp.jwksFetches();
      const token = await idp.sign(rsaKey, { sub: 'x' });
      await expect(jwtVerify(token, await keySets.keySetFor(config), { issuer: idp.issuer, audience: AUDIENCE })).rejects.toThrow(/loopback|private/);
      await expect(keySets.keySetFor({ ...config, jwksUri: null, discoveryUrl: idp.discoveryUrl })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
      expect(idp.jwksFetches()).toBe(fetchesBefore);
    } finally {
      http.close();
    }
  });
});
