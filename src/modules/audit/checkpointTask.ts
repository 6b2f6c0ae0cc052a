// The scheduler task 'log-checkpoints' (docs/verifiable-history.md). It reads the global log after
// its own cursor, in log order and below the horizon of transactions that may still commit (the
// way the projection daemon reads it), and folds each site's events into that site's running
// head. It signs a checkpoint for a site once SVC_CHECKPOINT_EVERY events follow the site's last
// checkpoint, or once SVC_CHECKPOINT_INTERVAL has passed since it and some events follow it. Each
// batch is one transaction, together with the cursor's move.
import type { SigningKey } from '../../../infra/crypto/signing.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { AppContext } from '../../runtime/context.ts';
import { closeCheckpoint, foldLogEvents, type CheckpointDraft, type FoldedLog, type LogEvent, type SiteLogState } from './checkpointFold.ts';
import { checkpointDigest, checkpointPayloadText, CHECKPOINT_PAYLOAD_TYPE } from './checkpointPayload.ts';

/** Events read per transaction. */
const BATCH_EVENTS = 2_000;
/** A run stops after this many batches or this long, whichever comes first; the next tick goes on. */
const MAX_BATCHES_PER_RUN = 20;
const MAX_RUN_MS = 2_000;
/** Sites checkpointed by SVC_CHECKPOINT_INTERVAL per run. */
const MAX_DUE_SITES_PER_RUN = 200;

export interface CheckpointRun {
  eventsRead: number;
  checkpointsTaken: number;
  /** The run read every event below the horizon. Later events, if any, are for the next run. */
  caughtUp: boolean;
}

type CheckpointContext = Pick<AppContext, 'database' | 'config' | 'signingKey'>;

/** The scheduler task (the audit area's manifest, src/modules/index.ts). */
export async function runLogCheckpoints(context: CheckpointContext, now: Date, signal?: AbortSignal): Promise<void> {
  await takeLogCheckpoints(context, now, signal);
}

/** One run: folds up to a bounded number of batches, then takes the checkpoints due by time. */
export async function takeLogCheckpoints(context: CheckpointContext, now: Date, signal?: AbortSignal): Promise<CheckpointRun> {
  const run: CheckpointRun = { eventsRead: 0, checkpointsTaken: 0, caughtUp: false };
  const started = Date.now();
  for (let batch = 0; batch < MAX_BATCHES_PER_RUN && Date.now() - started < MAX_RUN_MS; batch += 1) {
    if (signal?.aborted) return run;
    const folded = await context.database.withSystem((tx) => foldNextBatch(tx, context, now));
    run.eventsRead += folded.events;
    run.checkpointsTaken += folded.checkpoints;
    if (folded.events < BATCH_EVENTS) {
      run.caughtUp = true;
      break;
    }
  }
  if (signal?.aborted) return run;
  run.checkpointsTaken += await context.database.withSystem((tx) => takeDueCheckpoints(tx, context, now));
  return run;
}

/** Reads the next batch of the log after the cursor, folds it, and signs the checkpoints it closes. */
async function foldNextBatch(tx: Queryable, context: CheckpointContext, now: Date): Promise<{ events: number; checkpoints: number }> {
  const cursor = await lockCursor(tx);
  const rows = await tx.query<{ site_id: string; stream_id: string; stream_position: number; global_position: number; tx_id: string; hash: string }>(sql`
    SELECT site_id, stream_id, stream_position, global_position, tx_id::text AS tx_id, hash
      FROM svc_checkpoint_read_log(${cursor.txId}::xid8, ${cursor.position}, ${BATCH_EVENTS})`);
  if (rows.length === 0) return { events: 0, checkpoints: 0 };
  const events: LogEvent[] = rows.map((row) => ({
    siteId: row.site_id,
    streamId: row.stream_id,
    streamPosition: row.stream_position,
    position: row.global_position,
    txId: row.tx_id,
    hash: row.hash,
  }));
  const states = await readStates(tx, [...new Set(events.map((event) => event.siteId))]);
  const folded = foldLogEvents(states, events, { every: context.config.SVC_CHECKPOINT_EVERY, now });
  await writeFolded(tx, folded, context.signingKey, now);
  const last = rows.at(-1)!;
  tx.defer(sql`UPDATE log_checkpoint_cursor SET tx_id = ${last.tx_id}::xid8, position = ${last.global_position}, updated_at = now()`);
  return { events: rows.length, checkpoints: folded.drafts.length };
}

/** Checkpoints of the sites whose pending events have waited SVC_CHECKPOINT_INTERVAL since their last checkpoint. */
async function takeDueCheckpoints(tx: Queryable, context: CheckpointContext, now: Date): Promise<number> {
  await lockCursor(tx);
  const since = new Date(now.getTime() - context.config.SVC_CHECKPOINT_INTERVAL);
  const due = await tx.query<{ site_id: string }>(sql`SELECT site_id FROM svc_checkpoint_due_sites(${since}, ${MAX_DUE_SITES_PER_RUN}) AS site_id`);
  if (due.length === 0) return 0;
  const states = await readStates(tx, due.map((row) => row.site_id));
  const drafts = [...states.values()].filter((state) => state.pendingEvents > 0).map((state) => closeCheckpoint(state, now));
  await writeFolded(tx, { states, drafts, streamHeads: [] }, context.signingKey, now);
  return drafts.length;
}

