// Name-based UUIDs (version 8, SHA-256): the same name always gives the same id, so that two
// concurrent creators of "the subscriber role of site X" append to the same stream and one of them
// sees a version conflict instead of a duplicate.
import { createHash } from 'node:crypto';

export function deterministicUuid(name: string): string {
  const bytes = createHash('sha256').update(name).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
