// The editorial gate and the void of an edit: what item writes (through the editorial item-write
// hook, editorialHooks.ts) and the release publish ask of a gated collection's reviews. Reads the
// read models in the caller's transaction.
import { reviewDecider } from '../../../domain/editorial/review.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { handleCommandIn } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';

/** The status value an approval publishes, and the one a gated collection refuses without an approval. */
export const PUBLISHED_STATUS = 'published';

export function reviewStreamId(siteId: string, collection: string, itemId: string): string {
  return streamId(siteId, 'review', collection, itemId);
}

export type EditorialGate = 'approved' | 'not_required' | 'required';

/**
 * Whether `itemId` may be published: `not_required` when its collection has no editorial workflow,
 * `approved` when its review is approved *and* the item is still at the version the approval
 * recorded (an edit by any path, hooked or not, leaves it `required`), else `required`.
 */
export async function editorialGate(tx: Queryable, siteId: string, collection: string, itemId: string): Promise<EditorialGate> {
  const [row] = await tx.query<{ gated: boolean; status: string | null; approved_version: number | null; version: number | null }>(sql`
    SELECT coalesce((c.meta ->> 'editorialWorkflow')::boolean, false) AS gated, r.status, r.approved_version, i.version
      FROM collections c
      LEFT JOIN editorial_reviews r ON r.site_id = c.site_id AND r.collection = c.name AND r.item_id = ${itemId}
      LEFT JOIN items i ON i.site_id = c.site_id AND i.collection = c.name AND i.id = ${itemId}
     WHERE c.site_id = ${siteId} AND c.name = ${collection} AND c.deleted_at IS NULL`);
  if (!row?.gated) return 'not_required';
  return row.status === 'approved' && row.approved_version !== null && row.approved_version === row.version ? 'approved' : 'required';
}

/** An item write that sets the published status on a gated collection needs an approval of the item as it stands: 409 otherwise. */
export async function assertEditorialGate(tx: Queryable, siteId: string, collection: string, itemId: string, status: unknown): Promise<void> {
  if (status !== PUBLISHED_STATUS) return;
  if ((await editorialGate(tx, siteId, collection, itemId)) !== 'required') return;
  throw new AppError('CONFLICT', `Item "${itemId}" of "${collection}" needs an approved editorial review before it is published`, {
    path: ['body', 'status'],
    extensions: { reason: 'EDITORIAL_GATE_REQUIRED' },
  });
}

/**
 * After a write of an item that moved it past the version under review or approved, its review in progress or its approval is void: the
 * review goes back to draft with an `editorial_transition` saying why. Nothing for an item without one.
 */
export async function voidReviewOnEdit(
  context: Pick<AppContext, 'projections'>,
  tx: Queryable,
  edit: { siteId: string; collection: string; itemId: string; version: number; metadata: EventMetadata },
): Promise<void> {
  const [row] = await tx.query<{ status: string; reviewed_version: number | null }>(sql`
    SELECT status, CASE WHEN status = 'approved' THEN approved_version ELSE submitted_version END AS reviewed_version
      FROM editorial_reviews WHERE site_id = ${edit.siteId} AND collection = ${edit.collection} AND item_id = ${edit.itemId}`);
  if (row?.status !== 'in_review' && row?.status !== 'approved') return;
  // A write that changed nothing leaves the item at the reviewed version.
  if (row.reviewed_version === edit.version) return;
  await handleCommandIn(tx, context.projections, {
    siteId: edit.siteId,
    streamId: reviewStreamId(edit.siteId, edit.collection, edit.itemId),
    decider: reviewDecider,
    command: { type: 'void', reason: `Item edited (version ${edit.version}) during ${row.status === 'approved' ? 'approval' : 'review'}`, actorId: edit.metadata.actor.id, itemVersion: edit.version },
    metadata: edit.metadata,
    lock: true,
  });
}
