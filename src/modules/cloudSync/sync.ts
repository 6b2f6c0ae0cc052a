// Pushing a pipeline's item writes to its target: one batch of its site's change feed after its
// checkpoint (the reactor), or one page of the collections' current items (a backfill). A document is
// the item as stored minus what never leaves the service: pii/phi values (sealed references), hashed
// fields and who wrote it. Pushes write whole documents by item id, so pushing an entry twice (a crash
// before the checkpoint moved) leaves the target as once: idempotent per event.
import { retryDelayMs, type RetryPolicy } from '../../../domain/changeFeed/retryPolicy.ts';
import { documentPath } from '../../../domain/cloudSync/pipeline.ts';
import { sealedIdOf } from '../../../domain/privacy/sealedReference.ts';
import { CloudTargetError, type CloudTarget, type TargetWrite } from '../../../infra/cloudSync/cloudTarget.ts';
import { createFirestoreTarget } from '../../../infra/cloudSync/firestore.ts';
import { createRealtimeDatabaseTarget } from '../../../infra/cloudSync/realtimeDatabase.ts';
import type { OutboundHttp } from '../../../infra/http/outboundHttp.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { LRUCache } from 'lru-cache';
import type { CollectionSchema, SiteSchema } from '../../schema/siteSchema.ts';
import type { AppContext } from '../../runtime/context.ts';
import { FEED_SNAPSHOT_SQL, FEED_SOURCE } from '../cdc/feedEnvelope.ts';
import { readFeedHead } from '../cdc/feedQueries.ts';
import { openCredentials } from './credentials.ts';
import type { PipelineRow } from './queries.ts';
import type { RealtimeDatabaseCredentials, ServiceAccountCredentials } from './schemas.ts';
import { recordAttempt, skipTo } from './syncState.ts';

/** Feed entries (or items) pushed per batch. */
export const SYNC_BATCH = 500;
/** A failing pipeline waits 1 s, 2 s, 4 s … up to 5 minutes (with jitter) between tries; it never gives up. */
export const SYNC_RETRY: RetryPolicy = { baseMs: 1_000, maxMs: 300_000, maxAttempts: Number.POSITIVE_INFINITY };
/** Snapshot keys a document leaves out: who wrote the item (user ids), and the delete mark (deletes remove the document). */
const LEFT_OUT = new Set(['userCreated', 'userUpdated', 'deletedAt']);
/** An error message kept in the attempt log, at most. */
const ERROR_CHARS = 500;

export interface SyncDeps {
  context: AppContext;
  http: OutboundHttp;
  /** The target clients, by pipeline and credentials (a rotation gets a new one). */
  targets: LRUCache<string, CloudTarget>;
}

export function createTargetCache(): LRUCache<string, CloudTarget> {
  return new LRUCache({ max: 500 });
}

/** The document of an item: what the target stores. */
export function documentOf(snapshot: Record<string, unknown>, collection: CollectionSchema | undefined): Record<string, unknown> {
  const document: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(snapshot)) {
    if (LEFT_OUT.has(key) || collection?.hashFields.has(key) || collection?.sensitiveFields.has(key) || sealedIdOf(value) !== null) continue;
    document[key] = value;
  }
  return document;
}

/** The pipeline's client; on a miss its credentials are opened in a short read of their own (no connection is held while pushing). */
async function targetOf(deps: SyncDeps, siteId: string, pipeline: PipelineRow): Promise<CloudTarget> {
  const key = `${siteId}/${pipeline.id}/${pipeline.credentials}/${pipeline.projectId}`;
  const cached = deps.targets.get(key);
  if (cached) return cached;
  const { config } = deps.context;
  const credentials = await deps.context.database.withSiteReads(siteId, (tx) => openCredentials(deps.context, tx, siteId, pipeline.id, pipeline.credentials));
  const timeoutMs = config.SVC_CLOUD_SYNC_TIMEOUT_MS;
  const target =
    pipeline.target === 'firestore'
      ? createFirestoreTarget({
          serviceAccount: credentials as ServiceAccountCredentials,
          projectId: pipeline.projectId,
          baseUrl: config.SVC_CLOUD_SYNC_FIRESTORE_URL,
          tokenUrl: config.SVC_CLOUD_SYNC_TOKEN_URL,
          http: deps.http,
          timeoutMs,
        })
      : createRealtimeDatabaseTarget({ ...(credentials as RealtimeDatabaseCredentials), http: deps.http, timeoutMs });
  deps.targets.set(key, target);
  return target;
}

interface PushOutcome {
  pushed: number;
  failed: number;
  error: string | null;
  /** The whole batch failed and may succeed later: the checkpoint stays. */
  retry: boolean;
}

