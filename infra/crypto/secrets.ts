// Keys derived from the deployment secret, one per purpose, so no two uses share a key.
import { createHash, hash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

export function deriveKey(secret: string, purpose: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, 'svc', purpose, 32));
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Tokens we hand out (refresh, API key, email) are stored only as this hash. */
export function tokenHash(token: string): string {
  // One-shot: a third of createHash's time, and it runs for every request with an API key.
  return hash('sha256', token);
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}
