// How an item is addressed and written: its id, its stream, and its command on the one command
// handler (src/runtime/commandHandler.ts): the head event is the whole state (every item event
// carries the whole item), writers of one item queue on its lock, and If-Match is a 412.
import { v7 as uuidv7 } from 'uuid';
import { itemDecider, type ItemBody, type ItemCommand, type ItemSnapshot, type ItemState } from '../../../domain/content/itemDecider.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { handleCommandIn } from '../../runtime/commandHandler.ts';
import { itemEventSealer } from '../encryption/itemSealer.ts';
import { keepUnchangedSealedValues } from '../encryption/unchangedValues.ts';
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
export type ItemsWriteContext = Pick<AppContext, 'database' | 'projections' | 'schemas' | 'streamStarts' | 'keyRing'>;

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
  collection: string;
  itemId: string;
  command: ItemCommand;
  metadata: EventMetadata;
  /** If-Match: compared with an item that exists (live or deleted); a missing one is the decider's 404. */
  expectedVersion?: number;
  /** Checks of the loaded item under its lock, before the version and the decider (see CommandRequest.check). */
  check?: (state: ItemState, tx: Queryable) => Promise<void>;
}

const exists = (state: ItemState) => state.lifecycle === 'live' || state.lifecycle === 'deleted';

/** One item command in the caller's transaction. */
export async function runItemCommand(
  context: Pick<AppContext, 'projections' | 'schemas' | 'keyRing'>,
  tx: Queryable,
  request: ItemCommandRequest,
): Promise<ItemWriteResult> {
  const { expectedVersion } = request;
  // The command as decided: pii/phi values sent unchanged become the references they equal.
  let command = request.command;
  const result = await handleCommandIn(tx, context.projections, {
    siteId: request.siteId,
    streamId: itemStreamId(request.siteId, request.collection, request.itemId),
    decider: itemDecider,
    command: () => command,
    metadata: request.metadata,
    load: 'head',
    lock: true,
    seal: itemEventSealer(context, request.siteId),
    check: async (state, checkTx) => {
      await request.check?.(state, checkTx);
      command = await keepUnchangedSealedValues(context, checkTx, request.siteId, state, request.command);
    },
    ...(expectedVersion !== undefined
      ? {
          expectedVersion,
          versionMismatch: (actual: number | null, state: ItemState) =>
            actual === null || exists(state) ? preconditionFailed(request.itemId, expectedVersion, actual) : null,
        }
      : {}),
  });
  return { snapshot: result.state.snapshot!, version: result.version, draft: result.state.draft };
}
