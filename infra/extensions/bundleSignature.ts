// Checks an extension bundle's detached Ed25519 signature over its exact bytes against the trusted
// keys (docs/extensions.md, "Signing"). Every refusal is 400 VALIDATION_FAILED at the field at fault,
// with `extensions.reason`: unsigned, untrusted_signer or bad_signature.
import { createHash, verify } from 'node:crypto';
import { AppError } from '../../domain/shared/appError.ts';
import type { TrustedExtensionKey } from './trustedKeys.ts';

export interface VerifiedSigner {
  keyId: string;
  official: boolean;
  /** The sha256 of the signed bytes, hex. */
  sha256: string;
}

const ED25519_SIGNATURE_BYTES = 64;
const refuse = (field: 'signature' | 'keyId', reason: 'unsigned' | 'untrusted_signer' | 'bad_signature', message: string) =>
  new AppError('VALIDATION_FAILED', message, { path: ['body', field], extensions: { reason } });

/** The signer of `bytes` if `signature` (base64) is a valid signature of a trusted key named `keyId`. */
export function verifyBundleSignature(bytes: Buffer, signature: string | undefined, keyId: string | undefined, trusted: readonly TrustedExtensionKey[]): VerifiedSigner {
  if (!signature) throw refuse('signature', 'unsigned', 'The bundle is unsigned: send its detached Ed25519 signature (base64) in "signature"');
  if (!keyId) throw refuse('keyId', 'unsigned', 'The bundle names no signer: send the id of the key that signed it in "keyId"');
  const key = trusted.find((candidate) => candidate.keyId === keyId);
  if (!key) {
    const why = trusted.length === 0 ? 'no key is trusted (SVC_EXTENSION_TRUSTED_KEYS is empty)' : 'it is not one of SVC_EXTENSION_TRUSTED_KEYS';
    throw refuse('keyId', 'untrusted_signer', `The signer "${keyId}" is not trusted: ${why}`);
  }
  const decoded = /^[A-Za-z0-9+/_-]+={0,2}$/.test(signature) ? Buffer.from(signature.replaceAll('-', '+').replaceAll('_', '/'), 'base64') : Buffer.alloc(0);
  if (decoded.length !== ED25519_SIGNATURE_BYTES || !verify(null, bytes, key.publicKey, decoded)) {
    throw refuse('signature', 'bad_signature', `The signature does not verify with the key "${keyId}" over the bundle's exact bytes`);
  }
  return { keyId, official: key.official, sha256: createHash('sha256').update(bytes).digest('hex') };
}
