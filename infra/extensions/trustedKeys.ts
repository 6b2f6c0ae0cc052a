// The keys whose signatures make an extension bundle trusted: SVC_EXTENSION_TRUSTED_KEYS, comma-separated
// `keyId:publicKey` entries, `:official` after an entry for a key that may sign the reserved `@svc/`
// namespace. A public key is base64 (or base64url) of the raw 32-byte Ed25519 key, or of its DER
// SubjectPublicKeyInfo (docs/extensions.md, "Trust").
import { createPublicKey, type KeyObject } from 'node:crypto';

export interface TrustedExtensionKey {
  keyId: string;
  publicKey: KeyObject;
  /** May sign bundles of the official namespace. */
  official: boolean;
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

function publicKeyOf(encoded: string, keyId: string): KeyObject {
  if (!BASE64.test(encoded)) throw new Error(`the key of "${keyId}" is not base64`);
  const bytes = Buffer.from(encoded.replaceAll('-', '+').replaceAll('_', '/'), 'base64');
  let key: KeyObject;
  try {
    key =
      bytes.length === 32
        ? createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: bytes.toString('base64url') }, format: 'jwk' })
        : createPublicKey({ key: bytes, format: 'der', type: 'spki' });
  } catch {
    throw new Error(`the key of "${keyId}" is neither a raw 32-byte Ed25519 public key nor a DER SubjectPublicKeyInfo`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`the key of "${keyId}" is not an Ed25519 key`);
  return key;
}

/** The trusted keys of the setting (none when unset); throws naming the first bad entry. */
export function parseTrustedKeys(value: string | undefined): TrustedExtensionKey[] {
  if (value === undefined || value.trim() === '') return [];
  const keys: TrustedExtensionKey[] = [];
  for (const entry of value.split(',').map((part) => part.trim()).filter(Boolean)) {
    const [keyId = '', encoded = '', flag, ...rest] = entry.split(':').map((part) => part.trim());
    if (!KEY_ID.test(keyId)) throw new Error(`"${keyId}" is not a key id (letters, digits, ".", "_" and "-", at most 64)`);
    if (rest.length > 0 || (flag !== undefined && flag !== 'official')) throw new Error(`the entry of "${keyId}" is not keyId:publicKey or keyId:publicKey:official`);
    if (keys.some((key) => key.keyId === keyId)) throw new Error(`"${keyId}" is listed twice`);
    keys.push({ keyId, publicKey: publicKeyOf(encoded, keyId), official: flag === 'official' });
  }
  return keys;
}
