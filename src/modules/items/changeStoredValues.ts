// A system write of values an item already holds (a config import moving a renamed field's values):
// an `item.updated` without the body rules, required fields, a principal's rules or item-write hooks.
import { itemDecider, type ItemCommand, type ItemEvent, type ItemSnapshot, type ItemState } from '../../../domain/content/itemDecider.ts';
import type { FieldConversion } from '../../../domain/content/fieldTypeChange.ts';
import type { Decider, EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { handleCommandIn } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { itemEventSealer } from '../encryption/itemSealer.ts';
import { conversionsSince, itemStreamId, notingHead } from './itemStreams.ts';

/**
 * The item decider, except that a soft-deleted item takes an update too and stays deleted: the
 * `item.updated` (its snapshot keeps `deletedAt`), then an `item.deleted` restating the deletion,
 * since an item's last event is its state. An item that is gone (purged, never created) takes nothing.
 */
const storedValuesDecider: Decider<ItemState, ItemCommand, ItemEvent> = {
  eventTypes: itemDecider.eventTypes,
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
  const head = { position: 0 };
  let conversions: FieldConversion[] = [];
  const result = await handleCommandIn(tx, context.projections, {
    siteId: change.siteId,
    seal: itemEventSealer(context, change.siteId),
    streamId: itemStreamId(change.siteId, change.collection, change.itemId),
    decider: notingHead(storedValuesDecider, head),
    // The item as the read models hold it: converted by the type changes since its last event, read
    // from the log (the import may have changed a type earlier in this very transaction).
    check: async (_state, checkTx) => {
      conversions = await conversionsSince(context, checkTx, { siteId: change.siteId, collection: change.collection, headPosition: head.position, readLog: true });
    },
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
      conversions,
      ...(change.cause ? { cause: change.cause } : {}),
    }),
    metadata: change.metadata,
    // No lock: a concurrent write of the item fails the append's version check, and the caller's transaction is retried.
    load: 'head',
  });
  return result.events.length;
}
