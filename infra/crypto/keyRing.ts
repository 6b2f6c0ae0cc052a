// The encryption key ring: key-encryption keys by id, from SVC_ENCRYPTION_KEYS (`id:base64` pairs,
// comma-separated, each 32 bytes) or, when that is unset, one key derived from the deployment
// secret. AES-256-GCM with associated data seals and opens values and data keys (node:crypto).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { deriveKey } from './secrets.ts';

export const ENCRYPTION_ALGORITHM = 'aes-256-gcm';
/** The id of the key derived from the deployment secret when SVC_ENCRYPTION_KEYS is unset. */
export const DERIVED_KEY_ID = 'derived';
const KEY_ID = /^[A-Za-z0-9_.-]{1,64}$/;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class KeyRingFormatError extends Error {}

/** A wrong key or tampered bytes: GCM refused to open the sealed value. */
export class OpenFailedError extends Error {}

export interface KeyRing {
  /** The configured key ids, in their configured order. */
  readonly ids: readonly string[];
  /** The key a site uses until it rotates: the first configured key. */
  readonly defaultId: string;
  has(id: string): boolean;
  /** The key's bytes; throws when they are not provisioned. */
  key(id: string): Buffer;
}

/** Parses `SVC_ENCRYPTION_KEYS`; unset or empty gives the one key derived from `secret`. */
export function parseKeyRing(value: string | undefined, secret: string): KeyRing {
  const keys = new Map<string, Buffer>();
  const text = value?.trim() ?? '';
  if (text === '') {
    keys.set(DERIVED_KEY_ID, Buffer.from(deriveKey(secret, 'encryption:key-ring')));
  } else {
    for (const entry of text.split(',')) {
      const separator = entry.indexOf(':');
      const id = entry.slice(0, separator).trim();
      const material = entry.slice(separator + 1).trim();
      if (separator < 1 || !KEY_ID.test(id)) throw new KeyRingFormatError(`"${entry.trim()}" is not id:base64key (ids are 1 to 64 of A-Z a-z 0-9 _ . -)`);
      if (keys.has(id)) throw new KeyRingFormatError(`key id "${id}" is given twice`);
      const bytes = Buffer.from(material, 'base64');
      if (bytes.length !== 32) throw new KeyRingFormatError(`key "${id}" is ${bytes.length} bytes, not 32 (base64 of 32 random bytes)`);
      keys.set(id, bytes);
    }
  }
  const ids = [...keys.keys()];
  return {
    ids,
    defaultId: ids[0]!,
    has: (id) => keys.has(id),
    key(id) {
      const bytes = keys.get(id);
      if (!bytes) throw new Error(`encryption key "${id}" is not provisioned`);
      return bytes;
    },
  };
}

/** AES-256-GCM: a fresh 12-byte IV, then the 16-byte tag, then the ciphertext. */
export function sealBytes(key: Buffer, plaintext: Buffer, associatedData: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ENCRYPTION_ALGORITHM, key, iv);
  cipher.setAAD(associatedData);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

/** Opens what `sealBytes` sealed with the same key and associated data; else OpenFailedError. */
export function openBytes(key: Buffer, sealed: Buffer, associatedData: Buffer): Buffer {
  if (sealed.length < IV_BYTES + TAG_BYTES) throw new OpenFailedError('sealed value is too short');
  try {
    const decipher = createDecipheriv(ENCRYPTION_ALGORITHM, key, sealed.subarray(0, IV_BYTES));
    decipher.setAAD(associatedData);
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    throw new OpenFailedError('sealed value did not authenticate');
  }
}

/** A fresh 32-byte data key. */
export function newDataKey(): Buffer {
  return randomBytes(32);
}
