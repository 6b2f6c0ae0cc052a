// Changing an item: PATCH merges, PUT replaces, or the item's draft (X-Svc-Draft); with `restore`, a
// soft-deleted item is brought back by the same write (a revert). The principal's update rules are
// checked on the body first and on the row inside the write's transaction.
import { itemDecider, type ItemChanges, type ItemCommand, type ItemEvent, type ItemSnapshot, type ItemState } from '../../../domain/content/itemDecider.ts';
import type { Decider, EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { Access } from '../../access/access.ts';
import { assertRowAccess } from '../../access/itemAccess.ts';
import { assertMayUpdate } from '../../access/itemWriteRules.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import { itemEventSealer } from '../encryption/itemSealer.ts';
import type { AppContext } from '../../runtime/context.ts';
import { collectionOf, declaredFields } from '../../schema/siteSchema.ts';
import { assertEditorialGate, voidReviewOnEdit } from '../editorial/gate.ts';
import { itemStreamId, runItemCommand, type ItemsWriteContext, type ItemWriteResult } from './itemStreams.ts';
import { prepareChanges } from './prepareChanges.ts';

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
  eventType?: 'item.updated' | 'item.reverted' | 'item.promoted';
  cause?: Record<string, unknown>;
  /** X-Svc-Draft: change the item's draft, not the item. */
  draft?: boolean;
  locale?: string | null;
  /** A soft-deleted item is restored by the same write (item.restored, then the change): a revert. */
  restore?: boolean;
  /** The publish write of an editorial approval (src/modules/editorial): neither gated nor voiding the review. */
  editorialApproval?: boolean;
}

/** Changes an item (or its draft) and returns it with its new version. */
export async function changeItem(context: ItemsWriteContext, input: ChangeItemInput): Promise<ItemWriteResult> {
  const write = await prepareItemChange(context, input);
  return inSiteTransaction(context, input.siteId, write);
}

/** changeItem inside the caller's transaction (an editorial approval publishes the item with its review). */
export async function changeItemIn(context: ItemsWriteContext, tx: Queryable, input: ChangeItemInput): Promise<ItemWriteResult> {
  return (await prepareItemChange(context, input))(tx);
}

/** The checks and hashing done outside a transaction; returns the write to run in one. */
async function prepareItemChange(context: ItemsWriteContext, input: ChangeItemInput): Promise<(tx: Queryable) => Promise<ItemWriteResult>> {
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
  const command: ItemCommand = {
    type: 'updateItem',
    collection: collection.name,
    itemId: input.itemId,
    changes,
    mode: input.mode,
    target: input.draft ? 'draft' : 'main',
    required: collection.requiredFields,
    fields: [...collection.fields.keys()],
    eventType: input.eventType ?? 'item.updated',
    actorId: input.metadata.actor.id,
    now: new Date().toISOString(),
    ...(input.cause ? { cause: input.cause } : {}),
    ...(input.restore ? { restore: true } : {}),
  };
  // Editorial review (docs/publishing.md): on a gated collection, publishing needs an approval, and an edit voids one.
  const reviewed = collection.meta.editorialWorkflow && !input.draft && !input.editorialApproval;
  return async (tx) => {
    await assertRowAccess(tx, input.access, 'update', collection.name, input.itemId);
    if (reviewed) await assertEditorialGate(tx, input.siteId, collection.name, input.itemId, changes.values.status);
    const result = await runItemCommand(context, tx, {
      siteId: input.siteId,
      collection: collection.name,
      itemId: input.itemId,
      command,
      metadata: input.metadata,
      ...(input.expectedVersion !== undefined ? { expectedVersion: input.expectedVersion } : {}),
    });
    if (reviewed) await voidReviewOnEdit(context, tx, { siteId: input.siteId, collection: collection.name, itemId: input.itemId, version: result.version, metadata: input.metadata });
    return { snapshot: result.snapshot, version: result.version, draft: result.draft };
  };
}

/** Changes an item and returns its snapshot. */
export async function updateItem(context: ItemsWriteContext, input: ChangeItemInput): Promise<ItemSnapshot> {
  return (await changeItem(context, input)).snapshot;
}

/**
 * The item decider, except that a soft-deleted item takes an update too and stays deleted: the
 * `item.updated` (its snapshot keeps `deletedAt`), then an `item.deleted` restating the deletion,
 * since an item's last event is its state. An item that is gone (purged, never created) takes nothing.
 */
const storedValuesDecider: Decider<ItemState, ItemCommand, ItemEvent> = {
  initialState: itemDecider.initialState,
  evolve: itemDecider.evolve,
  decide(command, state) {
    if (state.lifecycle !== 'live' && state.lifecycle !== 'deleted') return [];
    if (state.lifecycle === 'live') return itemDecider.decide(command, state);
    const events = itemDecider.decide(command, { ...state, lifecycle: 'live' });
    const last = events.at(-1);
    if (!last) return [];
    const { cause, ...data } = last.data;
    return [...events, { type: 'item.deleted', data: { ...data, delta: { deletedAt: data.snapshot.deletedAt }, ...(cause ? { cause } : {}) } }];
  },
};

export interface StoredValuesChange {
  siteId: string;
  collection: string;
  itemId: string;
  /** The values to set, from the item as its stream has it (a field's value under its new name, say). */
  values: (snapshot: ItemSnapshot) => Record<string, unknown>;
  /** The collection's declared fields at the write. */
  fields: readonly string[];
  metadata: EventMetadata;
  cause?: Record<string, unknown>;
  now: string;
}

/**
 * A system write of values an item already holds (a config import moving a renamed field's values),
 * inside the caller's transaction: an `item.updated` as a PATCH of those values, without the body
 * rules, required fields or a principal's rules; a soft-deleted item stays deleted (see above).
 * Returns the number of events appended (0: nothing to change).
 */
export async function changeStoredValuesIn(context: Pick<AppContext, 'projections' | 'schemas' | 'keyRing'>, tx: Queryable, change: StoredValuesChange): Promise<number> {
  const result = await handleCommandIn(tx, context.projections, {
    siteId: change.siteId,
    seal: itemEventSealer(context, change.siteId),
    streamId: itemStreamId(change.siteId, change.collection, change.itemId),
    decider: storedValuesDecider,
    command: (state: ItemState): ItemCommand => ({
      type: 'updateItem',
      collection: change.collection,
      itemId: change.itemId,
      changes: { values: state.snapshot ? change.values(state.snapshot) : {}, keepHashes: [], translations: {} },
      mode: 'patch',
      target: 'main',
      required: [],
      fields: change.fields,
      eventType: 'item.updated',
      actorId: change.metadata.actor.id,
      now: change.now,
      ...(change.cause ? { cause: change.cause } : {}),
    }),
    metadata: change.metadata,
    // No lock: a concurrent write of the item fails the append's version check, and the caller's transaction is retried.
    load: 'head',
  });
  return result.events.length;
}
