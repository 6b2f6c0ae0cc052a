// The event store on PostgreSQL behind a small interface (append, readStream, readAll, subscribe),
// so that another store could be put behind it later.
import { v7 as uuidv7 } from 'uuid';
import { AppError } from '../../domain/shared/appError.ts';
import type { EventMetadata, NewEvent, StoredEvent } from '../../domain/shared/events.ts';
import { checkEvent } from '../../domain/shared/eventCatalogue.ts';
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

/**
 * An event of the log that does not match its type's schema (after upcasting), or whose type the
 * catalogue does not know: a fault in what wrote it, never passed on to a reader.
 */
export class MalformedEventError extends Error {
  constructor(
    readonly position: number,
    readonly streamId: string,
    readonly type: string,
    readonly problem: string,
  ) {
    super(`The event at position ${position} (stream ${streamId}, type ${type}) does not match its schema: ${problem}`);
    this.name = 'MalformedEventError';
  }
}

/**
 * A row of the log as readers get it: upcast to its type's latest version, then checked against its
 * schema. Every read of the store (and what an append returns) goes through here, once per event.
 */
export function toStoredEvent(row: EventRow): StoredEvent {
  const lifted = upcast(row.type, row.schema_version, row.data);
  const checked = checkEvent(row.type, lifted.data);
  if ('problem' in checked) throw new MalformedEventError(row.position, row.stream_id, row.type, checked.problem);
  return {
    position: row.position,
    txId: String(row.tx_id),
    siteId: row.site_id,
    streamId: row.stream_id,
    streamPosition: row.stream_position,
    eventId: row.event_id,
    schemaVersion: lifted.version,
    ...checked.event,
    metadata: row.metadata,
    recordedAt: row.recorded_at,
    hash: row.hash,
    prevHash: row.prev_hash,
  };
}

export class StreamConflictError extends AppError {
  constructor(message: string) {
    super('CONFLICT', message);
  }
}

/** Appends to one stream inside the caller's transaction (so inline projections share it). */
export async function appendToStream(tx: Queryable, request: AppendRequest): Promise<AppendResult> {
  const expected =
    request.expectedVersion === 'any' ? null : request.expectedVersion === 'no_stream' ? 0 : request.expectedVersion;
  const payload = request.events.map((event) => ({
    eventId: event.eventId ?? uuidv7(),
    type: event.type,
    schemaVersion: event.schemaVersion ?? 1,
    data: event.data ?? {},
    metadata: request.metadata,
  }));
  let rows: {
    global_position: number;
    stream_position: number;
    duplicate: boolean;
    tx_id: string;
    recorded_at: Date;
    prev_hash: string | null;
    hash: string;
  }[];
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
  // Wakes readers of the log (projection daemons, change feed) once the transaction commits.
  tx.notifyAfterCommit('svc_events', request.siteId);
  // svc_append returns one row per event, in order, with what the database assigned.
  const events = rows.map((row, index) =>
    toStoredEvent({
      position: row.global_position,
      tx_id: row.tx_id,
      site_id: request.siteId,
      stream_id: request.streamId,
      stream_position: row.stream_position,
      event_id: payload[index]!.eventId,
      type: payload[index]!.type,
      schema_version: payload[index]!.schemaVersion,
      data: payload[index]!.data as Record<string, unknown>,
      metadata: request.metadata,
      recorded_at: row.recorded_at,
      hash: row.hash,
      prev_hash: row.prev_hash,
    }),
  );
  return { nextVersion: rows.at(-1)?.stream_position ?? 0, events };
}

export interface FirstEventsRequest {
  siteId: string;
  /**
   * One event per stream; every stream must be new (a stream that exists is a conflict). An event's
   * own metadata, when given, replaces the request's (writes of several requests in one append).
   */
  events: { streamId: string; event: NewEvent; metadata?: EventMetadata }[];
  metadata: EventMetadata;
}

/**
 * Starts many new streams with one event each in one statement (bulk creates). Same hash chain and
 * conflict rule as `appendToStream` with `expectedVersion: 'no_stream'`: a stream that already
 * exists fails the whole append with a conflict. SQL: svc_append_first_events (migrations 0102, 0105).
 */
