// A local identity provider for tests: serves a JWKS and an OpenID discovery document over node:http
// on 127.0.0.1 (a free port), holds real RS256/ES256 key pairs, and signs tokens with them.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

export interface IssuerServer {
  /** The issuer string (`iss`): the server's base URL. */
  issuer: string;
  jwksUri: string;
  discoveryUrl: string;
  /** How many times the JWKS was fetched. */
  jwksFetches(): number;
  createKey(alg: 'RS256' | 'ES256', kid: string): Promise<SigningKey>;
  /** Which keys the JWKS lists from now on (rotation). */
  publish(...keys: SigningKey[]): void;
  sign(key: SigningKey, claims: JWTPayload, options?: { expiresIn?: number | string; notBefore?: number; issuer?: string; audience?: string }): Promise<string>;
  close(): Promise<void>;
}

export async function startIssuerServer(audience: string): Promise<IssuerServer> {
  let published: SigningKey[] = [];
  let fetches = 0;
  let base = '';
  const server: Server = createServer((request, response) => {
    if (request.url === '/jwks.json') {
      fetches += 1;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ keys: published.map((key) => ({ ...key.publicJwk, kid: key.kid, alg: key.alg, use: 'sig' })) }));
      return;
    }
    if (request.url === '/.well-known/openid-configuration') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ issuer: base, jwks_uri: `${base}/jwks.json` }));
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer: base,
    jwksUri: `${base}/jwks.json`,
    discoveryUrl: `${base}/.well-known/openid-configuration`,
    jwksFetches: () => fetches,
    async createKey(alg, kid) {
      const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
      return { kid, alg, privateKey, publicKey, publicJwk: await exportJWK(publicKey) };
    },
    publish(...keys) {
      published = keys;
    },
    async sign(key, claims, options = {}) {
      let jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
        .setIssuer(options.issuer ?? base)
        .setAudience(options.audience ?? audience)
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? '5m');
      if (options.notBefore !== undefined) jwt = jwt.setNotBefore(options.notBefore);
      return jwt.sign(key.privateKey);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
