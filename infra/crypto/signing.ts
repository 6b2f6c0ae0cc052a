// The deployment's signing key (Ed25519): signs log checkpoints and erasure receipts, so that anyone
// holding the public key can verify them offline. From SVC_SIGNING_KEY (a PKCS#8 PEM, or the base64
// of a 32-byte seed), else derived from the deployment secret.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { deriveKey } from './secrets.ts';

/** PKCS#8 DER of an Ed25519 private key, up to its 32-byte seed. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export class SigningKeyFormatError extends Error {}

export interface SigningKey {
  /** The first 16 hex digits of the SHA-256 of the raw public key. */
  readonly keyId: string;
  readonly algorithm: 'Ed25519';
  readonly publicKeyPem: string;
  readonly publicJwk: { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string };
  /** A base64url Ed25519 signature of `message`. */
  sign(message: Buffer | string): string;
  verify(message: Buffer | string, signature: string): boolean;
}

function privateKeyOf(value: string | undefined, secret: string): KeyObject {
  const text = value?.trim() ?? '';
  if (text === '') return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, Buffer.from(deriveKey(secret, 'signing:ed25519'))]), format: 'der', type: 'pkcs8' });
  if (text.startsWith('-----BEGIN')) {
    const key = createPrivateKey(text.replace(/\\n/g, '\n'));
    if (key.asymmetricKeyType !== 'ed25519') throw new SigningKeyFormatError(`is a ${key.asymmetricKeyType} key, not Ed25519`);
    return key;
  }
  const seed = Buffer.from(text, 'base64');
  if (seed.length !== 32) throw new SigningKeyFormatError(`is ${seed.length} bytes, not a 32-byte Ed25519 seed (base64) or a PKCS#8 PEM`);
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

export function createSigningKey(value: string | undefined, secret: string): SigningKey {
  const privateKey = privateKeyOf(value, secret);
  const publicKey = createPublicKey(privateKey);
  const jwk = publicKey.export({ format: 'jwk' }) as { x: string };
  const keyId = createHash('sha256').update(Buffer.from(jwk.x, 'base64url')).digest('hex').slice(0, 16);
  return {
    keyId,
    algorithm: 'Ed25519',
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    publicJwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid: keyId },
    sign: (message) => sign(null, Buffer.from(message), privateKey).toString('base64url'),
    verify: (message, signature) => verify(null, Buffer.from(message), publicKey, Buffer.from(signature, 'base64url')),
  };
}