/** Takes the task's one cursor row: the writers of the checkpoint tables take turns on it. */
async function lockCursor(tx: Queryable): Promise<{ txId: string; position: number }> {
  const [cursor] = await tx.query<{ tx_id: string; position: number }>(
    sql`SELECT tx_id::text AS tx_id, position FROM log_checkpoint_cursor FOR UPDATE`,
  );
  if (!cursor) throw new Error('log_checkpoint_cursor has no row (migration 0410)');
  return { txId: cursor.tx_id, position: cursor.position };
}

async function readStates(tx: Queryable, siteIds: string[]): Promise<Map<string, SiteLogState>> {
  const rows = await tx.query<{
    site_id: string; head_hash: string; event_count: number; stream_count: number; last_tx_id: string; last_position: number;
    pending_events: number; last_seq: number; last_digest: string | null; since: Date;
  }>(sql`
    SELECT site_id, head_hash, event_count, stream_count, last_tx_id::text AS last_tx_id, last_position, pending_events, last_seq, last_digest, since
      FROM svc_checkpoint_heads(${siteIds}::text[])`);
  return new Map(
    rows.map((row) => [
      row.site_id,
      {
        siteId: row.site_id,
        headHash: row.head_hash,
        eventCount: row.event_count,
        streamCount: row.stream_count,
        lastTxId: row.last_tx_id,
        lastPosition: row.last_position,
        pendingEvents: row.pending_events,
        lastSeq: row.last_seq,
        lastDigest: row.last_digest,
        since: row.since,
      },
    ]),
  );
}

/**
 * Writes each site's stream heads, then signs and inserts its closed checkpoints in order (each one
 * chains to the digest of the one before it), then writes its new state. Writes are sent under the
 * site's setting (row-level security).
 */
async function writeFolded(tx: Queryable, folded: FoldedLog, key: SigningKey, now: Date): Promise<void> {
  const headsBySite = groupBySite(folded.streamHeads);
  const draftsBySite = groupBySite(folded.drafts);
  for (const state of folded.states.values()) {
    await tx.setSite(state.siteId);
    const heads = headsBySite.get(state.siteId) ?? [];
    if (heads.length > 0) {
      tx.defer(sql`
        INSERT INTO log_checkpoint_streams AS s (site_id, seq, stream_id, stream_position, hash)
        SELECT ${state.siteId}::text, * FROM unnest(${heads.map((head) => head.seq)}::bigint[], ${heads.map((head) => head.streamId)}::text[],
                                              ${heads.map((head) => head.streamPosition)}::bigint[], ${heads.map((head) => head.hash)}::text[])
        ON CONFLICT (site_id, seq, stream_id) DO UPDATE SET stream_position = excluded.stream_position, hash = excluded.hash
         WHERE excluded.stream_position > s.stream_position`);
    }
    for (const draft of draftsBySite.get(state.siteId) ?? []) {
      state.lastDigest = await signCheckpoint(tx, draft, state.lastDigest, key, now);
    }
    tx.defer(sql`
      INSERT INTO log_checkpoint_heads (site_id, head_hash, event_count, stream_count, last_tx_id, last_position, pending_events, last_seq, last_digest, since)
      VALUES (${state.siteId}, ${state.headHash}, ${state.eventCount}, ${state.streamCount}, ${state.lastTxId}::xid8, ${state.lastPosition},
              ${state.pendingEvents}, ${state.lastSeq}, ${state.lastDigest}, ${state.since})
      ON CONFLICT (site_id) DO UPDATE SET head_hash = excluded.head_hash, event_count = excluded.event_count, stream_count = excluded.stream_count,
        last_tx_id = excluded.last_tx_id, last_position = excluded.last_position, pending_events = excluded.pending_events,
        last_seq = excluded.last_seq, last_digest = excluded.last_digest, since = excluded.since`);
  }
}

function groupBySite<T extends { siteId: string }>(items: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(item.siteId);
    if (group) group.push(item);
    else groups.set(item.siteId, [item]);
  }
  return groups;
}

/** Signs one checkpoint and inserts it; returns its digest. */
async function signCheckpoint(tx: Queryable, draft: CheckpointDraft, previousDigest: string | null, key: SigningKey, now: Date): Promise<string> {
  const [streams] = await tx.query<{ touched: number; digest: string }>(
    sql`SELECT touched, digest FROM svc_checkpoint_streams_digest(${draft.siteId}, ${draft.seq})`,
  );
  const payload = checkpointPayloadText({
    type: CHECKPOINT_PAYLOAD_TYPE,
    version: 1,
    siteId: draft.siteId,
    seq: draft.seq,
    lastTxId: draft.txId,
    position: draft.position,
    eventCount: draft.eventCount,
    streamCount: draft.streamCount,
    streamsTouched: streams!.touched,
    streamsDigest: streams!.digest,
    headHash: draft.headHash,
    previousDigest,
    createdAt: now.toISOString(),
    keyId: key.keyId,
    algorithm: key.algorithm,
  });
  const digest = checkpointDigest(payload);
  tx.defer(sql`
    INSERT INTO log_checkpoints (site_id, seq, tx_id, position, event_count, stream_count, streams_touched, streams_digest, head_hash,
                                 previous_digest, digest, key_id, algorithm, payload, signature, created_at)
    VALUES (${draft.siteId}, ${draft.seq}, ${draft.txId}::xid8, ${draft.position}, ${draft.eventCount}, ${draft.streamCount},
            ${streams!.touched}, ${streams!.digest}, ${draft.headHash}, ${previousDigest}, ${digest}, ${key.keyId}, ${key.algorithm},
            ${payload}, ${key.sign(payload)}, ${now})`);
  return digest;
}
