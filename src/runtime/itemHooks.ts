// Item-write hooks: what other areas run on an item write without the items area knowing them
// (PocketBase's OnRecordBeforeUpdateRequest is the model). Registered at boot by each area's own
// registration function, held in the context (`context.itemHooks`); docs/architecture.md, "Item-write hooks".
import type { Logger } from 'pino';
import type { ItemBody, ItemSnapshot } from '../../domain/content/itemDecider.ts';
import type { EventMetadata } from '../../domain/shared/events.ts';
import type { Queryable } from '../../infra/postgres/database.ts';
import type { Principal } from '../auth/principal.ts';
import type { CollectionSchema } from '../schema/siteSchema.ts';

/**
 * create; update (PATCH, PUT, a draft, a dependent's relation set or reassigned); revert (to a
 * revision, restoring a soft-deleted item); promote (a named version applied); delete (soft); purge (hard).
 */
export type ItemWriteKind = 'create' | 'update' | 'revert' | 'promote' | 'delete' | 'purge';

/**
 * What a hook may ask of the principal's access: a request's `Access` (src/access/access.ts), named
 * here by the part hooks use, since access.ts names the context and the context names this file.
 */
export interface ItemWriteAccess {
  readonly siteId: string;
  readonly principal: Principal;
  readonly admin: boolean;
  can(action: string, collection: string): boolean;
  hasCapability(name: string): boolean;
}

/** One item write, as hooks see it. Items are as stored: pii/phi values are references (read them through a Revealer). */
export interface ItemWrite {
  kind: ItemWriteKind;
  siteId: string;
  collection: CollectionSchema;
  itemId: string;
  /** `draft`: the write changes the item's draft (X-Svc-Draft), not the item. */
  target: 'main' | 'draft';
  /** Whose rules the write was held to; null for a write on no principal's behalf (an erasure's purge). */
  access: ItemWriteAccess | null;
  metadata: EventMetadata;
  /** The values the write sets, as sent (after the input rules): `{}` for a delete. */
  changes: Readonly<Record<string, unknown>>;
  /** Recorded in the item's event (a release, a revision, a resolved dependency). */
  cause?: Record<string, unknown>;
  /** Who started the write, named by the area that did (e.g. an editorial approval), for hooks to tell writes apart; the items area never reads it. */
  origin?: string;
  /** The item before the write; null for a create. */
  before: ItemSnapshot | null;
  /** The item as the write leaves it (a delete: with `deletedAt`; a purge: as it was last). */
  after: ItemSnapshot;
  /** The item's draft after the write. */
  draft: ItemBody | null;
}

/** Inside the write's transaction. */
export interface ItemWriteInTransaction extends ItemWrite {
  tx: Queryable;
}

export interface WrittenItem extends ItemWriteInTransaction {
  /** The item's version (its stream version) after the write. */
  version: number;
}

export interface CommittedItem extends ItemWrite {
  version: number;
}

export interface ItemWriteHook {
  /** For log lines. */
  name: string;
  /** The kinds of write it runs on (default: all). */
  kinds?: readonly ItemWriteKind[];
  /** The collections it runs on, by name or by a test of the collection's schema (e.g. its meta); default: all. */
  collections?: readonly string[] | ((collection: CollectionSchema) => boolean);
  /**
   * Validate, gate, refuse: runs in the write's transaction once the write is decided, before its
   * events are appended; an error (an AppError) refuses the write and nothing is written.
   */
  beforeWrite?(write: ItemWriteInTransaction): Promise<void>;
  /**
   * What must commit with the write, or not at all (an approval voided by an edit): runs in the
   * write's transaction with the item's new version; an error rolls the write back. A create's runs
   * in the joint transaction of its group commit, ahead of the append.
   */
  afterWrite?(write: WrittenItem): Promise<void>;
  /** React: runs once the write's transaction has committed, in order; an error is logged, never the request's. */
  afterCommit?(write: CommittedItem): Promise<void>;
}

/** An item write's after-commit hooks, waiting for its transaction to commit. */
export interface PendingCommit {
  hooks: readonly ItemWriteHook[];
  write: CommittedItem;
}

