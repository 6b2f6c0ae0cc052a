// Bearer tokens an attacker can make or keep, against the service's own access JWTs (HS256 with a key
// derived from SVC_SECRET, src/auth/accessTokens.ts) and the site's trusted issuers: `alg: none`,
// algorithm confusion with public key material, wrong keys, expiry and not-before, audience and
// issuer, another site's token, a tampered payload, and a token replayed after its session ended.
// Each is 401 in the spec's envelope. A token forged with the real key and claims is the control:
// accepted, so each refusal is for its one flaw.
import { randomBytes } from 'node:crypto';
import { base64url, decodeJwt, exportJWK, exportSPKI, generateKeyPair, SignJWT, UnsecuredJWT, type JWTPayload } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { deriveKey } from '../../infra/crypto/secrets.ts';
import { startIssuerServer } from '../modules/identity/support/issuerServer.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../support/testService.ts';

const AUDIENCE = 'svc-jwt-attacks';
const idp = await startIssuerServer(AUDIENCE);
afterAll(() => idp.close());
const service = await startTestServiceForFile({ SVC_ISSUER_ALLOW_PRIVATE: 'true', SVC_JWKS_COOLDOWN_SECONDS: '0' });
const secret = service.context.config.SVC_SECRET;
const accessKey = deriveKey(secret, 'access-token');

interface SignedInSite extends TestSite {
  /** The claims of the administrator's access token, as the service issued them. */
  claims: JWTPayload;
}

async function signedInSite(): Promise<SignedInSite> {
  const site = await createTestSite(service, 'jwt');
  return { ...site, claims: decodeJwt(site.adminToken) };
}

const now = () => Math.floor(Date.now() / 1000);

/** `claims` signed with `key`; the header says HS256 unless told otherwise. */
function forge(claims: JWTPayload, key: Uint8Array | CryptoKey, header: { alg: string } & Record<string, unknown> = { alg: 'HS256', typ: 'JWT' }): Promise<string> {
  return new SignJWT(claims).setProtectedHeader(header).sign(key);
}

const encodePart = (value: unknown) => base64url.encode(JSON.stringify(value));

/** A token's parts: header and payload decoded, the signature as sent. */
function partsOf(token: string): { header: Record<string, unknown>; payload: Record<string, unknown>; signature: string } {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const decode = (part: string) => JSON.parse(new TextDecoder().decode(base64url.decode(part))) as Record<string, unknown>;
  return { header: decode(header), payload: decode(payload), signature };
}

/** Every token is refused with 401 and the envelope, on a signed-in route and a site administrator's route. */
async function expectRefused(siteId: string, tokens: Record<string, string>, code = 'UNAUTHENTICATED'): Promise<void> {
  for (const [label, token] of Object.entries(tokens)) {
    for (const path of ['/auth/me', '/users']) {
      const response = await service.request('GET', path, { site: siteId, token });
      expect(response.status, `${label} on ${path}: ${JSON.stringify(response.body)}`).toBe(401);
      expect(response.body.errors[0], `${label} on ${path}`).toMatchObject({ code, message: expect.any(String) });
    }
  }
}

describe('the control', () => {
  it('accepts a token forged with the real key and the issued claims, so each refusal below is for its one flaw', async () => {
    const site = await signedInSite();
    const forged = await forge({ ...site.claims, iat: now(), exp: now() + 300 }, accessKey);
    const me = await service.request('GET', '/auth/me', { site: site.siteId, token: forged });
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body.data.id).toBe(site.adminUserId);
  });
});

