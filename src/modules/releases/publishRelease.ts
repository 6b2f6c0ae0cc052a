// Publishing a release: one command and one transaction. Under the release's stream lock the
// command's step (`publishItems`) sends each item through the item update path (changeItemIn: the
// publisher's update rules, validation, the editorial gate) inside a savepoint, so a refused item is
// rolled back alone and becomes a `failed` outcome with its reason; all_or_nothing then rolls every
// item back (the others are `skipped`). `release.published` carries the outcomes and commits with
// the item events (docs/publishing.md).
import { assertPublishable, itemKey, releaseDecider, type Outcome, type ReleaseCommand, type ReleaseItem, type ReleaseState } from '../../../domain/releases/release.ts';
import type { OutcomeReason } from '../../../domain/releases/events.ts';
import { isInsideMaintenanceWindow } from '../../../domain/releases/maintenanceWindow.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { Access } from '../../access/access.ts';
import { openCommandIn } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { editorialGate, PUBLISHED_STATUS } from '../editorial/gate.ts';
import { changeItemIn, type ChangeItemInput } from '../items/changeItem.ts';
import { revisionChanges } from '../items/historyHandlers.ts';
import { findRevision } from '../items/historyQueries.ts';
import { releaseStream } from './handlers.ts';
import { findRelease, itemVersions, type ItemVersion } from './queries.ts';
import type { PublishAnswer } from './schemas.ts';
import { inItemWriteTransaction } from '../items/itemStreams.ts';

export interface PublishRequest {
  siteId: string;
  releaseId: string;
  /** Whose update rules each item write is held to. */
  access: Access;
  metadata: EventMetadata;
  /** The scheduler: publish only a release still `scheduled` with publishAt at or before this moment; else null, nothing written. */
  dueAt?: Date;
}

/** Thrown inside the transaction when the scheduler finds the release no longer due (another instance published it). */
class NotDue extends Error {}

/** Still scheduled, publishAt come, and inside its maintenance window (re-read under the lock: an edit since the tick's read counts). */
const isDue = (state: ReleaseState, dueAt: Date) =>
  state.status === 'scheduled' && state.publishAt !== null && Date.parse(state.publishAt) <= dueAt.getTime() && isInsideMaintenanceWindow(state.maintenanceWindow, dueAt);

/** The outcome reason of an item write's refusal; null for what is not a refusal (it fails the whole publish). */
function reasonOf(error: unknown): OutcomeReason | null {
  if (!(error instanceof AppError) || error.status >= 500) return null;
  if (error.extensions.reason === 'EDITORIAL_GATE_REQUIRED') return 'EDITORIAL_GATE_REQUIRED';
  switch (error.code) {
    case 'PERMISSION_DENIED':
      return 'PERMISSION_DENIED';
    case 'RECORD_NOT_FOUND':
    case 'ITEM_NOT_FOUND':
      return 'RECORD_NOT_FOUND';
    default:
      return 'VALIDATION_FAILED';
  }
}

const refused = (item: ReleaseItem, reason: OutcomeReason, message: string): Outcome => ({
  collection: item.collection,
  itemId: item.itemId,
  outcome: 'failed',
  reason,
  message,
});

/** The item write that publishes `item`: its target status, on the live content or on the pinned revision's. */
async function publishWrite(context: AppContext, tx: Queryable, request: PublishRequest, item: ReleaseItem, current: ItemVersion): Promise<ChangeItemInput> {
  const base = { siteId: request.siteId, collection: item.collection, itemId: item.itemId, access: request.access, metadata: request.metadata };
  if (!item.revisionId) return { ...base, changes: { status: item.targetStatus }, mode: 'patch', cause: { releaseId: request.releaseId } };
  const revision = await findRevision(tx, request.siteId, item.revisionId);
  if (!revision || revision.collection !== item.collection || revision.item !== item.itemId) {
    throw new AppError('RECORD_NOT_FOUND', `The pinned revision ${item.revisionId} of this item no longer exists`);
  }
  // What was approved is what goes out: on a gated collection, a pin other than the approved (current) version is refused.
  if (item.targetStatus === PUBLISHED_STATUS && revision.version !== current.version) {
    if ((await editorialGate(tx, request.siteId, item.collection, item.itemId)) !== 'not_required') {
      throw new AppError('CONFLICT', 'The pinned revision is not the approved one', { extensions: { reason: 'EDITORIAL_GATE_REQUIRED' } });
    }
  }
  const collection = await context.schemas.collection(request.siteId, item.collection);
  return {
    ...base,
    changes: { ...revisionChanges(collection, revision.data), status: item.targetStatus },
    mode: 'replace',
    cause: { releaseId: request.releaseId, revisionId: revision.revisionId },
  };
}

