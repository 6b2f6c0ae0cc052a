// Reads of pii/phi fields are logged: one `item.sensitive_read` event per read request that returned
// such fields, on a per-site daily stream, so they are in the audit log and the field access log.
import { streamId } from '../shared/events.ts';

export type { SensitiveRead, SensitiveReadEventData } from './events.ts';

export const SENSITIVE_READ_EVENT = 'item.sensitive_read';

/** `<site>/sensitive-reads/<yyyy-mm-dd>` (UTC day of the read). */
export function sensitiveReadStream(siteId: string, at: Date): string {
  return streamId(siteId, 'sensitive-reads', at.toISOString().slice(0, 10));
}
