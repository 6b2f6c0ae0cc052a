// Deleting an item: soft (the normal delete), refused while a restrict relation points at it, or
// hard (resolve-dependents with `hard`). The principal's delete rules are checked on the collection
// first and on the row inside the write's transaction. Item-write hooks run as for any item write (runItemCommand).
import type { ItemCommand } from '../../../domain/content/itemDecider.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { Access } from '../../access/access.ts';
import { assertRowAccess } from '../../access/itemAccess.ts';
import { assertMay } from '../../access/itemWriteRules.ts';
import type { CollectionSchema } from '../../schema/siteSchema.ts';
import { dependentsOf } from './dependents.ts';
import { inItemWriteTransaction, runItemCommand, type ItemCommandContext, type ItemsWriteContext, type ItemWriteResult } from './itemStreams.ts';

export interface DeleteRequest {
  siteId: string;
  collection: CollectionSchema;
  itemId: string;
  metadata: EventMetadata;
  expectedVersion?: number;
  hard?: boolean;
  cause?: Record<string, unknown>;
  /** Whose delete rules the caller checked, for the item-write hooks; none for a system purge (erasure). */
  access?: Access;
}

/**
 * The normal delete path inside a transaction: 404 when gone, 409 while a restrict relation points at
 * it. Its after-commit hooks run when the caller's transaction is an inItemWriteTransaction.
 */
export async function deleteIn(context: ItemCommandContext, tx: Queryable, request: DeleteRequest): Promise<ItemWriteResult> {
  const { collection, itemId } = request;
  const acting = { collection: collection.name, itemId, actorId: request.metadata.actor.id, now: new Date().toISOString() };
  const command: ItemCommand = request.hard
    ? { type: 'hardDeleteItem', ...acting, ...(request.cause ? { cause: request.cause } : {}) }
    : { type: 'deleteItem', ...acting };
  const restricting = collection.references.filter((reference) => reference.onDelete === 'restrict');
  return runItemCommand(context, tx, {
    siteId: request.siteId,
    collection,
    itemId,
    command,
    metadata: request.metadata,
    kind: request.hard ? 'purge' : 'delete',
    access: request.access ?? null,
    ...(request.expectedVersion !== undefined ? { expectedVersion: request.expectedVersion } : {}),
    check: async (state, checkTx) => {
      const deletable = request.hard ? state.lifecycle === 'live' || state.lifecycle === 'deleted' : state.lifecycle === 'live';
      if (!deletable) throw new AppError('RECORD_NOT_FOUND', `Item "${itemId}" of "${collection.name}" not found`);
      // A write that sets a reference to this item holds its row FOR KEY SHARE until it commits
      // (referenceTargets.ts): wait for those, so that the restrict count below sees what they wrote;
      // a write that comes after waits for this delete and finds the item deleted.
      await checkTx.query(sql`
        SELECT 1 FROM items WHERE site_id = ${request.siteId} AND collection = ${collection.name} AND id = ${itemId} FOR UPDATE`);
      if (restricting.length === 0) return;
      const report = await dependentsOf(tx, request.siteId, collection, itemId, restricting);
      if (report.blocking) {
        throw new AppError('DEPENDENT_RECORDS_EXIST', `Items still point at "${itemId}" of "${collection.name}" through a restrict relation`, {
          extensions: { dependents: report.dependents.filter((entry) => entry.count > 0) },
        });
      }
    },
  });
}

export interface DeleteItemInput {
  siteId: string;
  collection: string;
  itemId: string;
  access: Access;
  metadata: EventMetadata;
  expectedVersion?: number;
}

/** Soft-deletes an item (409 DEPENDENT_RECORDS_EXIST while a restrict relation points at it). */
export async function deleteItem(context: ItemsWriteContext, input: DeleteItemInput): Promise<void> {
  assertMay(input.access, 'delete', input.collection);
  const collection = await context.schemas.collection(input.siteId, input.collection);
  await inItemWriteTransaction(context, input.siteId, async (tx) => {
    await assertRowAccess(tx, input.access, 'delete', collection.name, input.itemId);
    await deleteIn(context, tx, {
      siteId: input.siteId,
      collection,
      itemId: input.itemId,
      metadata: input.metadata,
      access: input.access,
      ...(input.expectedVersion !== undefined ? { expectedVersion: input.expectedVersion } : {}),
    });
  });
}
