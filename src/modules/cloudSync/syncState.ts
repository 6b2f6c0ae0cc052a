// The sync reactor's own state per pipeline (cloud_sync_state: its checkpoint in the site's change
// feed, its retry schedule, a backfill's resume point) and its attempt log (cloud_sync_log). No event
// describes them: an attempt is an effect outside the service, not a change of the site's content.
// This file is their one writer (projections/readModelOwners.ts).
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';

/** Attempts kept per pipeline: older ones are dropped as new ones are recorded. */
export const LOG_KEPT = 1000;

export interface AttemptRecord {
  kind: 'sync' | 'backfill';
  status: 'succeeded' | 'partial' | 'failed';
  items: number;
  failed: number;
  error: string | null;
  fromSeq: number | null;
  toSeq: number | null;
  durationMs: number;
  at: Date;
}

export interface StateChange {
  /** The feed sequence pushed through, when it moves. */
  syncedSeq?: number;
  /** After a failure: when to try again; null clears the failure count. */
  retryAt?: Date | null;
  /** A sync that pushed (the view's lastSyncAt and lastSyncItemCount). */
  synced?: { at: Date; items: number };
  /** Where the next backfill call resumes; null: done, the next starts over. */
  backfill?: { collection: string; after: string } | null;
}

/**
 * Records one attempt and moves the state, in one statement round, only while the pipeline exists (a
 * delete in between leaves nothing behind). `startSeq` is the checkpoint of a pipeline with no state yet.
 */
export async function recordAttempt(tx: Queryable, siteId: string, pipelineId: string, startSeq: number, attempt: AttemptRecord, change: StateChange): Promise<void> {
  const retry = change.retryAt !== undefined;
  const failing = retry && change.retryAt !== null;
  const backfill = change.backfill !== undefined;
  const [state] = await tx.query<{ attempts: string }>(sql`
    INSERT INTO cloud_sync_state AS s (site_id, pipeline_id, synced_seq, attempts, consecutive_failures, next_attempt_at, last_sync_at,
                                      last_sync_item_count, backfill_collection, backfill_after)
    SELECT p.site_id, p.id, ${change.syncedSeq ?? startSeq}, 1, ${failing ? 1 : 0}, ${failing ? change.retryAt! : null}::timestamptz,
           ${change.synced?.at ?? null}::timestamptz, ${change.synced?.items ?? null}::integer,
           ${change.backfill?.collection ?? null}::text, ${change.backfill?.after ?? null}::text
      FROM cloud_sync_pipelines p WHERE p.site_id = ${siteId} AND p.id = ${pipelineId}
    ON CONFLICT (site_id, pipeline_id) DO UPDATE SET
      synced_seq = coalesce(${change.syncedSeq ?? null}::bigint, s.synced_seq),
      attempts = s.attempts + 1,
      consecutive_failures = CASE WHEN ${retry}::boolean THEN CASE WHEN ${failing}::boolean THEN s.consecutive_failures + 1 ELSE 0 END ELSE s.consecutive_failures END,
      next_attempt_at = CASE WHEN ${retry}::boolean THEN ${failing ? change.retryAt! : null}::timestamptz ELSE s.next_attempt_at END,
      last_sync_at = coalesce(${change.synced?.at ?? null}::timestamptz, s.last_sync_at),
      last_sync_item_count = coalesce(${change.synced?.items ?? null}::integer, s.last_sync_item_count),
      backfill_collection = CASE WHEN ${backfill}::boolean THEN ${change.backfill?.collection ?? null}::text ELSE s.backfill_collection END,
      backfill_after = CASE WHEN ${backfill}::boolean THEN ${change.backfill?.after ?? null}::text ELSE s.backfill_after END
    RETURNING attempts`);
  if (!state) return;
  const number = Number(state.attempts);
  await tx.query(sql`
    INSERT INTO cloud_sync_log (site_id, pipeline_id, attempt, at, kind, status, items, failed, error, from_seq, to_seq, duration_ms)
    VALUES (${siteId}, ${pipelineId}, ${number}, ${attempt.at}, ${attempt.kind}, ${attempt.status}, ${attempt.items}, ${attempt.failed},
            ${attempt.error}, ${attempt.fromSeq}, ${attempt.toSeq}, ${Math.round(attempt.durationMs)})`);
  if (number > LOG_KEPT) await tx.query(sql`DELETE FROM cloud_sync_log WHERE site_id = ${siteId} AND pipeline_id = ${pipelineId} AND attempt <= ${number - LOG_KEPT}`);
}

/** Moves the checkpoint past entries the pipeline does not push (nothing was attempted). */
export async function skipTo(tx: Queryable, siteId: string, pipelineId: string, seq: number): Promise<void> {
  await tx.query(sql`
    INSERT INTO cloud_sync_state AS s (site_id, pipeline_id, synced_seq)
    SELECT p.site_id, p.id, ${seq} FROM cloud_sync_pipelines p WHERE p.site_id = ${siteId} AND p.id = ${pipelineId}
    ON CONFLICT (site_id, pipeline_id) DO UPDATE SET synced_seq = greatest(s.synced_seq, excluded.synced_seq)`);
}

/** New credentials: a pipeline waiting out a failure tries again at once. */
export async function retryNow(tx: Queryable, siteId: string, pipelineId: string): Promise<void> {
  await tx.query(sql`UPDATE cloud_sync_state SET next_attempt_at = NULL WHERE site_id = ${siteId} AND pipeline_id = ${pipelineId}`);
}

/** A deleted pipeline's state and log go with it, in the delete's transaction. */
export async function clearSyncState(tx: Queryable, siteId: string, pipelineId: string): Promise<void> {
  await tx.query(sql`DELETE FROM cloud_sync_log WHERE site_id = ${siteId} AND pipeline_id = ${pipelineId}`);
  await tx.query(sql`DELETE FROM cloud_sync_state WHERE site_id = ${siteId} AND pipeline_id = ${pipelineId}`);
}
