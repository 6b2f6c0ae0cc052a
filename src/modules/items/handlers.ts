// Item commands: create (one or many, all or nothing), update (PATCH merges, PUT replaces, or the
// draft; with `restore`, of a soft-deleted item, as a revert does), delete (soft, refused while a
// restrict relation points at the item), hard delete, and resolving dependents. Each write is item
// events with the acting principal in metadata, appended with the expected stream version: a
// concurrent write is retried from a fresh read, or answered 412 when the client sent If-Match.
import { v7 as uuidv7 } from 'uuid';
import { checkItemInput } from '../../../domain/content/itemInput.ts';
import {
  initialItemState,
  itemDecider,
  type ItemBody,
  type ItemChanges,
  type ItemCommand,
  type ItemSnapshot,
  type ItemState,
} from '../../../domain/content/itemDecider.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata, type StoredEvent } from '../../../domain/shared/events.ts';
import { hashPassword } from '../../../infra/crypto/passwords.ts';
import { appendFirstEvents, appendToStream, readStreamHead, startedStreams, StreamConflictError } from '../../../infra/eventstore/eventStore.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { inSiteTransaction } from '../../runtime/commandBus.ts';
import type { AppContext } from '../../runtime/context.ts';
import { createGroupCommit, type GroupCommit, type WriteOutcome } from '../../runtime/groupCommit.ts';
import { applyInline } from '../../runtime/projectionRunner.ts';
import { loadCollectionSchema, loadSiteSchema } from '../../schema/schemaCache.ts';
import type { CollectionSchema, SiteSchema } from '../../schema/siteSchema.ts';
import { dependentIds, dependentsOf, type DependentsReport, type SampleCondition } from './dependents.ts';

export { loadCollectionSchema };

/** The item of a singleton collection always has this id, so a second one is a conflict. */
export const SINGLETON_ITEM_ID = 'singleton';

export function itemStreamId(siteId: string, collection: string, itemId: string): string {
  return streamId(siteId, 'item', collection, itemId);
}

/** A UUIDv7: random, but ordered by creation time (new rows land at the end of the primary key). */
export function newItemId(): string {
  return uuidv7();
}

export interface ItemWriteResult {
  snapshot: ItemSnapshot;
  /** The item's version (its stream version) after the write. */
  version: number;
  draft: ItemBody | null;
}

export type ItemsWriteContext = Pick<AppContext, 'database' | 'projections' | 'notifier' | 'onClose'>;

export function collectionOf(schema: SiteSchema, name: string): CollectionSchema {
  const collection = schema.collections.get(name);
  if (!collection) throw new AppError('NOT_FOUND', `Collection "${name}" not found`);
  return collection;
}

function preconditionFailed(itemId: string, expected: number, actual: number | null): AppError {
  return new AppError('PRECONDITION_FAILED', `Item "${itemId}" is at version ${actual ?? 'unknown'}, not ${expected}`, {
    path: ['headers', 'if-match'],
    extensions: actual === null ? { expectedVersion: expected } : { expectedVersion: expected, currentVersion: actual },
  });
}

/** Moves a decider's `['body', field]` error under a bulk index: `['body', 3, field]`. */
function underPath(error: unknown, basePath: (string | number)[]): unknown {
  if (!(error instanceof AppError) || error.path[0] !== 'body' || basePath.length <= 1) return error;
  return error.at([...basePath, ...error.path.slice(1)]);
}

/**
 * The item's state: every item event carries the whole item, so the last event of the stream is
 * enough (see itemDecider).
 */
export async function loadItemState(tx: Queryable, stream: string): Promise<{ state: ItemState; version: number }> {
  const event = await readStreamHead(tx, stream);
  if (!event) return { state: initialItemState(), version: 0 };
  return { state: itemDecider.evolve(initialItemState(), event), version: event.streamPosition };
}

interface ItemCommandRequest {
  siteId: string;
  collection: string;
  itemId: string;
  command: ItemCommand;
  metadata: EventMetadata;
  expectedVersion?: number;
}