/** Pushes writes; a failure is an outcome (logged), never thrown. */
async function push(deps: SyncDeps, siteId: string, pipeline: PipelineRow, writes: TargetWrite[]): Promise<PushOutcome> {
  if (writes.length === 0) return { pushed: 0, failed: 0, error: null, retry: false };
  try {
    const target = await targetOf(deps, siteId, pipeline);
    const result = await target.write(writes);
    const firstError = result.failed[0] ? `${writes[result.failed[0].index]!.path}: ${result.failed[0].error}` : null;
    return { pushed: writes.length - result.failed.length, failed: result.failed.length, error: firstError?.slice(0, ERROR_CHARS) ?? null, retry: false };
  } catch (error) {
    // Every whole-batch failure is tried again: a non-retryable one (refused credentials, a blocked
    // address) waits for its fix (new credentials reset the wait) at the longest delays.
    const message = error instanceof CloudTargetError ? error.message : 'The credentials did not open, or the push failed unexpectedly';
    if (!(error instanceof CloudTargetError)) deps.context.logger.error({ err: error, siteId, pipelineId: pipeline.id }, 'cloud-sync push failed');
    return { pushed: 0, failed: writes.length, error: message.slice(0, ERROR_CHARS), retry: true };
  }
}

const statusOf = (outcome: PushOutcome) => (outcome.retry || outcome.pushed === 0 ? 'failed' : outcome.failed > 0 ? 'partial' : 'succeeded');

function retryAt(pipeline: PipelineRow, now: Date): Date {
  return new Date(now.getTime() + retryDelayMs(pipeline.consecutiveFailures + 1, SYNC_RETRY, Math.random()));
}

interface FeedWrite {
  seq: number;
  type: 'items.create' | 'items.update' | 'items.delete';
  collection: string;
  item_id: string;
  snapshot: Record<string, unknown> | null;
}

/** The feed types a pipeline pushes. */
function typesOf(pipeline: PipelineRow): string[] {
  return [pipeline.syncOnCreate ? 'items.create' : null, pipeline.syncOnUpdate ? 'items.update' : null, pipeline.syncOnDelete ? 'items.delete' : null].filter(
    (type): type is string => type !== null,
  );
}

/** Entries of one batch as writes: the last entry of an item wins (the target ends as the feed does). */
export function writesOf(pipeline: PipelineRow, schema: SiteSchema, entries: readonly FeedWrite[]): TargetWrite[] {
  const byPath = new Map<string, TargetWrite>();
  for (const entry of entries) {
    const path = documentPath(pipeline.targetPath, entry.collection, entry.item_id);
    byPath.delete(path);
    const data = entry.type === 'items.delete' || entry.snapshot === null ? null : documentOf(entry.snapshot, schema.collections.get(entry.collection));
    byPath.set(path, { path, data });
  }
  return [...byPath.values()];
}

export type BatchResult = 'caught-up' | 'more' | 'failed';

/**
 * One batch of a pipeline: the feed entries after its checkpoint that it pushes, pushed, then the
 * attempt and the checkpoint recorded together. Entries it does not push move the checkpoint too.
 */
export async function syncBatch(deps: SyncDeps, siteId: string, pipeline: PipelineRow, now: () => Date): Promise<BatchResult> {
  const { database } = deps.context;
  const schema = await deps.context.schemas.site(siteId);
  const read = await database.withSiteReads(siteId, async (tx) => {
    const head = await readFeedHead(tx, siteId);
    if (pipeline.syncedSeq >= head.lastSeq) return { head, entries: [] as FeedWrite[] };
    const entries = await tx.query<FeedWrite>(sql`
      SELECT f.seq, f.type, f.collection, f.item_id, ${FEED_SNAPSHOT_SQL} AS snapshot FROM ${FEED_SOURCE}
       WHERE f.site_id = ${siteId} AND f.seq > ${Math.max(pipeline.syncedSeq, head.prunedThrough)} AND f.seq <= ${head.lastSeq}
         AND f.collection = ANY(${pipeline.collections}::text[]) AND f.type = ANY(${typesOf(pipeline)}::text[])
       ORDER BY f.seq LIMIT ${SYNC_BATCH}`);
    return { head, entries };
  });
  const { head, entries } = read;
  const started = now();
  if (pipeline.syncedSeq < head.prunedThrough) {
    // Retention removed entries before they were pushed: say so, and go on from what is left.
    await database.withSite(siteId, (tx) =>
      recordAttempt(
        tx,
        siteId,
        pipeline.id,
        pipeline.syncedSeq,
        { kind: 'sync', status: 'failed', items: 0, failed: 0, error: 'Change-feed entries were removed by retention before they were pushed: run a backfill', fromSeq: pipeline.syncedSeq, toSeq: head.prunedThrough, durationMs: 0, at: started },
        { syncedSeq: head.prunedThrough },
      ),
    );
    return 'more';
  }
  if (entries.length === 0) {
    if (pipeline.syncedSeq < head.lastSeq) await database.withSite(siteId, (tx) => skipTo(tx, siteId, pipeline.id, head.lastSeq));
    return 'caught-up';
  }
  const writes = writesOf(pipeline, schema, entries);
  const throughSeq = entries.length < SYNC_BATCH ? head.lastSeq : Number(entries.at(-1)!.seq);
  const outcome = await push(deps, siteId, pipeline, writes);
  const finished = now();
  await database.withSite(siteId, (tx) =>
    recordAttempt(
      tx,
      siteId,
      pipeline.id,
      pipeline.syncedSeq,
      {
        kind: 'sync',
        status: statusOf(outcome),
        items: outcome.pushed,
        failed: outcome.failed,
        error: outcome.error,
        fromSeq: pipeline.syncedSeq,
        toSeq: throughSeq,
        durationMs: finished.getTime() - started.getTime(),
        at: started,
      },
      outcome.retry ? { retryAt: retryAt(pipeline, finished) } : { syncedSeq: throughSeq, retryAt: null, synced: { at: finished, items: outcome.pushed } },
    ),
  );
  if (outcome.retry) return 'failed';
  return entries.length < SYNC_BATCH ? 'caught-up' : 'more';
}

