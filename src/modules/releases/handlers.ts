// Release commands: create, update (meta, schedule, items), delete. Items are checked in the
// command's transaction: each must be a live item of the site (404 ITEM_NOT_FOUND), and a pinned
// revision must be a committed revision of that very item (404 RECORD_NOT_FOUND, 409 REVISION_STAGED).
import { randomUUID } from 'node:crypto';
import { releaseDecider, type ReleaseCommand, type ReleaseItem, type ReleaseState } from '../../../domain/releases/release.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { handleCommand, handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { requireItemRevision } from '../items/historyQueries.ts';
import { findRelease, missingItems } from './queries.ts';
import type { AddItemInput, ReleaseView, UpdateReleaseBody } from './schemas.ts';

export const releaseStream = (siteId: string, releaseId: string) => streamId(siteId, 'release', releaseId);

const toReleaseItem = (input: AddItemInput): ReleaseItem => ({
  collection: input.collection,
  itemId: input.itemId,
  targetStatus: input.targetStatus,
  revisionId: input.revisionId ?? null,
});

async function assertItemsAddable(tx: Queryable, siteId: string, items: readonly ReleaseItem[]): Promise<void> {
  const [missing] = await missingItems(tx, siteId, items);
  if (missing !== undefined) {
    const item = items[missing]!;
    throw new AppError('ITEM_NOT_FOUND', `No item ${item.itemId} in ${item.collection}`, { path: ['body', 'addItems', missing] });
  }
  for (const [index, item] of items.entries()) {
    if (!item.revisionId) continue;
    const path = ['body', 'addItems', index, 'revisionId'];
    const revision = await requireItemRevision(tx, { siteId, collection: item.collection, itemId: item.itemId }, item.revisionId, path);
    if (revision.staged) throw new AppError('REVISION_STAGED', 'This revision is staged (a draft), not committed', { path });
  }
}

/** Items are checked only for a release that may take them; the decider answers for the others. */
const editable = (state: ReleaseState) => state.status !== 'absent' && state.status !== 'deleted' && state.status !== 'published';

export async function createRelease(
  context: AppContext,
  siteId: string,
  input: Omit<Extract<ReleaseCommand, { type: 'createRelease' }>, 'type' | 'releaseId' | 'items' | 'now'> & { addItems: AddItemInput[] },
  metadata: EventMetadata,
): Promise<ReleaseView> {
  const releaseId = randomUUID();
  const { addItems, ...meta } = input;
  const items = addItems.map(toReleaseItem);
  return inSiteTransaction(context, siteId, async (tx) => {
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: releaseStream(siteId, releaseId),
      decider: releaseDecider,
      command: { type: 'createRelease', releaseId, ...meta, items, now: new Date().toISOString() },
      check: () => assertItemsAddable(tx, siteId, items),
      metadata,
    });
    return (await findRelease(tx, siteId, releaseId))!;
  });
}

export async function updateRelease(context: AppContext, siteId: string, releaseId: string, body: UpdateReleaseBody, metadata: EventMetadata): Promise<ReleaseView> {
  const { addItems, removeItems, ...changes } = body;
  const items = (addItems ?? []).map(toReleaseItem);
  return inSiteTransaction(context, siteId, async (tx) => {
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: releaseStream(siteId, releaseId),
      decider: releaseDecider,
      lock: true,
      command: { type: 'updateRelease', changes, addItems: items, removeItems: removeItems ?? [], now: new Date().toISOString() },
      check: async (state) => {
        if (editable(state)) await assertItemsAddable(tx, siteId, items);
      },
      metadata,
    });
    const release = await findRelease(tx, siteId, releaseId);
    if (!release) throw errors.notFound('Release not found');
    return release;
  });
}

export async function deleteRelease(context: AppContext, siteId: string, releaseId: string, metadata: EventMetadata): Promise<void> {
  await handleCommand(context, { siteId, streamId: releaseStream(siteId, releaseId), decider: releaseDecider, command: { type: 'deleteRelease' }, metadata });
}