/** Load, decide, append with the expected version, project inline: in the caller's transaction. */
export async function runItemCommand(
  context: Pick<AppContext, 'projections'>,
  tx: Queryable,
  request: ItemCommandRequest,
): Promise<ItemWriteResult & { events: StoredEvent[] }> {
  const stream = itemStreamId(request.siteId, request.collection, request.itemId);
  // Writers of one item queue here (until commit) instead of racing to the append and retrying:
  // under contention every write still lands, each on the state the previous one left.
  await tx.query(sql`SELECT pg_advisory_xact_lock(hashtextextended(${stream}, 0))`);
  const { state, version } = await loadItemState(tx, stream);
  const live = state.lifecycle === 'live' || state.lifecycle === 'deleted';
  if (live && request.expectedVersion !== undefined && request.expectedVersion !== version) {
    throw preconditionFailed(request.itemId, request.expectedVersion, version);
  }
  const events = itemDecider.decide(request.command, state);
  if (events.length === 0) return { snapshot: state.snapshot!, version, draft: state.draft, events: [] };
  let appended;
  try {
    appended = await appendToStream(tx, {
      siteId: request.siteId,
      streamId: stream,
      expectedVersion: version === 0 ? 'no_stream' : version,
      events,
      metadata: request.metadata,
    });
  } catch (error) {
    if (error instanceof StreamConflictError && request.expectedVersion !== undefined) {
      throw preconditionFailed(request.itemId, request.expectedVersion, null);
    }
    throw error;
  }
  await applyInline(tx, context.projections, appended.events);
  const after = appended.events.reduce((current, event) => itemDecider.evolve(current, event), state);
  return { snapshot: after.snapshot!, version: appended.nextVersion, draft: after.draft, events: appended.events };
}

interface PrepareOptions {
  mode: 'create' | 'patch' | 'replace';
  locale: string | null;
  itemId?: string;
  basePath: (string | number)[];
}

/**
 * Checks a body against the collection and hashes its hash fields (outside any transaction: hashing
 * is slow). Item writes use it, and so do writes of a version's data, which promote replays as a PATCH.
 */
export async function prepareChanges(schema: SiteSchema, collection: CollectionSchema, body: unknown, options: PrepareOptions) {
  const checked = checkItemInput(
    body,
    {
      fields: collection.fields,
      aliasFields: collection.aliasFields,
      mode: options.mode,
      locale: options.locale,
      defaultLanguage: schema.defaultLanguage,
      ...(options.itemId !== undefined ? { itemId: options.itemId } : {}),
    },
    options.basePath,
  );
  const values = { ...checked.values };
  await Promise.all(
    Object.entries(checked.hashes).map(async ([field, clear]) => {
      values[field] = await hashPassword(clear);
    }),
  );
  const changes: ItemChanges = { values, keepHashes: checked.keepHashes, translations: checked.translations };
  return { id: checked.id, changes };
}

export interface CreateItemsInput {
  siteId: string;
  collection: string;
  items: Record<string, unknown>[];
  metadata: EventMetadata;
  /** X-Svc-Locale: translatable fields take this language's value. */
  locale?: string | null;
  /** Error paths carry the item's index (`['body', 3, 'title']`); default: when there is more than one item. */
  bulk?: boolean;
  /** Permissions (src/access): throws when the principal may not create this item as it will be stored. */
  authorize?: (snapshot: ItemSnapshot, basePath: (string | number)[]) => void;
}

