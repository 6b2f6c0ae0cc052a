// Creating items: one or many, all or nothing. Each body is checked and decided on its own (outside
// any transaction), checked against the principal's create rules as it will be stored, and then the
// request joins the site's other creates in one transaction (the command handler's group commit).
// Item-write hooks run in that transaction, ahead of the append, and once it has committed.
import { initialItemState, itemDecider, type ItemEvent, type ItemSnapshot } from '../../../domain/content/itemDecider.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { Access } from '../../access/access.ts';
import { assertCreatable } from '../../access/itemAccess.ts';
import { assertMayCreate } from '../../access/itemWriteRules.ts';
import type { EventSealer } from '../../runtime/commandHandler.ts';
import { hasAfterCommit, runAfterWrite, runBeforeWrite, type CommittedItem, type ItemWrite, type ItemWriteHook } from '../../runtime/itemHooks.ts';
import { collectionOf, declaredFields } from '../../schema/siteSchema.ts';
import type { StreamStart } from '../../runtime/streamStarts.ts';
import { itemEventSealer } from '../encryption/itemSealer.ts';
import { holdCollectionSchemaShared } from '../schema/fieldTypeChanges.ts';
import { itemStreamId, newItemId, SINGLETON_ITEM_ID, underPath, type ItemsWriteContext, type ItemWriteResult } from './itemStreams.ts';
import { prepareChanges } from './prepareChanges.ts';
import { assertTargetsExist, itemKey, placedTargets, type PlacedTarget } from './referenceTargets.ts';

export interface CreateItemsInput {
  siteId: string;
  collection: string;
  items: Record<string, unknown>[];
  access: Access;
  metadata: EventMetadata;
  /** X-Svc-Locale: translatable fields take this language's value. */
  locale?: string | null;
  /** Error paths carry the item's index (`['body', 3, 'title']`); default: when there is more than one item. */
  bulk?: boolean;
}

export async function createItemsWithVersions(context: ItemsWriteContext, input: CreateItemsInput): Promise<ItemWriteResult[]> {
  const schema = await context.schemas.site(input.siteId);
  const bulk = input.bulk ?? input.items.length !== 1;
  // Permissions first: a principal without a create rule learns nothing of the schema (403, not 404).
  assertMayCreate(input.access, input.collection, input.items, declaredFields(schema, input.collection), bulk);
  const collection = collectionOf(schema, input.collection);
  const now = new Date().toISOString();
  const actorId = input.metadata.actor.id;
  const seen = new Set<string>();
  const snapshots: ItemSnapshot[] = [];
  const streams: StreamStart[] = [];
  const hooks = context.itemHooks.applicable('create', collection);
  // What the hooks are told of each item, when any hook runs on this collection's creates.
  const writes: Omit<ItemWrite, 'after'>[] = [];
  // The ids the items set in reference fields: looked up together, in the create's transaction.
  const targets: PlacedTarget[] = [];
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
    seen.add(id);
    let event;
    try {
      [event] = itemDecider.decide(
        { type: 'createItem', collection: collection.name, itemId: id, changes, actorId, now, required: collection.requiredFields },
        initialItemState(),
      );
    } catch (error) {
      throw underPath(error, basePath);
    }
    assertCreatable(input.access, collection.name, event!.data.snapshot, basePath);
    snapshots.push(event!.data.snapshot);
    targets.push(...placedTargets(collection, { values: event!.data.snapshot, before: null, mode: 'create' }, basePath));
    if (hooks.length > 0) {
      writes.push({ kind: 'create', siteId: input.siteId, collection, itemId: id, target: 'main', access: input.access, metadata: input.metadata, changes: changes.values, before: null, draft: null });
    }
    streams.push({
      streamId: itemStreamId(input.siteId, collection.name, id),
      event: event!,
      claimed: givenId !== null || collection.meta.singleton,
      taken: () => new AppError('CONFLICT', `An item "${id}" of "${collection.name}" exists or existed`, { path: [...basePath, 'id'] }),
    });
  }
  if (streams.length === 0) return [];
  const itemSealer = itemEventSealer(context, input.siteId);
  // Like every item write, the creates hold their collection's schema lock shared (a type change waits for them).
  const sealer: EventSealer = (tx, events) => {
    holdCollectionSchemaShared(tx, input.siteId, collection.name);
    return itemSealer(tx, events);
  };
  const hooked = { committed: [] as CommittedItem[] };
  const seal = hooks.length === 0 ? sealer : sealWithHooks(sealer, hooks, writes, hooked);
  await context.streamStarts.submit(input.siteId, {
    metadata: input.metadata,
    streams,
    seal,
    check: targets.length === 0 ? undefined : { run: checkReferences, data: { siteId: input.siteId, targets, created: new Set([...seen].map((id) => itemKey(collection.name, id))) } },
  });
  if (hasAfterCommit(hooks)) await context.itemHooks.runAfterCommit(hooked.committed.map((write) => ({ hooks, write })));
  return snapshots.map((snapshot) => ({ snapshot, version: 1, draft: null }));
}

/** Creates items (all or nothing) and returns their snapshots. */
export async function createItems(context: ItemsWriteContext, input: CreateItemsInput): Promise<ItemSnapshot[]> {
  return (await createItemsWithVersions(context, input)).map((result) => result.snapshot);
}

interface CreatedReferences {
  siteId: string;
  targets: readonly PlacedTarget[];
  /** The request's own new items (a bulk create's items may point at each other), by `itemKey`. */
  created: ReadonlySet<string>;
}

/**
 * The references of the creates of one joint transaction: every id they point at, looked up in one
 * query (its rows locked until the commit), before the seals and the hooks. A missing one fails the
 * joint transaction, and each create, run alone then, gets its own answer.
 */
async function checkReferences(tx: Queryable, creates: readonly CreatedReferences[]): Promise<void> {
  const targets = creates.flatMap(({ targets, created }) => targets.filter((target) => !created.has(itemKey(target.collection, target.id))));
  await assertTargetsExist(tx, creates[0]!.siteId, targets);
}

/**
 * The seal of a create with item-write hooks: once its items are sealed (as they will be stored),
 * every before-write hook, then every after-write hook (version 1), in the joint transaction ahead of
 * the append; a refusal fails the request alone (the group commit runs each request again on its own).
 */
function sealWithHooks(sealer: EventSealer, hooks: readonly ItemWriteHook[], writes: Omit<ItemWrite, 'after'>[], hooked: { committed: CommittedItem[] }): EventSealer {
  return async (tx, events) => {
    const sealed = await sealer(tx, events);
    // The item decider's item.created events, one per item, in order.
    const created = (sealed as unknown as ItemEvent[]).map((event, index): ItemWrite => ({ ...writes[index]!, after: event.data.snapshot }));
    for (const write of created) await runBeforeWrite(hooks, { ...write, tx });
    for (const write of created) await runAfterWrite(hooks, { ...write, tx, version: 1 });
    hooked.committed = created.map((write) => ({ ...write, version: 1 }));
    return sealed;
  };
}
