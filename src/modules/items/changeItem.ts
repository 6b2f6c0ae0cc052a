// Changing an item: PATCH merges, PUT replaces, or the item's draft (X-Svc-Draft); with `restore`, a
// soft-deleted item is brought back by the same write (a revert). The principal's update rules are
// checked on the body first and on the row inside the write's transaction; what other areas ask of
// the write (the editorial gate, say) are item-write hooks (src/runtime/itemHooks.ts), run by runItemCommand.
import type { ItemChanges, ItemCommand, ItemSnapshot } from '../../../domain/content/itemDecider.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { Access } from '../../access/access.ts';
import { assertRowAccess } from '../../access/itemAccess.ts';
import { assertMayUpdate } from '../../access/itemWriteRules.ts';
import type { ItemWriteKind } from '../../runtime/itemHooks.ts';
import { collectionOf, declaredFields } from '../../schema/siteSchema.ts';
import { inItemWriteTransaction, runItemCommand, type ItemsWriteContext, type ItemWriteResult } from './itemStreams.ts';
import { prepareChanges } from './prepareChanges.ts';
import { assertTargetsExist, placedTargets } from './referenceTargets.ts';

// A config import's system write of stored values lives in its own file; its callers import it from here.
export { changeStoredValuesIn, type StoredValuesChange } from './changeStoredValues.ts';

export interface ChangeItemInput {
  siteId: string;
  collection: string;
  itemId: string;
  changes: Record<string, unknown>;
  mode: 'patch' | 'replace';
  access: Access;
  metadata: EventMetadata;
  /** If-Match: the version the client saw; a mismatch is 412 PRECONDITION_FAILED instead of a retry. */
  expectedVersion?: number;
  /** The event the change is recorded as: a revert or a promotion is a change of its own kind in the item's history. */
  eventType?: 'item.updated' | 'item.reverted' | 'item.promoted';
  /** Why the change was made, recorded in its event (a release, a revision, a named version). */
  cause?: Record<string, unknown>;
  /** X-Svc-Draft: change the item's draft, not the item. */
  draft?: boolean;
  locale?: string | null;
  /** A soft-deleted item is restored by the same write (item.restored, then the change): a revert. */
  restore?: boolean;
  /** Who started the write, for item-write hooks to tell it apart (e.g. an editorial approval); never read here. */
  origin?: string;
}

const KIND_OF_EVENT: Record<NonNullable<ChangeItemInput['eventType']>, ItemWriteKind> = {
  'item.updated': 'update',
  'item.reverted': 'revert',
  'item.promoted': 'promote',
};

/** Changes an item (or its draft) and returns it with its new version. */
export async function changeItem(context: ItemsWriteContext, input: ChangeItemInput): Promise<ItemWriteResult> {
  const write = await prepareItemChange(context, input);
  // Its own transaction, retried on a lost race: it may decide from the item's cached head.
  return inItemWriteTransaction(context, input.siteId, (tx) => write(tx, true));
}

/**
 * changeItem inside the caller's transaction (an editorial approval publishes the item with its
 * review); its after-commit hooks run when that transaction is an inItemWriteTransaction.
 */
export async function changeItemIn(context: ItemsWriteContext, tx: Queryable, input: ChangeItemInput): Promise<ItemWriteResult> {
  return (await prepareItemChange(context, input))(tx);
}

/** The checks and hashing done outside a transaction; returns the write to run in one. */
async function prepareItemChange(context: ItemsWriteContext, input: ChangeItemInput): Promise<(tx: Queryable, fromCachedHead?: boolean) => Promise<ItemWriteResult>> {
  const schema = await context.schemas.site(input.siteId);
  assertMayUpdate(input.access, input.collection, input.changes, input.mode, declaredFields(schema, input.collection));
  const collection = collectionOf(schema, input.collection);
  const prepared = await prepareChanges(schema, collection, input.changes, {
    mode: input.mode,
    locale: input.locale ?? null,
    itemId: input.itemId,
    basePath: ['body'],
  });
  // A full replace in no particular language (PUT without X-Svc-Locale, a revert) replaces a
  // translatable field's map with the one sent; otherwise the languages sent are set, others kept.
  const wholeMaps = input.mode === 'replace' && (input.locale ?? null) === null;
  const changes: ItemChanges = wholeMaps
    ? { ...prepared.changes, values: { ...prepared.changes.values, ...prepared.changes.translations }, translations: {} }
    : prepared.changes;
  const eventType = input.eventType ?? 'item.updated';
  const command: ItemCommand = {
    type: 'updateItem',
    collection: collection.name,
    itemId: input.itemId,
    changes,
    mode: input.mode,
    target: input.draft ? 'draft' : 'main',
    required: collection.requiredFields,
    fields: [...collection.fields.keys()],
    eventType,
    actorId: input.metadata.actor.id,
    now: new Date().toISOString(),
    ...(input.cause ? { cause: input.cause } : {}),
    ...(input.restore ? { restore: true } : {}),
  };
  return async (tx, fromCachedHead = false) => {
    await assertRowAccess(tx, input.access, 'update', collection.name, input.itemId);
    return runItemCommand(context, tx, {
      siteId: input.siteId,
      fromCachedHead,
      collection,
      itemId: input.itemId,
      command,
      metadata: input.metadata,
      kind: KIND_OF_EVENT[eventType],
      access: input.access,
      ...(input.origin !== undefined ? { origin: input.origin } : {}),
      ...(input.expectedVersion !== undefined ? { expectedVersion: input.expectedVersion } : {}),
      // Under the item's lock: the ids the write sets (not those the item already holds) name live items.
      check: async (state, checkTx) => {
        // An item that is not there is the decider's 404, not a reference's 400.
        if (state.lifecycle !== 'live' && !(input.restore && state.lifecycle === 'deleted')) return;
        const before = (command.target === 'draft' ? (state.draft ?? state.snapshot) : state.snapshot) ?? {};
        const targets = placedTargets(collection, { values: changes.values, before, mode: input.mode }, ['body']);
        if (targets.length > 0) await assertTargetsExist(checkTx, input.siteId, targets);
      },
    });
  };
}

/** Changes an item and returns its snapshot. */
export async function updateItem(context: ItemsWriteContext, input: ChangeItemInput): Promise<ItemSnapshot> {
  return (await changeItem(context, input)).snapshot;
}