/** Creates items all or nothing, in one transaction and one append (shared with concurrent creates: itemCreateGroup). */
export async function createItemsWithVersions(context: ItemsWriteContext, input: CreateItemsInput): Promise<ItemWriteResult[]> {
  const schema = await loadSiteSchema(context, input.siteId);
  const collection = collectionOf(schema, input.collection);
  const bulk = input.bulk ?? input.items.length !== 1;
  const now = new Date().toISOString();
  const actorId = input.metadata.actor.id;
  const seen = new Map<string, number>();
  const planned: { id: string; provided: boolean; basePath: (string | number)[]; snapshot: ItemSnapshot; event: NewItemEvent }[] = [];
  for (const [index, body] of input.items.entries()) {
    const basePath = bulk ? ['body', index] : ['body'];
    const { id: givenId, changes } = await prepareChanges(schema, collection, body, { mode: 'create', locale: input.locale ?? null, basePath });
    if (collection.meta.singleton && givenId !== null && givenId !== SINGLETON_ITEM_ID) {
      throw new AppError('VALIDATION_FAILED', `The item of the singleton "${collection.name}" has the id "${SINGLETON_ITEM_ID}"`, {
        path: [...basePath, 'id'],
      });
    }
    const id = givenId ?? (collection.meta.singleton ? SINGLETON_ITEM_ID : newItemId());
    if (seen.has(id)) throw new AppError('VALIDATION_FAILED', `Item id "${id}" appears twice in the body`, { path: [...basePath, 'id'] });
    seen.set(id, index);
    let events;
    try {
      events = itemDecider.decide(
        { type: 'createItem', collection: collection.name, itemId: id, changes, actorId, now, required: collection.requiredFields },
        initialItemState(),
      );
    } catch (error) {
      throw underPath(error, basePath);
    }
    const event = events[0]!;
    input.authorize?.(event.data.snapshot, basePath);
    planned.push({ id, provided: givenId !== null || collection.meta.singleton, basePath, snapshot: event.data.snapshot, event });
  }
  if (planned.length === 0) return [];
  await itemCreateGroup(context).submit(input.siteId, {
    collection: collection.name,
    metadata: input.metadata,
    items: planned.map((item) => ({ id: item.id, provided: item.provided, basePath: item.basePath, event: item.event })),
  });
  return planned.map((item) => ({ snapshot: item.snapshot, version: 1, draft: null }));
}

/** One create request, decided and authorized, waiting for its transaction. */
interface PlannedCreate {
  collection: string;
  metadata: EventMetadata;
  items: { id: string; provided: boolean; basePath: (string | number)[]; event: NewItemEvent }[];
}

type NewItemEvent = ReturnType<typeof itemDecider.decide>[number];

const createGroups = new WeakMap<ItemsWriteContext['database'], WeakMap<ItemsWriteContext['projections'], GroupCommit<PlannedCreate, void>>>();

/**
 * The creates of one service share transactions under load (group commit): one append, one insert per
 * read model. Each request stays all or nothing: a request whose given id is taken is refused alone,
 * and when the joint transaction fails, each request runs again alone.
 */
export function itemCreateGroup(context: ItemsWriteContext): GroupCommit<PlannedCreate, void> {
  let byProjections = createGroups.get(context.database);
  if (!byProjections) createGroups.set(context.database, (byProjections = new WeakMap()));
  let group = byProjections.get(context.projections);
  if (!group) {
    group = createGroupCommit<PlannedCreate, void>((siteId, creates) => createJointly(context, siteId, creates), {
      weigh: (create) => create.items.length,
      maxWeight: 500,
      soloWeight: 100,
    });
    byProjections.set(context.projections, group);
  }
  return group;
}

async function createJointly(context: ItemsWriteContext, siteId: string, creates: PlannedCreate[]): Promise<WriteOutcome<void>[]> {
  return inSiteTransaction(context, siteId, async (tx) => {
    const providedStreams = creates.flatMap((create) =>
      create.items.filter((item) => item.provided).map((item) => itemStreamId(siteId, create.collection, item.id)),
    );
    // Taken: by an item that exists or existed, or by an earlier request of this transaction.
    const taken = providedStreams.length > 0 ? await startedStreams(tx, providedStreams) : new Set<string>();
    const outcomes = creates.map((create): WriteOutcome<void> => {
      const provided = create.items.filter((item) => item.provided);
      const clash = provided.find((item) => taken.has(itemStreamId(siteId, create.collection, item.id)));
      if (clash) {
        const message = `An item "${clash.id}" of "${create.collection}" exists or existed`;
        return { ok: false, error: new AppError('CONFLICT', message, { path: [...clash.basePath, 'id'] }) };
      }
      for (const item of provided) taken.add(itemStreamId(siteId, create.collection, item.id));
      return { ok: true, value: undefined };
    });
    const accepted = creates.filter((_, index) => outcomes[index]!.ok);
    if (accepted.length === 0) return outcomes;
    const events = await appendFirstEvents(tx, {
      siteId,
      events: accepted.flatMap((create) =>
        create.items.map((item) => ({ streamId: itemStreamId(siteId, create.collection, item.id), event: item.event, metadata: create.metadata })),
      ),
      metadata: accepted[0]!.metadata,
    });
    await applyInline(tx, context.projections, events);
    return outcomes;
  });
}

