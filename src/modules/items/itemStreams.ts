// How an item is addressed and written: its id, its stream, and its command on the one command
// handler (src/runtime/commandHandler.ts): the head event is the whole state (every item event
// carries the whole item), writers of one item queue on its lock, and If-Match is a 412. An item
// loaded from before a type change of its collection is converted as the read models converted it
// (docs/content.md "Changing a field's type"), and every item write holds its collection's schema
// lock shared, so that a type change waits for the writes in flight.
import { v7 as uuidv7 } from 'uuid';
import { convertedState, itemDecider, type ItemBody, type ItemCommand, type ItemEvent, type ItemSnapshot, type ItemState } from '../../../domain/content/itemDecider.ts';
import type { FieldConversion } from '../../../domain/content/fieldTypeChange.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { StreamConflictError } from '../../../infra/eventstore/eventStore.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { Access } from '../../access/access.ts';
import { handleCommandIn, inSiteTransaction, type EventSealer } from '../../runtime/commandHandler.ts';
import { hasAfterCommit, runAfterWrite, runBeforeWrite, type ItemWrite, type ItemWriteKind, type PendingCommit } from '../../runtime/itemHooks.ts';
import type { CollectionSchema } from '../../schema/siteSchema.ts';
import { itemEventSealer } from '../encryption/itemSealer.ts';
import { keepUnchangedSealedValues } from '../encryption/unchangedValues.ts';
import { holdCollectionSchemaShared, noTypeChangeAfter, typeChangesAfter } from '../schema/fieldTypeChanges.ts';
import type { AppContext } from '../../runtime/context.ts';

/** The item of a singleton collection always has this id, so a second one is a conflict. */
export const SINGLETON_ITEM_ID = 'singleton';

export function itemStreamId(siteId: string, collection: string, itemId: string): string {
  return streamId(siteId, 'item', collection, itemId);
}

/** A UUIDv7: random, but ordered by creation time (new rows land at the end of the primary key). */
export function newItemId(): string {
  return uuidv7();
}

/** What the item commands need of the application context. */
export type ItemsWriteContext = Pick<AppContext, 'database' | 'projections' | 'schemas' | 'streamStarts' | 'streamHeads' | 'keyRing' | 'itemHooks'>;

/**
 * What an item command inside a caller's transaction needs of the context. Every context built at
 * boot has `itemHooks`; it is optional here only for callers typed with a narrower context that does
 * not name it yet (erasure's ErasureContext, which is handed the whole context at run time).
 */
export type ItemCommandContext = Pick<AppContext, 'projections' | 'schemas' | 'keyRing' | 'itemHooks'> & Partial<Pick<AppContext, 'streamHeads'>>;

export interface ItemWriteResult {
  snapshot: ItemSnapshot;
  /** The item's version (its stream version) after the write. */
  version: number;
  draft: ItemBody | null;
}

function preconditionFailed(itemId: string, expected: number, actual: number | null): AppError {
  return new AppError('PRECONDITION_FAILED', `Item "${itemId}" is at version ${actual ?? 'unknown'}, not ${expected}`, {
    path: ['headers', 'if-match'],
    extensions: actual === null ? { expectedVersion: expected } : { expectedVersion: expected, currentVersion: actual },
  });
}

/** Moves a decider's `['body', field]` error under a bulk index: `['body', 3, field]`. */
export function underPath(error: unknown, basePath: (string | number)[]): unknown {
  if (!(error instanceof AppError) || error.path[0] !== 'body' || basePath.length <= 1) return error;
  return error.at([...basePath, ...error.path.slice(1)]);
}

export interface ItemCommandRequest {
  siteId: string;
  collection: CollectionSchema;
  itemId: string;
  command: ItemCommand;
  metadata: EventMetadata;
  /** What the item-write hooks are told: the kind of write, whose rules it was held to, who started it. */
  kind: ItemWriteKind;
  access: Access | null;
  origin?: string;
  /** If-Match: compared with an item that exists (live or deleted); a missing one is the decider's 404. */
  expectedVersion?: number;
  /** Checks of the loaded item under its lock, before the version and the decider (see CommandRequest.check). */
  check?: (state: ItemState, tx: Queryable) => Promise<void>;
  /**
   * Decide from the item's head as this instance last committed it, when it has it and no If-Match
   * was sent (src/runtime/streamHeads.ts): no read of the head, its append refusing a stale one as a
   * lost race. Only for a write whose transaction retries a lost race (changeItem's own).
   */
  fromCachedHead?: boolean;
}

const exists = (state: ItemState) => state.lifecycle === 'live' || state.lifecycle === 'deleted';

/**
 * An item decider that notes the log position of the event the item is loaded from (its head: the
 * command handler evolves it as stored, position included).
 */
export function notingHead<Decider extends typeof itemDecider>(decider: Decider, head: { position: number }): Decider {
  return {
    ...decider,
    evolve(state, event) {
      const { position } = event as Partial<{ position: number }>;
      if (typeof position === 'number') head.position = position;
      return decider.evolve(state, event);
    },
  };
}

/**
 * The type changes of the collection since the item's last event, which the item as loaded has not
 * been through. None when no schema event of the site came after that event (the cached schema's
 * version says so, unless `readLog`): the common case reads nothing more.
 */
