// Reverting a release: one command and one transaction whose step (`revertItems`) brings every item
// the release's publishes moved back to its state before the first of them (the revision of that
// version), through the item update path as `item.reverted`, then appends `release.reverted`. An
// item changed since the publish refuses the revert (409 CONFLICT listing them) unless `force`
// (docs/publishing.md).
import { assertRevertible, releaseDecider, type ReleaseCommand, type ReleaseState, type RevertedItem } from '../../../domain/releases/release.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { Access } from '../../access/access.ts';
import { openCommandIn } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { changeItemIn } from '../items/changeItem.ts';
import { revisionChanges } from '../items/historyHandlers.ts';
import { findRevisionAtVersion } from '../items/historyQueries.ts';
import { releaseStream } from './handlers.ts';
import { findRelease, itemVersions } from './queries.ts';
import type { RevertAnswer } from './schemas.ts';
import { inItemWriteTransaction } from '../items/itemStreams.ts';

export interface RevertRequest {
  siteId: string;
  releaseId: string;
  access: Access;
  metadata: EventMetadata;
  /** Revert items that changed since the publish too (their later changes are overwritten). */
  force: boolean;
}

interface Moved {
  collection: string;
  itemId: string;
  fromVersion: number;
  toVersion: number;
}

/** The items a publish changed (an item that already stood as the release wanted was not moved). */
function movedItems(state: ReleaseState): Moved[] {
  return Object.entries(state.published)
    .filter(([, moved]) => moved.fromVersion !== moved.toVersion)
    .map(([key, moved]) => {
      const slash = key.indexOf('/');
      return { collection: key.slice(0, slash), itemId: key.slice(slash + 1), ...moved };
    })
    .sort((a, b) => `${a.collection}/${a.itemId}`.localeCompare(`${b.collection}/${b.itemId}`));
}

async function revertItems(context: AppContext, tx: Queryable, request: RevertRequest, state: ReleaseState): Promise<RevertedItem[]> {
  const moved = movedItems(state);
  const versions = await itemVersions(tx, request.siteId, moved);
  const changed = moved.filter((item) => {
    const current = versions.get(`${item.collection}/${item.itemId}`);
    return !current || current.deleted || current.version !== item.toVersion;
  });
  if (changed.length > 0 && !request.force) {
    throw new AppError('CONFLICT', 'Items changed since the release published them; send force: true to revert them anyway', {
      path: [],
      extensions: { items: changed.map(({ collection, itemId, toVersion }) => ({ collection, itemId, publishedVersion: toVersion, version: versions.get(`${collection}/${itemId}`)?.version ?? null })) },
    });
  }
  const reverted: RevertedItem[] = [];
  for (const item of moved) {
    const key = { siteId: request.siteId, collection: item.collection, itemId: item.itemId };
    // A purged item has nothing left to bring back.
    if (!versions.has(`${item.collection}/${item.itemId}`)) continue;
    const revision = await findRevisionAtVersion(tx, key, item.fromVersion);
    if (!revision) throw new AppError('RECORD_NOT_FOUND', `No revision of ${item.collection}/${item.itemId} at version ${item.fromVersion}`);
    const collection = await context.schemas.collection(request.siteId, item.collection);
    const written = await changeItemIn(context, tx, {
      ...key,
      changes: revisionChanges(collection, revision.data),
      mode: 'replace',
      eventType: 'item.reverted',
      cause: { releaseId: request.releaseId, revisionId: revision.revisionId },
      restore: true,
      access: request.access,
      metadata: request.metadata,
    });
    reverted.push({ collection: item.collection, itemId: item.itemId, fromVersion: versions.get(`${item.collection}/${item.itemId}`)!.version, toVersion: written.version, restoredVersion: item.fromVersion });
  }
  return reverted;
}

/** POST /releases/:id/revert: the release's items back to their state before it; 409 when it published nothing, was reverted, or items changed since (without force). */
export async function revertRelease(context: AppContext, request: RevertRequest): Promise<RevertAnswer> {
  const { siteId, releaseId } = request;
  // An item-write transaction: the items' after-commit hooks run once it has committed.
  return inItemWriteTransaction(context, siteId, async (tx) => {
    // The workflow: open the release's command, write its items back, then decide the revert.
    const opened = await openCommandIn(tx, context.projections, {
      siteId,
      streamId: releaseStream(siteId, releaseId),
      decider: releaseDecider,
      lock: true,
      check: async (state) => assertRevertible(state),
      metadata: request.metadata,
    });
    const items = await revertItems(context, tx, request, opened.state);
    await opened.decide({ type: 'revertRelease', items, forced: request.force } satisfies ReleaseCommand);
    return { release: (await findRelease(tx, siteId, releaseId))!, items };
  });
}