/** Contract: creates items (all or nothing) and returns their snapshots. */
export async function createItems(context: ItemsWriteContext, input: CreateItemsInput): Promise<ItemSnapshot[]> {
  return (await createItemsWithVersions(context, input)).map((result) => result.snapshot);
}

export interface UpdateItemInput {
  siteId: string;
  collection: string;
  itemId: string;
  changes: Record<string, unknown>;
  mode: 'patch' | 'replace';
  /** If-Match: the version the client saw; a mismatch is 412 PRECONDITION_FAILED instead of a retry. */
  expectedVersion?: number;
  metadata: EventMetadata;
  eventType?: 'item.updated' | 'item.reverted' | 'item.promoted';
  cause?: Record<string, unknown>;
  /** X-Svc-Draft: change the item's draft, not the item. */
  draft?: boolean;
  locale?: string | null;
  /** Permissions (src/access): runs in the write's transaction first; throws when the principal may not change the item. */
  authorize?: (tx: Queryable) => Promise<void>;
  /** A soft-deleted item is restored by the same write (item.restored, then the change): a revert. */
  restore?: boolean;
}

/** Changes an item (or its draft) and returns it with its new version. */
export async function changeItem(context: ItemsWriteContext, input: UpdateItemInput): Promise<ItemWriteResult> {
  const schema = await loadSiteSchema(context, input.siteId);
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
  const result = await inSiteTransaction(context, input.siteId, async (tx) => {
    await input.authorize?.(tx);
    return runItemCommand(context, tx, {
      siteId: input.siteId,
      collection: collection.name,
      itemId: input.itemId,
      command,
      metadata: input.metadata,
      ...(input.expectedVersion !== undefined ? { expectedVersion: input.expectedVersion } : {}),
    });
  });
  return { snapshot: result.snapshot, version: result.version, draft: result.draft };
}

/** Contract: changes an item and returns its snapshot. */
export async function updateItem(context: ItemsWriteContext, input: UpdateItemInput): Promise<ItemSnapshot> {
  return (await changeItem(context, input)).snapshot;
}

function dependentRecordsExist(collection: CollectionSchema, itemId: string, report: DependentsReport): AppError {
  return new AppError('DEPENDENT_RECORDS_EXIST', `Items still point at "${itemId}" of "${collection.name}" through a restrict relation`, {
    extensions: { dependents: report.dependents.filter((entry) => entry.count > 0) },
  });
}

interface DeleteRequest {
  siteId: string;
  collection: CollectionSchema;
  itemId: string;
  metadata: EventMetadata;
  expectedVersion?: number;
  hard?: boolean;
  cause?: Record<string, unknown>;
}

