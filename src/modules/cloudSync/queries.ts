// Reads of cloud-sync pipelines (with where their sync stands) and of their attempt log.
import type { z } from 'zod';
import type { CloudSyncTarget } from '../../../domain/cloudSync/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { pipelineSchema } from './schemas.ts';

/** A pipeline as answered (schemas.ts): never its credentials, nor the reactor's checkpoint. */
export type PipelineView = z.infer<typeof pipelineSchema>;

/** A pipeline with what the sync reactor needs beside the view: its sealed credentials' reference and its checkpoint. */
export interface PipelineRow extends PipelineView {
  credentials: string;
  /** The feed sequence pushed through (the start sequence before the first push). */
  syncedSeq: number;
  attempts: number;
}

interface Row {
  id: string;
  name: string;
  target: CloudSyncTarget;
  status: 'active';
  project_id: string;
  collections: string[];
  target_path: string;
  sync_on_create: boolean;
  sync_on_update: boolean;
  sync_on_delete: boolean;
  credentials: string;
  start_seq: string;
  created_at: Date;
  updated_at: Date;
  synced_seq: string | null;
  attempts: string | null;
  consecutive_failures: number | null;
  next_attempt_at: Date | null;
  last_sync_at: Date | null;
  last_sync_item_count: number | null;
}

const SELECT = sql`
  SELECT p.id, p.name, p.target, p.status, p.project_id, p.collections, p.target_path, p.sync_on_create, p.sync_on_update,
         p.sync_on_delete, p.credentials, p.start_seq, p.created_at, p.updated_at, s.synced_seq, s.attempts,
         s.consecutive_failures, s.next_attempt_at, s.last_sync_at, s.last_sync_item_count
    FROM cloud_sync_pipelines p
    LEFT JOIN cloud_sync_state s ON s.site_id = p.site_id AND s.pipeline_id = p.id`;

function rowOf(row: Row): PipelineRow {
  return {
    id: row.id,
    name: row.name,
    target: row.target,
    status: row.status,
    projectId: row.project_id,
    collections: row.collections,
    targetPath: row.target_path,
    syncOnCreate: row.sync_on_create,
    syncOnUpdate: row.sync_on_update,
    syncOnDelete: row.sync_on_delete,
    lastSyncAt: row.last_sync_at?.toISOString() ?? null,
    lastSyncItemCount: row.last_sync_item_count,
    consecutiveFailures: row.consecutive_failures ?? 0,
    nextAttemptAt: row.next_attempt_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    credentials: row.credentials,
    syncedSeq: Number(row.synced_seq ?? row.start_seq),
    attempts: Number(row.attempts ?? 0),
  };
}

/** The view a client gets: never the credentials (not even their reference), nor the reactor's checkpoint. */
export function viewOf(row: PipelineRow): PipelineView {
  const { credentials: _credentials, syncedSeq: _syncedSeq, attempts: _attempts, ...view } = row;
  return view;
}

export async function listPipelines(tx: Queryable, siteId: string, page: { limit: number; page: number }): Promise<{ pipelines: PipelineView[]; total: number }> {
  const rows = await tx.query<Row>(sql`${SELECT} WHERE p.site_id = ${siteId} ORDER BY p.created_at, p.id LIMIT ${page.limit} OFFSET ${(page.page - 1) * page.limit}`);
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM cloud_sync_pipelines WHERE site_id = ${siteId}`);
  return { pipelines: rows.map((row) => viewOf(rowOf(row))), total: count?.total ?? 0 };
}

export async function findPipeline(tx: Queryable, siteId: string, pipelineId: string): Promise<PipelineRow | null> {
  const [row] = await tx.query<Row>(sql`${SELECT} WHERE p.site_id = ${siteId} AND p.id = ${pipelineId}`);
  return row ? rowOf(row) : null;
}

/** Every pipeline of a site, for the sync reactor. */
export async function sitePipelines(tx: Queryable, siteId: string): Promise<PipelineRow[]> {
  const rows = await tx.query<Row>(sql`${SELECT} WHERE p.site_id = ${siteId} ORDER BY p.created_at, p.id`);
  return rows.map(rowOf);
}

export async function pipelineNameTaken(tx: Queryable, siteId: string, name: string, exceptId: string | null): Promise<boolean> {
  const rows = await tx.query(sql`SELECT 1 FROM cloud_sync_pipelines WHERE site_id = ${siteId} AND lower(name) = lower(${name}) AND id IS DISTINCT FROM ${exceptId}::uuid`);
  return rows.length > 0;
}

export interface SyncAttemptView {
  attempt: number;
  at: string;
  kind: 'sync' | 'backfill';
  status: 'succeeded' | 'partial' | 'failed';
  items: number;
  failed: number;
  error: string | null;
  durationMs: number;
}

/** The newest attempts first (the log keeps the last LOG_KEPT of each pipeline: syncState.ts). */
export async function listAttempts(tx: Queryable, siteId: string, pipelineId: string, limit: number): Promise<SyncAttemptView[]> {
  const rows = await tx.query<{ attempt: string; at: Date; kind: 'sync' | 'backfill'; status: SyncAttemptView['status']; items: number; failed: number; error: string | null; duration_ms: number }>(sql`
    SELECT attempt, at, kind, status, items, failed, error, duration_ms FROM cloud_sync_log
     WHERE site_id = ${siteId} AND pipeline_id = ${pipelineId} ORDER BY attempt DESC LIMIT ${limit}`);
  return rows.map((row) => ({
    attempt: Number(row.attempt),
    at: row.at.toISOString(),
    kind: row.kind,
    status: row.status,
    items: row.items,
    failed: row.failed,
    error: row.error,
    durationMs: row.duration_ms,
  }));
}

/** Where the next backfill call of a pipeline resumes; null: from the start. */
export async function backfillStart(tx: Queryable, siteId: string, pipelineId: string): Promise<{ collection: string; after: string } | null> {
  const [state] = await tx.query<{ backfill_collection: string | null; backfill_after: string | null }>(
    sql`SELECT backfill_collection, backfill_after FROM cloud_sync_state WHERE site_id = ${siteId} AND pipeline_id = ${pipelineId}`,
  );
  return state?.backfill_collection ? { collection: state.backfill_collection, after: state.backfill_after ?? '' } : null;
}
