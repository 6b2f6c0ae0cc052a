// Short-lived access JWTs (HS256 with a key derived from the deployment secret), bound to the site,
// the user, the session and the user's tokenVersion.
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { AppError, errors } from '../../domain/shared/appError.ts';
import { deriveKey } from '../../infra/crypto/secrets.ts';
import { createSecretKey } from 'node:crypto';

export const ACCESS_TOKEN_ISSUER = 'svc';
const AUDIENCE = 'svc-api';
const VERIFIED_TOKENS = 10_000;

export interface AccessClaims {
  siteId: string;
  userId: string;
  sessionId: string | null;
  tokenVersion: number;
  impersonatorId?: string | null;
  realm: 'studio' | 'frontend';
}

export interface AccessTokenIssuer {
  issue(claims: AccessClaims): Promise<{ token: string; expiresAt: Date }>;
  verify(token: string): Promise<AccessClaims>;
}

export function createAccessTokenIssuer(secret: string, ttlSeconds: number): AccessTokenIssuer {
  // A KeyObject is imported once; jose would re-import raw bytes on every sign and verify.
  const key = createSecretKey(deriveKey(secret, 'access-token'));
  // Tokens whose signature and claims were checked, by their exact text, until they expire: a client
  // sends the same token on every request, and the HMAC check is a large part of a cheap request's
  // cost. Whether the token is still honoured (session, tokenVersion) is checked per request.
  const verified = new Map<string, { claims: AccessClaims; expiresAtMs: number }>();
  return {
    async issue(claims) {
      const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
      const token = await new SignJWT({
        site: claims.siteId,
        sid: claims.sessionId,
        tv: claims.tokenVersion,
        realm: claims.realm,
        ...(claims.impersonatorId ? { imp: claims.impersonatorId } : {}),
      })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(claims.userId)
        .setIssuer(ACCESS_TOKEN_ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
        .sign(key);
      return { token, expiresAt };
    },
    async verify(token) {
      const known = verified.get(token);
      if (known) {
        if (Date.now() < known.expiresAtMs) return known.claims;
        verified.delete(token);
        throw errors.tokenExpired();
      }
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer: ACCESS_TOKEN_ISSUER, audience: AUDIENCE });
        if (typeof payload.sub !== 'string' || typeof payload.site !== 'string' || typeof payload.tv !== 'number' || typeof payload.exp !== 'number') {
          throw errors.unauthenticated('Invalid token');
        }
        const claims: AccessClaims = {
          siteId: payload.site,
          userId: payload.sub,
          sessionId: typeof payload.sid === 'string' ? payload.sid : null,
          tokenVersion: payload.tv,
          impersonatorId: typeof payload.imp === 'string' ? payload.imp : null,
          realm: payload.realm === 'frontend' ? 'frontend' : 'studio',
        };
        if (verified.size >= VERIFIED_TOKENS) verified.delete(verified.keys().next().value!);
        verified.set(token, { claims, expiresAtMs: payload.exp * 1000 });
        return claims;
      } catch (error) {
        if (error instanceof AppError) throw error;
        if (error instanceof joseErrors.JWTExpired) throw errors.tokenExpired();
        throw errors.unauthenticated('Invalid token');
      }
    },
  };
}
