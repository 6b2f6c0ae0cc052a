// What a log checkpoint signs: canonical JSON (keys sorted, no spaces), so anyone can rebuild the
// exact string from its fields and check the Ed25519 signature with the deployment's public key.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../domain/shared/canonicalJson.ts';

export const CHECKPOINT_PAYLOAD_TYPE = 'svc.log-checkpoint';

export interface CheckpointPayload {
  /** Keeps a checkpoint's signature from being mistaken for a signature of anything else the key signs. */
  type: typeof CHECKPOINT_PAYLOAD_TYPE;
  version: 1;
  siteId: string;
  seq: number;
  /** The last event covered, in log order (transaction, position). */
  lastTxId: string;
  position: number;
  /** The site's events and streams up to that event, from the start of its log. */
  eventCount: number;
  streamCount: number;
  /** The streams with events since the previous checkpoint, and the digest of their newest events (svc_checkpoint_streams_digest). */
  streamsTouched: number;
  streamsDigest: string;
  headHash: string;
  /** The digest of the previous checkpoint's payload (null for the first). */
  previousDigest: string | null;
  createdAt: string;
  keyId: string;
  algorithm: 'Ed25519';
}

export function checkpointPayloadText(payload: CheckpointPayload): string {
  return canonicalJson(payload);
}

/** The SHA-256 (hex) of a payload's text: its digest, which the next checkpoint chains to. */
export function checkpointDigest(payloadText: string): string {
  return createHash('sha256').update(payloadText, 'utf8').digest('hex');
}
