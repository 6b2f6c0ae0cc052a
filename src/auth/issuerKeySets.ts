// Public key sets of trusted issuers, fetched from their jwks_uri (directly, or through the OpenID
// discovery document) and cached. jose's remote key set refetches when a token names an unknown kid
// (key rotation), at most once per cooldown, and drops keys older than the cache age. Both fetches
// go through the outbound HTTP guard: a site administrator cannot make the service call private,
// loopback or metadata addresses unless the deployment allows it.
import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';
import type { OutboundHttp } from '../../infra/http/outboundHttp.ts';
import type { IssuerConfig } from '../../domain/identity/issuer.ts';
import { errors } from '../../domain/shared/appError.ts';

export interface IssuerKeySetOptions {
  http: OutboundHttp;
  cacheMaxAgeMs: number;
  cooldownMs: number;
  timeoutMs: number;
}

export interface IssuerKeySets {
  /** The key resolver of an issuer; throws UNAUTHENTICATED when its discovery document is unusable. */
  keySetFor(config: IssuerConfig): Promise<JWTVerifyGetKey>;
}

const MAX_CACHED = 1_000;

export function createIssuerKeySets(options: IssuerKeySetOptions): IssuerKeySets {
  const keySets = new Map<string, JWTVerifyGetKey>();
  const discovered = new Map<string, { jwksUri: string; fetchedAt: number }>();

  /** A GET through the guarded client, as the fetch Response jose expects. Redirects are not followed. */
  async function fetchJson(url: string): Promise<Response> {
    const response = await options.http.send({ url, method: 'GET', headers: { accept: 'application/json' }, timeoutMs: options.timeoutMs });
    return new Response(response.status === 204 || response.status === 304 ? null : response.body, {
      status: response.status,
      headers: { 'content-type': 'application/json' },
    });
  }

  async function discover(discoveryUrl: string, issuer: string): Promise<string> {
    const cached = discovered.get(discoveryUrl);
    if (cached && Date.now() - cached.fetchedAt < options.cacheMaxAgeMs) return cached.jwksUri;
    let document: { issuer?: unknown; jwks_uri?: unknown };
    try {
      const response = await fetchJson(discoveryUrl);
      if (!response.ok) throw new Error(`discovery answered ${response.status}`);
      document = (await response.json()) as typeof document;
    } catch {
      throw errors.unauthenticated('The issuer discovery document could not be fetched');
    }
    // OpenID Connect Discovery: the document must name the same issuer, or it vouches for someone else.
    if (document.issuer !== issuer || typeof document.jwks_uri !== 'string' || !/^https?:\/\//.test(document.jwks_uri)) {
      throw errors.unauthenticated('The issuer discovery document does not match the trusted issuer');
    }
    if (discovered.size >= MAX_CACHED) discovered.clear();
    discovered.set(discoveryUrl, { jwksUri: document.jwks_uri, fetchedAt: Date.now() });
    return document.jwks_uri;
  }

  return {
    async keySetFor(config) {
      const jwksUri = config.jwksUri ?? (await discover(config.discoveryUrl!, config.issuer));
      let keySet = keySets.get(jwksUri);
      if (!keySet) {
        if (keySets.size >= MAX_CACHED) keySets.clear();
        keySet = createRemoteJWKSet(new URL(jwksUri), {
          cacheMaxAge: options.cacheMaxAgeMs,
          cooldownDuration: options.cooldownMs,
          timeoutDuration: options.timeoutMs,
          [customFetch]: (url: string) => fetchJson(url),
        });
        keySets.set(jwksUri, keySet);
      }
      return keySet;
    },
  };
}