/** The normal delete path inside a transaction: 404 when gone, 409 while a restrict relation points at it. */
async function deleteIn(context: Pick<AppContext, 'projections'>, tx: Queryable, request: DeleteRequest): Promise<ItemWriteResult> {
  const { collection, itemId } = request;
  const { state } = await loadItemState(tx, itemStreamId(request.siteId, collection.name, itemId));
  const deletable = request.hard ? state.lifecycle === 'live' || state.lifecycle === 'deleted' : state.lifecycle === 'live';
  if (!deletable) throw new AppError('RECORD_NOT_FOUND', `Item "${itemId}" of "${collection.name}" not found`);
  const restricting = collection.references.filter((reference) => reference.onDelete === 'restrict');
  if (restricting.length > 0) {
    const report = await dependentsOf(tx, request.siteId, collection, itemId, restricting);
    if (report.blocking) throw dependentRecordsExist(collection, itemId, report);
  }
  const acting = { collection: collection.name, itemId, actorId: request.metadata.actor.id, now: new Date().toISOString() };
  const command: ItemCommand = request.hard
    ? { type: 'hardDeleteItem', ...acting, ...(request.cause ? { cause: request.cause } : {}) }
    : { type: 'deleteItem', ...acting };
  return runItemCommand(context, tx, {
    siteId: request.siteId,
    collection: collection.name,
    itemId,
    command,
    metadata: request.metadata,
    ...(request.expectedVersion !== undefined ? { expectedVersion: request.expectedVersion } : {}),
  });
}

export interface DeleteItemInput {
  siteId: string;
  collection: string;
  itemId: string;
  metadata: EventMetadata;
  expectedVersion?: number;
  /** Permissions (src/access): runs in the write's transaction first; throws when the principal may not delete the item. */
  authorize?: (tx: Queryable) => Promise<void>;
}

/** Contract: soft-deletes an item (409 DEPENDENT_RECORDS_EXIST while a restrict relation points at it). */
export async function deleteItem(context: ItemsWriteContext, input: DeleteItemInput): Promise<void> {
  const collection = await loadCollectionSchema(context, input.siteId, input.collection);
  await inSiteTransaction(context, input.siteId, async (tx) => {
    await input.authorize?.(tx);
    await deleteIn(context, tx, {
      siteId: input.siteId,
      collection,
      itemId: input.itemId,
      metadata: input.metadata,
      ...(input.expectedVersion !== undefined ? { expectedVersion: input.expectedVersion } : {}),
    });
  });
}

export interface DependentsReadOptions {
  /** Permissions (src/access): runs first in the read's transaction; throws when the principal may not read the item. */
  authorize?: (tx: Queryable) => Promise<void>;
  /** Permissions: only dependents meeting this condition appear in `sample` (counts stay whole, so `blocking` is true). */
  sampleCondition?: SampleCondition;
}

export async function getDependents(
  context: ItemsWriteContext,
  siteId: string,
  collectionName: string,
  itemId: string,
  options: DependentsReadOptions = {},
): Promise<DependentsReport> {
  const collection = await loadCollectionSchema(context, siteId, collectionName);
  return context.database.withSite(siteId, async (tx) => {
    await options.authorize?.(tx);
    const [row] = await tx.query(
      sql`SELECT 1 FROM items WHERE site_id = ${siteId} AND collection = ${collection.name} AND id = ${itemId} AND deleted_at IS NULL`,
    );
    if (!row) throw new AppError('RECORD_NOT_FOUND', `Item "${itemId}" of "${collection.name}" not found`);
    return dependentsOf(tx, siteId, collection, itemId, collection.references, options.sampleCondition);
  });
}

export interface ResolveDependentsInput {
  siteId: string;
  collection: string;
  itemId: string;
  action: 'set_null' | 'delete' | 'reassign';
  relation: string;
  newTargetId?: string;
  hard?: boolean;
  metadata: EventMetadata;
  /** Permissions (src/access): runs first in the transaction; throws when the principal may not reach the item. */
  authorize?: (tx: Queryable) => Promise<void>;
  /** Permissions: runs before each dependent is changed (`values`) or deleted; throws when the principal may not. */
  authorizeDependent?: (tx: Queryable, collection: string, itemId: string, change: { action: 'delete' } | { action: 'update'; values: Record<string, unknown> }) => Promise<void>;
  sampleCondition?: SampleCondition;
}

export interface ResolveDependentsResult extends DependentsReport {
  action: ResolveDependentsInput['action'];
  relation: string;
  /** Dependents changed or deleted. */
  affected: number;
}

