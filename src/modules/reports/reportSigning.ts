// The signed manifest of a compliance report (docs/compliance-reports.md): what the report holds, the
// SHA-256 of its file's bytes, and the evidence that the log is whole, as canonical JSON signed with
// the deployment's Ed25519 key, as erasure receipts are. A compliance officer verifies it offline with
// the public key alone.
import { canonicalJson } from '../../../domain/shared/canonicalJson.ts';
import type { ReportParams } from '../../../domain/reports/events.ts';
import type { SigningKey } from '../../../infra/crypto/signing.ts';
import type { ReportCheckpoint, ReportVerification } from './reportEvidence.ts';
import type { SignedManifest } from './schemas.ts';

export const REPORT_MANIFEST_TYPE = 'svc.compliance-report';

export interface ReportManifest {
  /** Keeps the signature from being taken for any other signature of the key (checkpoints, erasure receipts). */
  type: typeof REPORT_MANIFEST_TYPE;
  version: 1;
  reportId: string;
  siteId: string;
  from: string;
  to: string;
  collections: string[];
  actions: string[];
  format: ReportParams['format'];
  entries: number;
  /** Of the stored file's bytes, in hex. */
  sha256: string;
  bytes: number;
  /** The log positions of the first and last entry reported (absent for an empty report). */
  firstPosition?: number;
  lastPosition?: number;
  checkpoints: ReportCheckpoint[];
  verification: ReportVerification;
  generatedAt: string;
  generatedBy: { kind: string; id: string | null };
  keyId: string;
  algorithm: 'Ed25519';
}

export function signReportManifest(manifest: Omit<ReportManifest, 'type' | 'version' | 'keyId' | 'algorithm'>, key: SigningKey): SignedManifest {
  // Absent keys leave the JSON, so that the manifest as answered gives the payload again (canonicalJson writes undefined as null).
  const signed = JSON.parse(JSON.stringify({ type: REPORT_MANIFEST_TYPE, version: 1, ...manifest, keyId: key.keyId, algorithm: key.algorithm })) as ReportManifest;
  const payload = canonicalJson(signed);
  return {
    manifest: signed as unknown as Record<string, unknown>,
    payload,
    signature: key.sign(payload),
    keyId: key.keyId,
    algorithm: key.algorithm,
    publicKey: { pem: key.publicKeyPem, jwk: key.publicJwk },
  };
}
