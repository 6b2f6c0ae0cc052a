// The signed receipt of an executed erasure: what was erased, by whom, approved by whom and when,
// never the subject itself (its keyed hash). Canonical JSON signed with the deployment's Ed25519
// key, so that a compliance officer verifies it offline with the public key it carries.
import { AppError } from '../../../domain/shared/appError.ts';
import { canonicalJson } from '../../../domain/shared/canonicalJson.ts';
import type { SigningKey } from '../../../infra/crypto/signing.ts';
import type { ErasureRequest } from './erasureRequests.ts';

export const RECEIPT_TYPE = 'svc.erasure-receipt';

export function erasureReceipt(siteId: string, erasure: ErasureRequest, signingKey: SigningKey) {
  if (erasure.status !== 'executed') {
    throw new AppError('CONFLICT', `Erasure "${erasure.id}" is ${erasure.status}: its receipt exists once it is executed`);
  }
  const receipt = {
    type: RECEIPT_TYPE,
    version: 1,
    erasureId: erasure.id,
    siteId,
    collection: erasure.collection,
    subjectHash: erasure.subjectHash,
    recordCount: erasure.recordCount,
    shreddedValues: erasure.shreddedValues,
    reason: erasure.reason,
    requestedBy: erasure.requestedBy,
    requestedAt: erasure.requestedAt,
    confirmedBy: erasure.confirmedBy,
    confirmedAt: erasure.confirmedAt,
    executedBy: erasure.executedBy,
    executedAt: erasure.executedAt,
    keyId: signingKey.keyId,
    algorithm: signingKey.algorithm,
  };
  const payload = canonicalJson(receipt);
  return {
    receipt,
    payload,
    signature: signingKey.sign(payload),
    keyId: signingKey.keyId,
    algorithm: signingKey.algorithm,
    publicKey: { pem: signingKey.publicKeyPem, jwk: signingKey.publicJwk },
  };
}
