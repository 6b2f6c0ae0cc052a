// Addresses and the keys over them (docs/email.md): normalizing and validating an address, its keyed
// hash (what events and the delivery records name a recipient by), and the stateless unsubscribe
// token (an HS256 JWT `{ sid, email, purpose }`, no expiry, under a key derived from SVC_SECRET).
import { jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';
import { deriveKey } from '../../../infra/crypto/secrets.ts';
import { createSiteTokens } from '../../../infra/crypto/siteTokens.ts';

export const normalizeAddress = (email: string): string => email.trim().toLowerCase();

/** An address as a client sends it: trimmed and lower-cased, then checked. */
export const addressSchema = z.string().max(254).transform(normalizeAddress).pipe(z.email({ error: 'must be an email address' }));

const TOKEN_PURPOSE = 'email-unsubscribe';

export interface UnsubscribeClaims {
  siteId: string;
  email: string;
}

export interface EmailKeys {
  /** The site's keyed hash of a normalized address (base64url, 128 bits). */
  recipientHash(siteId: string, email: string): string;
  unsubscribeToken(siteId: string, email: string): Promise<string>;
  /** The token's site and address, or null when it is not one of ours (another key, `alg: none`, another purpose, garbage). */
  readUnsubscribeToken(token: string): Promise<UnsubscribeClaims | null>;
}

const claimsSchema = z.object({ sid: z.string().min(1).max(200), email: z.string().min(3).max(254), purpose: z.literal(TOKEN_PURPOSE) });

export function createEmailKeys(deploymentSecret: string): EmailKeys {
  const hashes = createSiteTokens(deploymentSecret, 'email-recipient');
  const tokenKey = deriveKey(deploymentSecret, 'email-unsubscribe-token');
  return {
    recipientHash: (siteId, email) => hashes.digest(siteId, email),
    unsubscribeToken: (siteId, email) =>
      new SignJWT({ sid: siteId, email, purpose: TOKEN_PURPOSE }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt().sign(tokenKey),
    async readUnsubscribeToken(token) {
      if (token.length > 2_000) return null;
      try {
        const { payload } = await jwtVerify(token, tokenKey, { algorithms: ['HS256'] });
        const claims = claimsSchema.safeParse(payload);
        return claims.success ? { siteId: claims.data.sid, email: normalizeAddress(claims.data.email) } : null;
      } catch {
        return null;
      }
    },
  };
}
