// Opaque per-site tokens for numbers and fingerprints a client may hold but must not read (issue 27,
// finding 11): a change-feed cursor, a delivery ETag. Each site has its own key, derived from the
// deployment secret and a purpose, so a token tells nothing of other sites (no global position,
// no transaction id), another site's token or a forged one does not open, and the same value always
// gives the same token (a consumer that stored one resumes after a restart; replicas agree).
import { createCipheriv, createDecipheriv, createHmac, type Cipher } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { deriveKey } from './secrets.ts';

/** A site's sealed numbers: deterministic, authenticated, the same length for every value. */
export interface SiteNumberSeal {
  seal(value: number): string;
  /** The value, or null when the text is not a token of this site and purpose. */
  open(token: string): number | null;
}

export interface SiteTokens {
  /** The site's seal (its cipher is built once per call: take one per request, not per value). */
  numbers(siteId: string): SiteNumberSeal;
  /** A keyed digest of `text` for the site (base64url, 128 bits): equal texts give equal digests, nothing else can be read. */
  digest(siteId: string, text: string): string;
}

/** Tokens are 'c' + base64url of one AES block: 23 characters. */
const TOKEN_PREFIX = 'c';
const TOKEN_PATTERN = /^c[A-Za-z0-9_-]{22}$/;
/**
 * The block is 8 fixed bytes then the value (unsigned, big-endian). AES with the site's key is a
 * pseudorandom permutation of the block: another key (another site) or a changed token opens to a
 * random block, whose first 8 bytes are these with a chance of 2^-64.
 */
const CHECK = Buffer.from('svc-tok1', 'latin1');
/** Site keys kept at most (each is one HMAC to derive again). */
const MAX_KEYS = 10_000;

export function createSiteTokens(deploymentSecret: string, purpose: string): SiteTokens {
  const purposeKey = deriveKey(deploymentSecret, `site-token:${purpose}`);
  const keys = new LRUCache<string, Buffer>({ max: MAX_KEYS });

  function siteKey(siteId: string): Buffer {
    let key = keys.get(siteId);
    if (!key) {
      key = createHmac('sha256', purposeKey).update(siteId, 'utf8').digest();
      keys.set(siteId, key);
    }
    return key;
  }

  return {
    numbers(siteId) {
      const key = siteKey(siteId);
      let cipher: Cipher | null = null;
      return {
        seal(value) {
          if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a sealable number: ${value}`);
          if (!cipher) {
            // ECB of single blocks: each update() is one block in, one block out.
            cipher = createCipheriv('aes-256-ecb', key, null).setAutoPadding(false);
          }
          const block = Buffer.alloc(16);
          CHECK.copy(block, 0);
          block.writeBigUInt64BE(BigInt(value), 8);
          return TOKEN_PREFIX + cipher.update(block).toString('base64url');
        },
        open(token) {
          if (!TOKEN_PATTERN.test(token)) return null;
          const sealed = Buffer.from(token.slice(TOKEN_PREFIX.length), 'base64url');
          if (sealed.length !== 16 || sealed.toString('base64url') !== token.slice(TOKEN_PREFIX.length)) return null;
          const block = createDecipheriv('aes-256-ecb', key, null).setAutoPadding(false).update(sealed);
          if (!block.subarray(0, 8).equals(CHECK)) return null;
          const value = block.readBigUInt64BE(8);
          return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : null;
        },
      };
    },
    digest(siteId, text) {
      return createHmac('sha256', siteKey(siteId)).update(text, 'utf8').digest().subarray(0, 16).toString('base64url');
    },
  };
}
