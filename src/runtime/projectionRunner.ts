// Applies events to projections: inline ones inside the append's transaction, async ones from the
// global log with a checkpoint written in the same transaction as their rows.
import { createHash } from 'node:crypto';
import type { StoredEvent } from '../../domain/shared/events.ts';
import { cursorOf, LOG_START, readAll, readCommitted, readLogHead, type GlobalCursor } from '../../infra/eventstore/eventStore.ts';
import type { Database, Queryable } from '../../infra/postgres/database.ts';
import { identifier, join, prepared, sql } from '../../infra/postgres/sql.ts';
import { handles, type Projection } from '../../projections/projection.ts';

export const BATCH_SIZE = 500;

/** Runs every inline projection over freshly appended events, in the append's transaction. */
export async function applyInline(tx: Queryable, projections: readonly Projection[], events: readonly StoredEvent[]): Promise<void> {
  const inline = projections.filter((projection) => projection.mode === 'inline');
  if (events.length > 1 && inline.some((projection) => projection.applyBatch)) {
    // Bulk appends: a projection that can take the events at once gets them in one call (each
    // projection still sees them in log order).
    for (const projection of inline) await applyTo(tx, projection, events.filter((event) => handles(projection, event.type)));
    return;
  }
  for (const event of events) {
    for (const projection of inline) {
      if (handles(projection, event.type)) await projection.apply(tx, event);
    }
  }
}

/** Events of one site that the projection handles: in one `applyBatch` call where it has one, else one by one. */
async function applyTo(tx: Queryable, projection: Projection, events: readonly StoredEvent[]): Promise<void> {
  if (projection.applyBatch && events.length > 1) await projection.applyBatch(tx, events);
  else for (const event of events) await projection.apply(tx, event);
}

/**
 * Applies events of several sites: each run of one site's events under that site's row-level
 * security, in one `applyBatch` call where the projection has one (one statement per batch instead
 * of one per event), else event by event.
 */
async function applyEvents(tx: Queryable, projection: Projection, events: readonly StoredEvent[]): Promise<void> {
  let run: StoredEvent[] = [];
  const applyRun = async () => {
    if (run.length === 0) return;
    await tx.setSite(run[0]!.siteId);
    await applyTo(tx, projection, run);
    run = [];
  };
  for (const event of events) {
    if (!handles(projection, event.type)) continue;
    if (run.length > 0 && run[0]!.siteId !== event.siteId) await applyRun();
    run.push(event);
  }
  await applyRun();
}

export async function readCheckpoint(tx: Pick<Queryable, 'query'>, name: string, lock = false): Promise<GlobalCursor> {
  const rows = await tx.query<{ tx_id: string; position: number }>(
    lock
      ? sql`SELECT tx_id, position FROM projection_checkpoints WHERE name = ${name} FOR UPDATE`
      : sql`SELECT tx_id, position FROM projection_checkpoints WHERE name = ${name}`,
  );
  const row = rows[0];
  return row ? { txId: String(row.tx_id), position: row.position } : LOG_START;
}

async function ensureCheckpointRow(tx: Queryable, name: string): Promise<void> {
  await tx.query(sql`INSERT INTO projection_checkpoints (name) VALUES (${name}) ON CONFLICT (name) DO NOTHING`);
}

async function writeCheckpoint(tx: Queryable, name: string, cursor: GlobalCursor): Promise<void> {
  await tx.query(sql`
    INSERT INTO projection_checkpoints (name, tx_id, position, updated_at)
    VALUES (${name}, ${cursor.txId}::xid8, ${cursor.position}, now())
    ON CONFLICT (name) DO UPDATE SET tx_id = excluded.tx_id, position = excluded.position, updated_at = now()`);
  tx.notifyAfterCommit('svc_checkpoints', name);
}

/** Reads the batch of the log after a cursor (BATCH_SIZE events at most). */
export type BatchReader = (from: GlobalCursor) => Promise<readonly StoredEvent[]>;

export interface StepResult {
  /** Events read (and applied): 0 at the head of the log, or when the step was voided. */
  read: number;
  /** The checkpoint after the step; null when it had moved under the step (re-read it). */
  cursor: GlobalCursor | null;
}

/**
 * One step of async projections standing at the same checkpoint `from` (as their leader last left
 * it): reads the next batch once, then applies it to each and advances their checkpoints in one
 * transaction, the checkpoints first (svc_advance_checkpoint locks each and refuses if it moved,
 * e.g. by a rebuild, voiding the batch for all) and the projections' deferred writes with the
 * COMMIT: two round trips and one commit however many projections, when they only write. A
 * failure fails the step of all of them; the daemon then steps each alone.
 */
