// Unique visitors without raw IPs: a visitor is HMAC(day salt, site, IP, user agent), where the day
// salt is HMAC(SVC_SECRET, UTC date). The IP is never stored; the hash changes every day, so the same
// person on two days (or on two sites) gives two unrelated hashes.
import { createHmac } from 'node:crypto';

/** Bytes of the hash kept (hex in Redis and in memory, bytea in PostgreSQL). */
const VISITOR_HASH_BYTES = 16;

export interface VisitorHasher {
  /** The visitor's hash for `day` (YYYY-MM-DD), 32 hex characters. */
  hash(day: string, siteId: string, ip: string, userAgent: string): string;
}

export function createVisitorHasher(secret: string): VisitorHasher {
  let salt: { day: string; key: Buffer } | null = null;
  const saltOf = (day: string): Buffer => {
    if (salt?.day !== day) salt = { day, key: createHmac('sha256', secret).update(`svc:pageviews:visitor-salt:${day}`).digest() };
    return salt.key;
  };
  return {
    hash(day, siteId, ip, userAgent) {
      return createHmac('sha256', saltOf(day))
        .update(`${siteId}\n${ip}\n${userAgent}`)
        .digest()
        .subarray(0, VISITOR_HASH_BYTES)
        .toString('hex');
    },
  };
}

/** The UTC date of `at`, YYYY-MM-DD: the day a hit counts for. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}