export interface ItemHooks {
  /** Adds a hook (at boot); returns its removal. */
  register(hook: ItemWriteHook): () => void;
  /** The hooks that run on this kind of write of this collection, in registration order: empty when none. */
  applicable(kind: ItemWriteKind, collection: CollectionSchema): readonly ItemWriteHook[];
  /**
   * Starts collecting the after-commit hooks of the item writes made in `tx` (an item-write
   * transaction of the items area); returns the list, to be passed to `runAfterCommit` once committed.
   */
  collect(tx: Queryable): PendingCommit[];
  /** Queues a write's after-commit hooks on its transaction; false when nothing collects them there. */
  queue(tx: Queryable, pending: PendingCommit): boolean;
  /** Where `tx`'s queue stands, taken with a savepoint (0 when nothing collects there). */
  mark(tx: Queryable): number;
  /** Forgets what was queued on `tx` since `mark`: the writes a rollback to that savepoint undid. */
  rollbackTo(tx: Queryable, mark: number): void;
  /** Runs queued after-commit hooks in order; each error is logged. */
  runAfterCommit(pending: readonly PendingCommit[]): Promise<void>;
}

const NONE: readonly ItemWriteHook[] = Object.freeze([]);

export function createItemHooks(logger: Pick<Logger, 'error' | 'warn'>): ItemHooks {
  const hooks: ItemWriteHook[] = [];
  // Keyed by transaction: an entry goes with its transaction (no module-level state; one per context).
  const collecting = new WeakMap<Queryable, PendingCommit[]>();
  return {
    register(hook) {
      hooks.push(hook);
      return () => {
        const index = hooks.indexOf(hook);
        if (index >= 0) hooks.splice(index, 1);
      };
    },
    applicable(kind, collection) {
      let found: ItemWriteHook[] | undefined;
      for (const hook of hooks) {
        if (hook.kinds && !hook.kinds.includes(kind)) continue;
        if (hook.collections && !(typeof hook.collections === 'function' ? hook.collections(collection) : hook.collections.includes(collection.name))) continue;
        (found ??= []).push(hook);
      }
      return found ?? NONE;
    },
    collect(tx) {
      const pending: PendingCommit[] = [];
      collecting.set(tx, pending);
      return pending;
    },
    queue(tx, pending) {
      const list = collecting.get(tx);
      if (!list) {
        logger.warn({ hooks: pending.hooks.map((hook) => hook.name), collection: pending.write.collection.name, kind: pending.write.kind },
          'item-write after-commit hooks skipped: the write ran in a transaction not opened with inItemWriteTransaction');
        return false;
      }
      list.push(pending);
      return true;
    },
    mark: (tx) => collecting.get(tx)?.length ?? 0,
    rollbackTo(tx, mark) {
      collecting.get(tx)?.splice(mark);
    },
    async runAfterCommit(pending) {
      for (const { hooks: applicable, write } of pending) {
        for (const hook of applicable) {
          if (!hook.afterCommit) continue;
          try {
            await hook.afterCommit(write);
          } catch (error) {
            logger.error({ err: error, hook: hook.name, collection: write.collection.name, itemId: write.itemId, kind: write.kind }, 'item-write after-commit hook failed');
          }
        }
      }
    },
  };
}

/** Runs the before-write hooks in order; the first error refuses the write. */
export async function runBeforeWrite(hooks: readonly ItemWriteHook[], write: ItemWriteInTransaction): Promise<void> {
  for (const hook of hooks) if (hook.beforeWrite) await hook.beforeWrite(write);
}

/** Runs the after-write hooks in order, in the write's transaction. */
export async function runAfterWrite(hooks: readonly ItemWriteHook[], write: WrittenItem): Promise<void> {
  for (const hook of hooks) if (hook.afterWrite) await hook.afterWrite(write);
}

export const hasAfterCommit = (hooks: readonly ItemWriteHook[]): boolean => hooks.some((hook) => hook.afterCommit !== undefined);
