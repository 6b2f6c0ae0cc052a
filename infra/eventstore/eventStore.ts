// The event store on PostgreSQL behind a small interface (append, readStream, readAll, subscribe),
// so that another store could be put behind it later.
import { randomUUID } from 'node:crypto';
import { AppError } from '../../domain/shared/appError.ts';
import type { EventMetadata, NewEvent, StoredEvent } from '../../domain/shared/events.ts';
import { upcast } from '../../domain/shared/upcasting.ts';
import type { Queryable } from '../postgres/database.ts';
import { sql } from '../postgres/sql.ts';

export type ExpectedVersion = number | 'any' | 'no_stream';

/** A position in the global log: the stable order is (transaction id, position). */
export interface GlobalCursor {
  txId: string;
  position: number;
}

export const LOG_START: GlobalCursor = { txId: '0', position: 0 };

export interface AppendRequest {
  siteId: string;
  streamId: string;
  expectedVersion: ExpectedVersion;
  events: NewEvent[];
  metadata: EventMetadata;
}

export interface AppendResult {
  /** The stream's version after the append. */
  nextVersion: number;
  /** The events as stored (with positions); empty when every event id was already appended. */
  events: StoredEvent[];
}

export interface EventRow {
  position: number;
  tx_id: string;
  site_id: string;
  stream_id: string;
  stream_position: number;
  event_id: string;
  type: string;
  schema_version: number;
  data: Record<string, unknown>;
  metadata: EventMetadata;
  recorded_at: Date;
  hash: string;
  prev_hash: string | null;
}

export function toStoredEvent(row: EventRow): StoredEvent {
  const lifted = upcast(row.type, row.schema_version, row.data);
  return {
    position: row.position,
    txId: String(row.tx_id),
    siteId: row.site_id,
    streamId: row.stream_id,
    streamPosition: row.stream_position,
    eventId: row.event_id,
    type: row.type,
    schemaVersion: lifted.version,
    data: lifted.data,
    metadata: row.metadata,
    recordedAt: row.recorded_at,
    hash: row.hash,
    prevHash: row.prev_hash,
  };
}

export class StreamConflictError extends AppError {
  constructor(message: string) {
    super('CONFLICT', 409, message);
  }
}

/** Appends to one stream inside the caller's transaction (so inline projections share it). */
export async function appendToStream(tx: Queryable, request: AppendRequest): Promise<AppendResult> {
  const expected =
    request.expectedVersion === 'any' ? null : request.expectedVersion === 'no_stream' ? 0 : request.expectedVersion;
  const payload = request.events.map((event) => ({
    eventId: event.eventId ?? randomUUID(),
    type: event.type,
    schemaVersion: event.schemaVersion ?? 1,
    data: event.data ?? {},
    metadata: request.metadata,
  }));
  let rows: { global_position: number; stream_position: number; duplicate: boolean }[];
  try {
    rows = await tx.query(
      sql`SELECT * FROM svc_append(${request.siteId}, ${request.streamId}, ${expected}::bigint, ${JSON.stringify(payload)}::jsonb)`,
    );
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'SV409' || code === '23505') {
      throw new StreamConflictError(`Concurrent change to ${request.streamId}; reload and retry`);
    }
    throw error;
  }
  if (rows.length > 0 && rows.every((row) => row.duplicate)) {
    return { nextVersion: rows.at(-1)!.stream_position, events: [] };
  }
  const stored = await tx.query<EventRow>(
    sql`SELECT * FROM events WHERE position = ANY(${rows.map((row) => row.global_position)}::bigint[]) ORDER BY position`,
  );
  return { nextVersion: rows.at(-1)?.stream_position ?? 0, events: stored.map(toStoredEvent) };
}

export async function readStream(tx: Queryable, streamId: string, options: { after?: number; until?: Date } = {}): Promise<StoredEvent[]> {
  const rows = await tx.query<EventRow>(sql`
    SELECT * FROM events
     WHERE stream_id = ${streamId} AND stream_position > ${options.after ?? 0}
       AND (${options.until ?? null}::timestamptz IS NULL OR recorded_at <= ${options.until ?? null}::timestamptz)
     ORDER BY stream_position`);
  return rows.map(toStoredEvent);
}

/**
 * Reads the global log of every site after `cursor`, in its stable order, never past a transaction
 * that could still commit below it. Used by projectors and the change feed.
 */
export async function readAll(tx: Pick<Queryable, 'query'>, cursor: GlobalCursor, limit: number): Promise<StoredEvent[]> {
  const rows = await tx.query<EventRow>(sql`SELECT * FROM svc_read_all(${cursor.txId}::xid8, ${cursor.position}, ${limit})`);
  return rows.map(toStoredEvent);
}

export async function readLogHead(tx: Pick<Queryable, 'query'>): Promise<GlobalCursor> {
  const rows = await tx.query<{ tx_id: string; global_position: number }>(sql`SELECT * FROM svc_log_head()`);
  const head = rows[0];
  return head ? { txId: String(head.tx_id), position: head.global_position } : LOG_START;
}

export function cursorOf(event: Pick<StoredEvent, 'txId' | 'position'>): GlobalCursor {
  return { txId: event.txId, position: event.position };
}