interface ItemRow {
  id: string;
  status: string | null;
  sort: number | null;
  created_at: Date | null;
  updated_at: Date | null;
  data: Record<string, unknown>;
}

/**
 * One backfill call: the live items of the pipeline's collections, in collection and id order from
 * where the last call stopped, pushed in batches, at most `limit` items; `truncated` when it stopped
 * at the bound (the next call resumes there). Each batch is an attempt in the log.
 */
export async function backfill(deps: SyncDeps, siteId: string, pipeline: PipelineRow, start: { collection: string; after: string } | null, limit: number, now: () => Date) {
  const { database } = deps.context;
  const schema = await deps.context.schemas.site(siteId);
  const collections = [...pipeline.collections].sort();
  let position = start && collections.includes(start.collection) ? start : null;
  const totals = { scanned: 0, pushed: 0, failed: 0, truncated: false };
  for (let index = position ? collections.indexOf(position.collection) : 0; index < collections.length; ) {
    const collection = collections[index]!;
    const pageSize = Math.min(SYNC_BATCH, limit - totals.scanned);
    if (pageSize <= 0) {
      totals.truncated = true;
      break;
    }
    const after = position?.collection === collection ? position.after : null;
    const started = now();
    const items = await database.withSiteReads(siteId, (tx) =>
      tx.query<ItemRow>(sql`
        SELECT id, status, sort, created_at, updated_at, data FROM items
         WHERE site_id = ${siteId} AND collection = ${collection} AND deleted_at IS NULL AND (${after}::text IS NULL OR id > ${after})
         ORDER BY id LIMIT ${pageSize}`),
    );
    const writes = items.map((row) => ({
      path: documentPath(pipeline.targetPath, collection, row.id),
      data: documentOf(
        { id: row.id, status: row.status, sort: row.sort, createdAt: row.created_at?.toISOString() ?? null, updatedAt: row.updated_at?.toISOString() ?? null, ...row.data },
        schema.collections.get(collection),
      ),
    }));
    const outcome = await push(deps, siteId, pipeline, writes);
    totals.scanned += items.length;
    totals.pushed += outcome.pushed;
    totals.failed += outcome.failed;
    const done = items.length < pageSize;
    const next = done ? (collections[index + 1] ? { collection: collections[index + 1]!, after: '' } : null) : { collection, after: items.at(-1)!.id };
    if (items.length > 0 || outcome.retry) {
      const finished = now();
      await database.withSite(siteId, (tx) =>
        recordAttempt(
          tx,
          siteId,
          pipeline.id,
          pipeline.syncedSeq,
          { kind: 'backfill', status: statusOf(outcome), items: outcome.pushed, failed: outcome.failed, error: outcome.error, fromSeq: null, toSeq: null, durationMs: finished.getTime() - started.getTime(), at: started },
          // A failed batch is not skipped: the next call starts at it.
          { backfill: outcome.retry ? (position ?? { collection, after: '' }) : next },
        ),
      );
    }
    if (outcome.retry) {
      totals.truncated = true;
      break;
    }
    position = next;
    if (done) index += 1;
  }
  if (!totals.truncated && start !== null) await database.withSite(siteId, (tx) => recordAttempt(tx, siteId, pipeline.id, pipeline.syncedSeq, { kind: 'backfill', status: 'succeeded', items: 0, failed: 0, error: null, fromSeq: null, toSeq: null, durationMs: 0, at: now() }, { backfill: null }));
  return totals;
}