/**
 * Resolves the items that point at an item through one relation, in one transaction: set their
 * field to null, delete them (the normal delete path, or hard), or point them at another item.
 */
export async function resolveDependents(context: ItemsWriteContext, input: ResolveDependentsInput): Promise<ResolveDependentsResult> {
  const schema = await loadSiteSchema(context, input.siteId);
  const collection = collectionOf(schema, input.collection);
  const references = collection.references.filter((reference) => reference.relationId === input.relation);
  if (references.length === 0) {
    throw new AppError('VALIDATION_FAILED', `Relation "${input.relation}" does not point at "${collection.name}"`, { path: ['body', 'relation'] });
  }
  if (input.action === 'set_null') {
    for (const reference of references) {
      if (schema.collections.get(reference.collection)?.fields.get(reference.field)?.required) {
        throw new AppError('FIELD_REQUIRED', `"${reference.collection}.${reference.field}" is required; it cannot be set to null`, {
          path: ['body', 'action'],
          extensions: { collection: reference.collection, field: reference.field },
        });
      }
    }
  }
  if (input.action === 'reassign' && !input.newTargetId) {
    throw new AppError('VALIDATION_FAILED', 'reassign needs newTargetId', { path: ['body', 'newTargetId'] });
  }
  const now = new Date().toISOString();
  const actorId = input.metadata.actor.id;
  return inSiteTransaction(context, input.siteId, async (tx) => {
    await input.authorize?.(tx);
    const [self] = await tx.query(
      sql`SELECT 1 FROM items WHERE site_id = ${input.siteId} AND collection = ${collection.name} AND id = ${input.itemId} AND deleted_at IS NULL`,
    );
    if (!self) throw new AppError('RECORD_NOT_FOUND', `Item "${input.itemId}" of "${collection.name}" not found`);
    if (input.action === 'reassign') {
      const [target] = await tx.query(sql`
        SELECT 1 FROM items WHERE site_id = ${input.siteId} AND collection = ${collection.name} AND id = ${input.newTargetId!} AND deleted_at IS NULL`);
      if (!target || input.newTargetId === input.itemId) {
        throw new AppError('INVALID_TARGET', `"${input.newTargetId}" is not another live item of "${collection.name}"`, { path: ['body', 'newTargetId'] });
      }
    }
    let affected = 0;
    for (const reference of references) {
      const dependentCollection = collectionOf(schema, reference.collection);
      for (const id of await dependentIds(tx, input.siteId, reference, input.itemId)) {
        if (input.action === 'delete') {
          await input.authorizeDependent?.(tx, reference.collection, id, { action: 'delete' });
          await deleteIn(context, tx, {
            siteId: input.siteId,
            collection: dependentCollection,
            itemId: id,
            metadata: input.metadata,
            ...(input.hard ? { hard: true, cause: { resolvedDependentsOf: { collection: collection.name, itemId: input.itemId } } } : {}),
          });
        } else {
          const values: Record<string, unknown> = { [reference.field]: input.action === 'reassign' ? input.newTargetId! : null };
          if (input.action === 'set_null' && reference.collectionField) values[reference.collectionField] = null;
          await input.authorizeDependent?.(tx, reference.collection, id, { action: 'update', values });
          await runItemCommand(context, tx, {
            siteId: input.siteId,
            collection: reference.collection,
            itemId: id,
            metadata: input.metadata,
            command: {
              type: 'updateItem',
              collection: reference.collection,
              itemId: id,
              changes: { values, keepHashes: [], translations: {} },
              mode: 'patch',
              target: 'main',
              required: dependentCollection.requiredFields,
              fields: [...dependentCollection.fields.keys()],
              eventType: 'item.updated',
              cause: { resolvedDependentsOf: { collection: collection.name, itemId: input.itemId, action: input.action } },
              actorId,
              now,
            },
          });
        }
        affected += 1;
      }
    }
    const report = await dependentsOf(tx, input.siteId, collection, input.itemId, collection.references, input.sampleCondition);
    return { action: input.action, relation: input.relation, affected, ...report };
  });
}