export async function appendFirstEvents(tx: Queryable, request: FirstEventsRequest): Promise<StoredEvent[]> {
  if (request.events.length === 0) return [];
  const payload = request.events.map(({ streamId, event, metadata }) => ({
    streamId,
    eventId: event.eventId ?? uuidv7(),
    type: event.type,
    schemaVersion: event.schemaVersion ?? 1,
    data: event.data ?? {},
    ...(metadata ? { metadata } : {}),
  }));
  let rows: { global_position: number; event_tx_id: string; new_event_id: string; event_recorded_at: Date; event_hash: string }[];
  try {
    rows = await tx.query(
      sql`SELECT * FROM svc_append_first_events(${request.siteId}, ${JSON.stringify(payload)}::jsonb, ${JSON.stringify(request.metadata)}::jsonb)`,
    );
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === '23505') throw new StreamConflictError('One of these streams already exists; reload and retry');
    throw error;
  }
  tx.notifyAfterCommit('svc_events', request.siteId);
  const byEventId = new Map(rows.map((row) => [row.new_event_id, row]));
  return payload
    .map((event) => {
      const row = byEventId.get(event.eventId)!;
      return toStoredEvent({
        position: row.global_position,
        tx_id: row.event_tx_id,
        site_id: request.siteId,
        stream_id: event.streamId,
        stream_position: 1,
        event_id: event.eventId,
        type: event.type,
        schema_version: event.schemaVersion,
        data: event.data as Record<string, unknown>,
        metadata: event.metadata ?? request.metadata,
        recorded_at: row.event_recorded_at,
        hash: row.event_hash,
        prev_hash: null,
      });
    })
    .sort((a, b) => a.position - b.position);
}

export async function readStream(tx: Queryable, streamId: string, options: { after?: number; until?: Date } = {}): Promise<StoredEvent[]> {
  // svc_read_stream (migration 0005): the stream index only, then the transaction's site.
  const rows = await tx.query<EventRow>(
    sql`SELECT * FROM svc_read_stream(${streamId}, ${options.after ?? 0}, ${options.until ?? null}::timestamptz)`,
  );
  return rows.map(toStoredEvent);
}

/** The last event of one stream, if it has any. */
export async function readStreamHead(tx: Pick<Queryable, 'query'>, streamId: string): Promise<StoredEvent | null> {
  const rows = await tx.query<EventRow>(sql`SELECT * FROM svc_read_stream_head(${streamId})`);
  return rows[0] ? toStoredEvent(rows[0]) : null;
}

/** Which of `streamIds` have been started (in the transaction's site). */
export async function startedStreams(tx: Pick<Queryable, 'query'>, streamIds: string[]): Promise<Set<string>> {
  const rows = await tx.query<{ stream_id: string }>(sql`SELECT svc_started_streams AS stream_id FROM svc_started_streams(${streamIds}::text[])`);
  return new Set(rows.map((row) => row.stream_id));
}

/**
 * Reads the global log of every site after `cursor`, in its stable order, never past a transaction
 * that could still commit below it. Used by projectors and the change feed.
 */
export async function readAll(tx: Pick<Queryable, 'query'>, cursor: GlobalCursor, limit: number): Promise<StoredEvent[]> {
  const rows = await tx.query<EventRow>(sql`SELECT * FROM svc_read_all(${cursor.txId}::xid8, ${cursor.position}, ${limit})`);
  return rows.map(toStoredEvent);
}

/**
 * Every committed event after `cursor`, in the log's order, ignoring the reader horizon. Only for a
 * rebuild of inline read models: it holds their tables locked, so no transaction that writes them can
 * still commit behind it, and a horizon held back by an unrelated long transaction must not hide
 * events whose rows already exist.
 */
export async function readCommitted(tx: Pick<Queryable, 'query'>, cursor: GlobalCursor, limit: number): Promise<StoredEvent[]> {
  const rows = await tx.query<EventRow>(sql`
    SELECT * FROM events WHERE (tx_id, position) > (${cursor.txId}::xid8, ${cursor.position})
     ORDER BY tx_id, position LIMIT ${limit}`);
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