/** Writes one item in its own savepoint: its outcome, the write rolled back when it is refused. */
async function publishItem(context: AppContext, tx: Queryable, request: PublishRequest, item: ReleaseItem, current: ItemVersion | undefined): Promise<Outcome> {
  if (!current) return refused(item, 'RECORD_NOT_FOUND', `No item ${item.itemId} in ${item.collection}`);
  if (current.deleted) return refused(item, 'ITEM_DELETED', `Item ${item.itemId} of ${item.collection} is deleted`);
  const queued = context.itemHooks.mark(tx);
  tx.defer(sql`SAVEPOINT release_item`);
  try {
    const written = await changeItemIn(context, tx, await publishWrite(context, tx, request, item, current));
    tx.defer(sql`RELEASE SAVEPOINT release_item`);
    return { collection: item.collection, itemId: item.itemId, outcome: 'published', fromVersion: current.version, toVersion: written.version };
  } catch (error) {
    const reason = reasonOf(error);
    if (!reason) throw error;
    await tx.query(sql`ROLLBACK TO SAVEPOINT release_item`);
    context.itemHooks.rollbackTo(tx, queued);
    tx.defer(sql`RELEASE SAVEPOINT release_item`);
    return refused(item, reason, (error as AppError).message);
  }
}

/** Every item's write and outcome; all_or_nothing rolls all of them back when one is refused. */
async function publishItems(context: AppContext, tx: Queryable, request: PublishRequest, state: ReleaseState): Promise<Outcome[]> {
  const items = Object.values(state.items).sort((a, b) => itemKey(a).localeCompare(itemKey(b)));
  const versions = await itemVersions(tx, request.siteId, items);
  const queued = context.itemHooks.mark(tx);
  tx.defer(sql`SAVEPOINT release_publish`);
  const outcomes: Outcome[] = [];
  for (const item of items) outcomes.push(await publishItem(context, tx, request, item, versions.get(itemKey(item))));
  if (state.atomicityMode === 'all_or_nothing' && outcomes.some((outcome) => outcome.outcome === 'failed')) {
    await tx.query(sql`ROLLBACK TO SAVEPOINT release_publish`);
    context.itemHooks.rollbackTo(tx, queued);
    tx.defer(sql`RELEASE SAVEPOINT release_publish`);
    return outcomes.map((outcome) => (outcome.outcome === 'published' ? { collection: outcome.collection, itemId: outcome.itemId, outcome: 'skipped' } : outcome));
  }
  tx.defer(sql`RELEASE SAVEPOINT release_publish`);
  return outcomes;
}

/**
 * Publishes the release now (or, with `dueAt`, if it is still due): the answer of POST
 * /releases/:id/publish, HTTP 200 whatever the outcomes; null when the scheduler's release is no longer due.
 */
export async function publishRelease(context: AppContext, request: PublishRequest): Promise<PublishAnswer | null> {
  const { siteId, releaseId } = request;
  try {
    // An item-write transaction: the items' after-commit hooks run once it has committed.
    return await inItemWriteTransaction(context, siteId, async (tx) => {
      // The workflow: open the release's command (lock, load, check), write its items (each through
      // the items' own command), then decide the release's command with their outcomes.
      const opened = await openCommandIn(tx, context.projections, {
        siteId,
        streamId: releaseStream(siteId, releaseId),
        decider: releaseDecider,
        lock: true,
        check: async (state) => {
          if (request.dueAt && !isDue(state, request.dueAt)) throw new NotDue();
          assertPublishable(state);
        },
        metadata: request.metadata,
      });
      const outcomes = await publishItems(context, tx, request, opened.state);
      const result = await opened.decide({ type: 'publishRelease', outcomes, trigger: request.dueAt ? 'scheduler' : 'manual' } satisfies ReleaseCommand);
      const release = (await findRelease(tx, siteId, releaseId))!;
      return { release, status: result.state.status as PublishAnswer['status'], outcomes };
    });
  } catch (error) {
    if (error instanceof NotDue) return null;
    throw error;
  }
}