describe('forged tokens', () => {
  it('refuses alg none in every spelling, unsigned or carrying a real signature', async () => {
    const site = await signedInSite();
    const { payload, signature } = partsOf(site.adminToken);
    const tokens: Record<string, string> = { 'jose UnsecuredJWT': new UnsecuredJWT(payload).encode() };
    for (const alg of ['none', 'None', 'NONE', 'nOnE']) {
      tokens[`alg ${alg}, no signature`] = `${encodePart({ alg, typ: 'JWT' })}.${encodePart(payload)}.`;
      tokens[`alg ${alg}, the real signature`] = `${encodePart({ alg, typ: 'JWT' })}.${encodePart(payload)}.${signature}`;
    }
    tokens['no alg at all'] = `${encodePart({ typ: 'JWT' })}.${encodePart(payload)}.${signature}`;
    await expectRefused(site.siteId, tokens);
  });

  it('refuses HS256 signed with public key material the service publishes or trusts (algorithm confusion)', async () => {
    const site = await signedInSite();
    // The service's own published key: the Ed25519 key of its signed log checkpoints.
    const checkpoints = await service.request('GET', '/audit/checkpoints', { site: site.siteId, token: site.adminToken });
    expect(checkpoints.status).toBe(200);
    const { pem, jwk } = checkpoints.body.meta.publicKey as { pem: string; jwk: { x: string } };
    // A trusted issuer of the site, whose JWKS holds an RSA key (RS256 only).
    const rsa = await idp.createKey('RS256', 'rsa-confusion');
    idp.publish(rsa);
    const trusted = await service.request('POST', '/admin/auth/issuers', {
      site: site.siteId,
      token: site.adminToken,
      body: { issuer: idp.issuer, jwksUri: idp.jwksUri, audience: AUDIENCE, algorithms: ['RS256'], defaultRoleId: null, roleMapping: {}, jitProvisioning: true },
    });
    expect(trusted.status, JSON.stringify(trusted.body)).toBe(201);
    const rsaPem = await exportSPKI(rsa.publicKey);
    const text = (value: string) => new TextEncoder().encode(value);
    const claims = { ...site.claims, iat: now(), exp: now() + 300 };
    const asIssuer = { sub: 'mallory', email: `mallory@${site.siteId}.test`, siteId: site.siteId, iss: idp.issuer, aud: AUDIENCE, iat: now(), exp: now() + 300 };
    await expectRefused(site.siteId, {
      'the checkpoint key PEM as the HMAC secret': await forge(claims, text(pem)),
      'the checkpoint JWK as the HMAC secret': await forge(claims, text(JSON.stringify(jwk))),
      'the checkpoint key bytes as the HMAC secret': await forge(claims, base64url.decode(jwk.x)),
      "the issuer's RSA PEM as the HMAC secret, as the issuer": await forge(asIssuer, text(rsaPem)),
      "the issuer's RSA JWK as the HMAC secret, as the issuer": await forge(asIssuer, text(JSON.stringify(rsa.publicJwk))),
      "the issuer's RSA PEM as the HMAC secret, as the service": await forge(claims, text(rsaPem)),
    });
  });

  it('refuses a token signed with the wrong secret, another purpose’s key, or an attacker’s own key pair', async () => {
    const site = await signedInSite();
    const claims = { ...site.claims, iat: now(), exp: now() + 300 };
    const attacker = await generateKeyPair('RS256', { extractable: true });
    const attackerEd = await generateKeyPair('EdDSA', { extractable: true });
    const embedded = { ...(await exportJWK(attacker.publicKey)), kid: 'attacker' };
    await expectRefused(site.siteId, {
      'a random secret': await forge(claims, randomBytes(32)),
      'SVC_SECRET itself, not the derived key': await forge(claims, new TextEncoder().encode(secret)),
      'the unsubscribe tokens’ key': await forge(claims, deriveKey(secret, 'email-unsubscribe-token')),
      'the site tokens’ key': await forge(claims, deriveKey(secret, 'site-token:cursor')),
      'the right key, HS512': await forge(claims, accessKey, { alg: 'HS512', typ: 'JWT' }),
      'the right key, with a critical header it does not know': await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', crit: ['x-bypass'], 'x-bypass': true })
        .sign(accessKey, { crit: { 'x-bypass': true } }),
      'RS256 with the key embedded in the header': await forge(claims, attacker.privateKey, { alg: 'RS256', jwk: embedded }),
      'RS256 with a jku pointing at the attacker': await forge(claims, attacker.privateKey, { alg: 'RS256', jku: `${idp.issuer}/jwks.json`, kid: 'attacker' }),
      'EdDSA of an unknown key': await forge(claims, attackerEd.privateKey, { alg: 'EdDSA' }),
    });
  });
});

