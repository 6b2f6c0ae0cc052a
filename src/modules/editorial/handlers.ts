// Editorial review commands: submit, approve (publishes the item in the same transaction), reject.
// Who may: docs/publishing.md "Editorial review".
import type { ReviewCommand, ReviewState } from '../../../domain/editorial/review.ts';
import { reviewDecider } from '../../../domain/editorial/review.ts';
import type { CollectionMeta } from '../../../domain/content/schemaModel.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { Access } from '../../access/access.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { collectionOf } from '../../schema/siteSchema.ts';
import { changeItemIn } from '../items/changeItem.ts';
import { inItemWriteTransaction } from '../items/itemStreams.ts';
import { EDITORIAL_APPROVAL_ORIGIN } from './editorialHooks.ts';
import { PUBLISHED_STATUS, reviewStreamId } from './gate.ts';
import { findReview, isLiveUser, reviewedItem, type ReviewView } from './queries.ts';

/** The capability of a reviewer (granted by a policy, `collection: null`); site administrators hold it. */
export const REVIEWER_CAPABILITY = 'review:editorial';

export interface ReviewTarget {
  siteId: string;
  collection: string;
  itemId: string;
  access: Access;
  metadata: EventMetadata;
}

export function assertReviewer(access: Access): void {
  if (!access.hasCapability(REVIEWER_CAPABILITY)) throw errors.forbidden(`Reviews need the ${REVIEWER_CAPABILITY} capability`);
}

/** The collection's meta; 404 for an unknown collection, 409 when it has no editorial workflow. */
async function gatedCollection(context: AppContext, siteId: string, name: string): Promise<CollectionMeta> {
  const collection = collectionOf(await context.schemas.site(siteId), name);
  if (!collection.meta.editorialWorkflow) {
    throw new AppError('CONFLICT', `Collection "${name}" has no editorial workflow`, { path: ['params', 'collection'] });
  }
  return collection.meta;
}

async function liveItem(tx: Queryable, target: ReviewTarget) {
  const item = await reviewedItem(tx, target.siteId, target.collection, target.itemId);
  if (!item) throw errors.recordNotFound(`Item "${target.itemId}" of "${target.collection}" not found`);
  return item;
}

async function move(context: AppContext, tx: Queryable, target: ReviewTarget, command: ReviewCommand): Promise<ReviewView> {
  await handleCommandIn(tx, context.projections, {
    siteId: target.siteId,
    streamId: reviewStreamId(target.siteId, target.collection, target.itemId),
    decider: reviewDecider,
    command,
    metadata: target.metadata,
    lock: true,
  });
  return (await findReview(tx, target.siteId, target.collection, target.itemId))!;
}

/** Who may submit: a reviewer, or whoever may update the collection's items (an author). */
export async function submitReview(context: AppContext, target: ReviewTarget, reviewerId: string | null): Promise<ReviewView> {
  if (!target.access.hasCapability(REVIEWER_CAPABILITY) && !target.access.can('update', target.collection)) {
    throw errors.forbidden(`Submitting for review needs update on "${target.collection}" or the ${REVIEWER_CAPABILITY} capability`);
  }
  await gatedCollection(context, target.siteId, target.collection);
  return inSiteTransaction(context, target.siteId, async (tx) => {
    const item = await liveItem(tx, target);
    if (reviewerId !== null && !(await isLiveUser(tx, target.siteId, reviewerId))) {
      throw errors.validation('No user of this site has this id', ['body', 'reviewerId']);
    }
    return move(context, tx, target, {
      type: 'submit',
      collection: target.collection,
      itemId: target.itemId,
      reviewerId,
      authorId: item.userUpdated,
      actorId: target.metadata.actor.id,
      itemVersion: item.version,
    });
  });
}

/** The review's state from the read model, to refuse an illegal approval before the item is written. */
function stateOf(review: ReviewView | null): ReviewState {
  if (!review) return reviewDecider.initialState();
  return { status: review.status, collection: review.collection, itemId: review.itemId, reviewerId: review.reviewerId, authorId: review.authorId };
}

/**
 * in_review → approved, publishing the item: its status becomes `published` through the item update
 * path (the approver's update rules, validation) in the same transaction, and the approval records
 * the item's version after that write (the approved revision).
 */
export async function approveReview(context: AppContext, target: ReviewTarget): Promise<{ review: ReviewView; itemVersion: number }> {
  assertReviewer(target.access);
  const meta = await gatedCollection(context, target.siteId, target.collection);
  // An item-write transaction: the publish's after-commit hooks run once the approval has committed.
  return inItemWriteTransaction(context, target.siteId, async (tx) => {
    await liveItem(tx, target);
    const review = await findReview(tx, target.siteId, target.collection, target.itemId);
    const actorId = target.metadata.actor.id;
    const approve = (itemVersion: number): ReviewCommand => ({ type: 'approve', requireSeparateReviewer: meta.requireSeparateReviewer, actorId, itemVersion });
    reviewDecider.decide(approve(0), stateOf(review));
    if (review?.reviewerId && review.reviewerId !== actorId && !target.access.admin) {
      throw errors.forbidden('This review is assigned to another reviewer');
    }
    const published = await changeItemIn(context, tx, {
      siteId: target.siteId,
      collection: target.collection,
      itemId: target.itemId,
      changes: { status: PUBLISHED_STATUS },
      mode: 'patch',
      access: target.access,
      metadata: target.metadata,
      origin: EDITORIAL_APPROVAL_ORIGIN,
    });
    return { review: await move(context, tx, target, approve(published.version)), itemVersion: published.version };
  });
}

export async function rejectReview(context: AppContext, target: ReviewTarget, reason: string): Promise<ReviewView> {
  assertReviewer(target.access);
  await gatedCollection(context, target.siteId, target.collection);
  return inSiteTransaction(context, target.siteId, async (tx) => {
    const item = await liveItem(tx, target);
    return move(context, tx, target, { type: 'reject', reason, actorId: target.metadata.actor.id, itemVersion: item.version });
  });
}