export async function stepAsyncProjectionsFrom(
  database: Database,
  projections: readonly Projection[],
  from: GlobalCursor,
  readBatch: BatchReader = (cursor) => readAll(database, cursor, BATCH_SIZE),
): Promise<StepResult> {
  const batch = await readBatch(from);
  if (batch.length === 0) return { read: 0, cursor: from };
  const to = cursorOf(batch.at(-1)!);
  try {
    await database.withSystem(async (tx) => {
      for (const projection of projections) {
        tx.defer(prepared(sql`SELECT svc_advance_checkpoint(${projection.name}, ${from.txId}::xid8, ${from.position}, ${to.txId}::xid8, ${to.position})`));
        tx.notifyAfterCommit('svc_checkpoints', projection.name);
      }
      for (const projection of projections) await applyEvents(tx, projection, batch);
    });
  } catch (error) {
    if ((error as { code?: string }).code === 'SV412') return { read: 0, cursor: null };
    throw error;
  }
  return { read: batch.length, cursor: to };
}

/** One step of one async projection from `from` (see stepAsyncProjectionsFrom). */
export function stepAsyncProjectionFrom(database: Database, projection: Projection, from: GlobalCursor, readBatch?: BatchReader): Promise<StepResult> {
  return stepAsyncProjectionsFrom(database, [projection], from, readBatch);
}

/** One step from the projection's stored checkpoint; returns how many events were applied. */
export async function stepAsyncProjection(database: Database, projection: Projection): Promise<number> {
  return (await stepAsyncProjectionFrom(database, projection, await readCheckpoint(database, projection.name))).read;
}

/**
 * Rebuilds one read model from position 0: empties its tables and replays the whole log in one
 * transaction. Runs on an owner connection (it reads every site). Writers of the same tables wait;
 * readers do not, and go on seeing the old rows until the new ones are committed.
 */
export async function rebuildProjection(database: Database, projection: Projection): Promise<{ events: number }> {
  return database.withSystem(async (tx) => {
    await tx.query(sql`SELECT pg_advisory_xact_lock(${advisoryKey(`rebuild:${projection.name}`)})`);
    if (projection.mode === 'async') {
      // Take the checkpoint row before the tables, in the daemon's order: a daemon step then waits
      // for the rebuild (and finds its batch voided) instead of deadlocking with it.
      await ensureCheckpointRow(tx, projection.name);
      await readCheckpoint(tx, projection.name, true);
    }
    // Not TRUNCATE: it is not MVCC-safe, so a reader whose snapshot predates the commit (one that
    // waited for the table's lock) would find the tables empty. EXCLUSIVE mode stops writers only.
    const tables = projection.tables.map((table) => identifier(table));
    await tx.query(sql`LOCK TABLE ${join(tables)} IN EXCLUSIVE MODE`);
    for (const table of tables) await tx.query(sql`DELETE FROM ${table}`);
    // Inline rows exist for every committed event; async ones stop at the horizon and the daemon goes on.
    const read = projection.mode === 'inline' ? readCommitted : readAll;
    let cursor = LOG_START;
    let count = 0;
    for (;;) {
      const batch = await read(tx, cursor, 2_000);
      if (batch.length === 0) break;
      await applyEvents(tx, projection, batch);
      cursor = cursorOf(batch.at(-1)!);
      count += batch.length;
    }
    if (projection.mode === 'async') await writeCheckpoint(tx, projection.name, cursor);
    return { events: count };
  });
}

export interface ProjectionStatus {
  name: string;
  mode: 'inline' | 'async';
  checkpoint: number | null;
  head: number;
  /** Events of the log the projection has not applied yet (0 for inline projections). */
  lag: number;
}

export async function projectionStatus(database: Database, projections: readonly Projection[]): Promise<ProjectionStatus[]> {
  const head = await readLogHead(database);
  const statuses: ProjectionStatus[] = [];
  for (const projection of projections) {
    if (projection.mode === 'inline') {
      statuses.push({ name: projection.name, mode: 'inline', checkpoint: null, head: head.position, lag: 0 });
      continue;
    }
    const checkpoint = await readCheckpoint(database, projection.name);
    const [row] = await database.query<{ lag: number }>(
      sql`SELECT count(*)::int AS lag FROM svc_read_all(${checkpoint.txId}::xid8, ${checkpoint.position}, 1000000)`,
    );
    statuses.push({ name: projection.name, mode: 'async', checkpoint: checkpoint.position, head: head.position, lag: row?.lag ?? 0 });
  }
  return statuses;
}

export function advisoryKey(name: string): number {
  return createHash('sha256').update(`svc:${name}`).digest().readInt32BE(0);
}