describe('tokens out of their time, audience or issuer', () => {
  it('refuses an expired token with TOKEN_EXPIRED', async () => {
    const site = await signedInSite();
    const expired = await forge({ ...site.claims, iat: now() - 600, exp: now() - 60 }, accessKey);
    await expectRefused(site.siteId, { expired }, 'TOKEN_EXPIRED');
  });

  it('refuses a token without an expiry, and one that is not valid yet', async () => {
    const site = await signedInSite();
    const { exp: _exp, ...unbounded } = site.claims;
    await expectRefused(site.siteId, {
      'no exp': await forge({ ...unbounded, iat: now() }, accessKey),
      'nbf in an hour': await forge({ ...site.claims, iat: now(), exp: now() + 7200, nbf: now() + 3600 }, accessKey),
    });
  });

  it('refuses a token for another audience, or from another issuer', async () => {
    const site = await signedInSite();
    const { aud: _aud, iss: _iss, ...rest } = site.claims;
    const fresh = { ...rest, iat: now(), exp: now() + 300 };
    await expectRefused(site.siteId, {
      'audience of another service': await forge({ ...fresh, iss: 'svc', aud: 'another-api' }, accessKey),
      'audiences without this one': await forge({ ...fresh, iss: 'svc', aud: ['another-api', 'svc-api-x'] }, accessKey),
      'no audience': await forge({ ...fresh, iss: 'svc' }, accessKey),
      'another issuer': await forge({ ...fresh, iss: 'https://evil.example.test', aud: 'svc-api' }, accessKey),
      'no issuer': await forge({ ...fresh, aud: 'svc-api' }, accessKey),
      'an issuer the site does not trust, signed by it': await idp.sign(await idp.createKey('RS256', 'untrusted'), { sub: 'eve', siteId: site.siteId }),
    });
  });
});

describe('tokens of someone else, changed, or ended', () => {
  it("refuses another site's token sent with this site's X-Svc-Site, real or forged for this site", async () => {
    const [siteA, siteB] = await Promise.all([signedInSite(), signedInSite()]);
    await expectRefused(siteA.siteId, {
      "site B's real token": siteB.adminToken,
      "site B's user and session, forged as site A's": await forge({ ...siteB.claims, site: siteA.siteId, iat: now(), exp: now() + 300 }, accessKey),
    });
  });

  it('refuses a tampered payload or header under the original signature, and a damaged signature', async () => {
    const site = await signedInSite();
    const member = await service.request('POST', '/users', {
      site: site.siteId,
      token: site.adminToken,
      body: { email: `member@${site.siteId}.test`, password: 'member password 123' },
    });
    expect(member.status).toBe(201);
    const [header, payloadPart, signature] = site.adminToken.split('.') as [string, string, string];
    const { payload } = partsOf(site.adminToken);
    const tampered = (changes: Record<string, unknown>) => `${header}.${encodePart({ ...payload, ...changes })}.${signature}`;
    const flipped = `${signature.slice(0, -2)}${signature.at(-2) === 'A' ? 'B' : 'A'}${signature.at(-1)}`;
    await expectRefused(site.siteId, {
      'another user as the subject': tampered({ sub: member.body.data.id }),
      'a later token version': tampered({ tv: Number(payload.tv) + 1 }),
      'an expiry a year away': tampered({ exp: now() + 365 * 86_400 }),
      'an impersonator added': tampered({ imp: member.body.data.id }),
      'the frontend realm': tampered({ realm: 'frontend' }),
      'the header saying HS384': `${encodePart({ alg: 'HS384', typ: 'JWT' })}.${payloadPart}.${signature}`,
      'a flipped signature': `${header}.${payloadPart}.${flipped}`,
      'no signature': `${header}.${payloadPart}.`,
      'two parts': `${header}.${payloadPart}`,
      'a fourth part': `${site.adminToken}.${signature}`,
    });
  });

  it('refuses a token replayed after logout, after its session is revoked, and after a password change', async () => {
    const site = await signedInSite();
    const signIn = async () => {
      const login = await service.request('POST', '/auth/login', { site: site.siteId, body: { email: site.adminEmail, password: site.adminPassword } });
      expect(login.status).toBe(200);
      return login.body.data as { token: string; refreshToken: string };
    };
    const me = (token: string) => service.request('GET', '/auth/me', { site: site.siteId, token });

    const loggedOut = await signIn();
    expect((await me(loggedOut.token)).status).toBe(200);
    expect((await service.request('POST', '/auth/logout', { site: site.siteId, body: { refreshToken: loggedOut.refreshToken } })).status).toBe(204);

    const revoked = await signIn();
    expect((await me(revoked.token)).status).toBe(200);
    const sessionId = decodeJwt(revoked.token).sid as string;
    expect((await service.request('DELETE', `/me/sessions/${sessionId}`, { site: site.siteId, token: site.adminToken })).status).toBe(204);

    const beforeChange = await signIn();
    expect((await me(beforeChange.token)).status).toBe(200);
    const changed = await service.request('POST', '/me/change-password', {
      site: site.siteId,
      token: site.adminToken,
      body: { currentPassword: site.adminPassword, newPassword: 'another correct horse battery' },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBeLessThan(300);

    await expectRefused(site.siteId, {
      'after logout': loggedOut.token,
      'after its session was revoked': revoked.token,
      'after a password change': beforeChange.token,
      'the administrator’s first token, after the password change': site.adminToken,
    });
  });
});
