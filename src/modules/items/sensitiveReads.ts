// The one write a read makes: reads that returned pii/phi fields append one `item.sensitive_read`
// event per request to the site's stream of the day (so they reach the audit log and the field
// access log). Concurrent readers share that stream: appends to it take a transaction lock on it
// first, so they queue instead of failing.
import { SENSITIVE_READ_EVENT, sensitiveReadStream, type SensitiveRead, type SensitiveReadEventData } from '../../../domain/content/sensitiveReads.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { appendToStream, StreamConflictError } from '../../../infra/eventstore/eventStore.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { AppContext } from '../../runtime/context.ts';

const MAX_ATTEMPTS = 8;

export async function logSensitiveReads(
  context: Pick<AppContext, 'database'>,
  siteId: string,
  reads: readonly SensitiveRead[],
  metadata: EventMetadata,
  now: Date = new Date(),
): Promise<void> {
  if (reads.length === 0) return;
  const data: SensitiveReadEventData = { reads: [...reads] };
  for (let attempt = 1; ; attempt += 1) {
    try {
      const stream = sensitiveReadStream(siteId, now);
      await context.database.withSite(siteId, async (tx) => {
        await tx.query(sql`SELECT pg_advisory_xact_lock(hashtextextended(${stream}, 0))`);
        await appendToStream(tx, { siteId, streamId: stream, expectedVersion: 'any', events: [{ type: SENSITIVE_READ_EVENT, data }], metadata });
      });
      return;
    } catch (error) {
      if (!(error instanceof StreamConflictError) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}
