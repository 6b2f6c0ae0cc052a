// The one write a read makes: reads that returned pii/phi fields append one `item.sensitive_read`
// event per request to the site's stream of the day (so they reach the audit log and the field
// access log). Concurrent readers share that stream: they queue on its lock instead of failing.
import type { SensitiveReadEvent } from '../../../domain/content/events.ts';
import { SENSITIVE_READ_EVENT, sensitiveReadStream, type SensitiveRead } from '../../../domain/content/sensitiveReads.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { recordDecider } from '../../../domain/shared/recordDecider.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';

const sensitiveReadsDecider = recordDecider<SensitiveReadEvent>();

export async function logSensitiveReads(
  context: Pick<AppContext, 'database' | 'projections'>,
  siteId: string,
  reads: readonly SensitiveRead[],
  metadata: EventMetadata,
  now: Date = new Date(),
): Promise<void> {
  if (reads.length === 0) return;
  await handleCommand(context, {
    siteId,
    streamId: sensitiveReadStream(siteId, now),
    decider: sensitiveReadsDecider,
    command: { type: 'record', events: [{ type: SENSITIVE_READ_EVENT, data: { reads: [...reads] } }] },
    metadata,
    load: 'none',
    lock: true,
  });
}