export async function conversionsSince(
  context: Pick<AppContext, 'schemas'>,
  tx: Queryable,
  item: { siteId: string; collection: string; headPosition: number; readLog?: boolean },
): Promise<FieldConversion[]> {
  if (item.headPosition === 0) return [];
  if (!item.readLog && item.headPosition > (await context.schemas.site(item.siteId, tx)).version) return [];
  return typeChangesAfter(tx, item.siteId, item.collection, item.headPosition);
}

/** The write as hooks see it, from the command and the item before and after. */
function hookWrite(request: ItemCommandRequest, before: ItemState, after: ItemEvent): ItemWrite {
  const { command } = request;
  const cause = command.type === 'updateItem' || command.type === 'hardDeleteItem' ? command.cause : undefined;
  return {
    kind: request.kind,
    siteId: request.siteId,
    collection: request.collection,
    itemId: request.itemId,
    target: command.type === 'updateItem' ? command.target : 'main',
    access: request.access,
    metadata: request.metadata,
    changes: command.type === 'updateItem' ? command.changes.values : {},
    ...(cause ? { cause } : {}),
    ...(request.origin !== undefined ? { origin: request.origin } : {}),
    before: before.snapshot,
    after: after.data.snapshot,
    draft: after.data.draft ?? null,
  };
}

/**
 * One item command in the caller's transaction. The item-write hooks that apply run here: before
 * the append (once the write is decided and sealed), after it with the new version, and once the
 * transaction commits (queued on it: see inItemWriteTransaction). Without any, nothing is added.
 */
export async function runItemCommand(context: ItemCommandContext, tx: Queryable, request: ItemCommandRequest): Promise<ItemWriteResult> {
  const { expectedVersion } = request;
  const hooks = context.itemHooks.applicable(request.kind, request.collection);
  const sealer = itemEventSealer(context, request.siteId);
  // The command as decided: pii/phi values sent unchanged become the references they equal.
  let command = request.command;
  // Set by `check` and the seal, for the hooks: the item as loaded, and the write once decided.
  const seen: { loaded?: ItemState; write?: ItemWrite } = {};
  const head = { position: 0 };
  const seal: EventSealer =
    hooks.length === 0
      ? sealer
      : async (sealTx, events) => {
          const sealed = await sealer(sealTx, events);
          // The item decider's events: the last one carries the item as the write leaves it.
          seen.write = hookWrite(request, seen.loaded!, sealed.at(-1) as unknown as ItemEvent);
          await runBeforeWrite(hooks, { ...seen.write, tx: sealTx });
          return sealed;
        };
  holdCollectionSchemaShared(tx, request.siteId, request.collection.name);
  const stream = itemStreamId(request.siteId, request.collection.name, request.itemId);
  const heads = context.streamHeads;
  const cached = request.fromCachedHead && expectedVersion === undefined ? heads?.get(stream) : undefined;
  const result = await handleCommandIn(tx, context.projections, {
    siteId: request.siteId,
    streamId: stream,
    ...(heads ? { heads } : {}),
    ...(cached ? { head: cached, appendGuard: noTypeChangeAfter(request.siteId, request.collection.name, cached.position) } : {}),
    decider: notingHead(itemDecider, head),
    command: () => command,
    metadata: request.metadata,
    load: 'head',
    lock: true,
    seal,
    check: async (state, checkTx) => {
      seen.loaded = state;
      await request.check?.(state, checkTx);
      command = await keepUnchangedSealedValues(context.keyRing, checkTx, request.siteId, request.collection, state, request.command);
      const conversions = await conversionsSince(context, checkTx, { siteId: request.siteId, collection: request.collection.name, headPosition: head.position });
      if (conversions.length > 0) command = { ...command, conversions };
    },
    ...(expectedVersion !== undefined
      ? {
          expectedVersion,
          versionMismatch: (actual: number | null, state: ItemState) =>
            actual === null || exists(state) ? preconditionFailed(request.itemId, expectedVersion, actual) : null,
        }
      : {}),
  }).catch((error: unknown) => {
    // A head refused as stale may also predate a type change this instance's schema has not heard of
    // yet (its notification on its way): the retry reads the schema again, and finds the conversions.
    if (cached && error instanceof StreamConflictError) context.schemas.invalidate(request.siteId);
    throw error;
  });
  // Nothing decided (a write that changes nothing): nothing written, no hook run.
  if (seen.write) {
    const after = { ...seen.write, after: result.state.snapshot!, draft: result.state.draft, version: result.version };
    await runAfterWrite(hooks, { ...after, tx });
    if (hasAfterCommit(hooks)) context.itemHooks.queue(tx, { hooks, write: after });
  }
  // A write that changes nothing answers the item as loaded: as the read models hold it, converted.
  const state = result.events.length === 0 ? convertedState(result.state, command.conversions) : result.state;
  return { snapshot: state.snapshot!, version: result.version, draft: state.draft };
}

/**
 * A site transaction for item writes: the after-commit hooks of the writes made in it (runItemCommand)
 * run once it has committed, in order, their errors logged. A retried attempt starts a fresh list.
 */
export async function inItemWriteTransaction<T>(
  context: Pick<AppContext, 'database' | 'itemHooks'> & Partial<Pick<AppContext, 'streamHeads'>>,
  siteId: string,
  work: (tx: Queryable) => Promise<T>,
): Promise<T> {
  let pending: PendingCommit[] = [];
  const result = await inSiteTransaction(context, siteId, (tx) => {
    pending = context.itemHooks.collect(tx);
    return work(tx);
  });
  if (pending.length > 0) await context.itemHooks.runAfterCommit(pending);
  return result;
}
