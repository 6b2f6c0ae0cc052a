// A site's part of the event log, read through the service's own database under the site's row-level
// security: where the log stands, and what was appended since, with the request that appended it.
import { sql } from '../../infra/postgres/sql.ts';
import type { TestService } from './testService.ts';

export interface LoggedEvent {
  position: number;
  type: string;
  streamId: string;
  /** The request id of the event's metadata (every write through a route carries its request's). */
  requestId: string | null;
}

/** The site's last event position (0 before its first event). */
export async function siteLogPosition(service: TestService, siteId: string): Promise<number> {
  const [row] = await service.context.database.withSite(siteId, (tx) =>
    tx.query<{ position: string | null }>(sql`SELECT max(position)::text AS position FROM events WHERE site_id = ${siteId}`),
  );
  return Number(row?.position ?? 0);
}

/** The site's events after `position`, oldest first. */
export async function siteEventsAfter(service: TestService, siteId: string, position: number): Promise<LoggedEvent[]> {
  const rows = await service.context.database.withSite(siteId, (tx) =>
    tx.query<{ position: string; type: string; stream_id: string; request_id: string | null }>(sql`
      SELECT position::text, type, stream_id, metadata->>'requestId' AS request_id
        FROM events WHERE site_id = ${siteId} AND position > ${position} ORDER BY position`),
  );
  return rows.map((row) => ({ position: Number(row.position), type: row.type, streamId: row.stream_id, requestId: row.request_id }));
}

/** How many events the site's log holds. */
export async function siteEventCount(service: TestService, siteId: string): Promise<number> {
  const [row] = await service.context.database.withSite(siteId, (tx) =>
    tx.query<{ count: number }>(sql`SELECT count(*)::int AS count FROM events WHERE site_id = ${siteId}`),
  );
  return row?.count ?? 0;
}
