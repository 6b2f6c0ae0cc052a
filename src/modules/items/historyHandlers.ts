// Commands of item history: revert to a revision, named versions (create, edit, delete, promote)
// and pins. Writes to the item itself go through the content module's changeItem/updateItem, so
// they are validated, projected and revisioned like any other item write. Each write checks that the
// principal may update the item's row inside its own transaction (the rule-level checks ran first,
// in guardItemHistory).
import { applyChanges, type ItemChanges } from '../../../domain/content/itemDecider.ts';
import type { ItemData } from '../../../domain/content/versions/events.ts';
import { STRUCTURAL_KEYS } from '../../../domain/content/versions/itemSnapshot.ts';
import { pinDecider } from '../../../domain/content/versions/pinDecider.ts';
import { versionChanges, versionDecider } from '../../../domain/content/versions/versionDecider.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import { itemEventSealer } from '../encryption/itemSealer.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { Access } from '../../access/access.ts';
import { assertRowAccess } from '../../access/itemAccess.ts';
import { collectionOf, type CollectionSchema } from '../../schema/siteSchema.ts';
import { changeItem, updateItem } from './changeItem.ts';
import { prepareChanges } from './prepareChanges.ts';
import { findRevision, findVersionWithBase, listPins, requireItemRevision, requireLiveItem, requireVersion, type ItemPin } from './historyQueries.ts';

export interface ItemKey {
  siteId: string;
  collection: string;
  itemId: string;
}

/** A content field a version or a revert may write: declared, stored (not a to-many alias), not structural. */
function isWritableContentField(collection: CollectionSchema, field: string): boolean {
  return collection.fields.has(field) && !collection.aliasFields.has(field) && !STRUCTURAL_KEYS.has(field);
}

function writableContent(collection: CollectionSchema, data: ItemData): ItemData {
  const writable: ItemData = {};
  for (const [field, value] of Object.entries(data)) if (isWritableContentField(collection, field)) writable[field] = value;
  return writable;
}

function versionStream(key: ItemKey, versionKey: string): string {
  return streamId(key.siteId, 'item-version', key.collection, key.itemId, versionKey);
}

// ---- revert ----

/** What a write in mode `replace` sets to bring an item back to a revision's `data`: status, sort and content fields. */
export function revisionChanges(collection: CollectionSchema, data: ItemData): ItemData {
  return { status: data.status ?? null, sort: data.sort ?? null, ...writableContent(collection, data) };
}

/**
 * Replaces the item's status, sort and content fields with those of one of its revisions (fields
 * since removed from the collection are left out); writes `item.reverted` with cause { revisionId }.
 * A staged revision's `data` is the committed item as it stood then, and that is what is restored.
 * A soft-deleted item comes back (`item.restored`, then `item.reverted`, in one append). A
 * translatable field gets the revision's languages exactly (a language added since is dropped).
 */
export async function revertItem(context: AppContext, key: ItemKey, revisionId: string, access: Access, metadata: EventMetadata) {
  const collection = await context.schemas.collection(key.siteId, key.collection);
  const revision = await context.database.withSite(key.siteId, (tx) => requireItemRevision(tx, key, revisionId, ['body', 'revisionId']));
  const changes = revisionChanges(collection, revision.data);
  const snapshot = await updateItem(context, {
    siteId: key.siteId,
    collection: key.collection,
    itemId: key.itemId,
    changes,
    mode: 'replace',
    eventType: 'item.reverted',
    cause: { revisionId: revision.revisionId },
    restore: true,
    access,
    metadata,
  });
  return { snapshot, collection };
}

// ---- named versions ----

export async function createVersion(context: AppContext, key: ItemKey, input: { key: string; name: string }, access: Access, metadata: EventMetadata): Promise<void> {
  const collection = await context.schemas.collection(key.siteId, key.collection);
  await inSiteTransaction(context, key.siteId, async (tx) => {
    await assertRowAccess(tx, access, 'update', key.collection, key.itemId);
    const main = await requireLiveItem(tx, key.siteId, key.collection, key.itemId);
    await handleCommandIn(tx, context.projections, {
      siteId: key.siteId,
      streamId: versionStream(key, input.key),
      decider: versionDecider,
      seal: itemEventSealer(context, key.siteId),
      command: {
        type: 'createVersion',
        collection: collection.name,
        itemId: key.itemId,
        key: input.key,
        name: input.name,
        data: main.data,
        baseVersion: main.version,
      },
      metadata,
    });
  });
}

/** Changes a version's name or data (merged into its data); main is not touched. */
export async function updateVersion(
  context: AppContext,
  key: ItemKey,
  versionKey: string,
  input: { name?: string; data?: ItemData },
  access: Access,
  metadata: EventMetadata,
): Promise<void> {
  const schema = await context.schemas.site(key.siteId);
  const collection = collectionOf(schema, key.collection);
  for (const field of Object.keys(input.data ?? {})) {
    if (!isWritableContentField(collection, field)) {
      throw new AppError('VALIDATION_FAILED', `"${field}" is not a content field of ${key.collection}`, { path: ['body', 'data', field] });
    }
  }
  // The item's own rules, as for a PATCH of the item: promote replays these changes as one, and a
  // hash field is stored hashed here too (a version's events never hold the clear text).
  const prepared = input.data
    ? (await prepareChanges(schema, collection, input.data, { mode: 'patch', locale: null, itemId: key.itemId, basePath: ['body', 'data'] })).changes
    : null;
  await inSiteTransaction(context, key.siteId, async (tx) => {
    await assertRowAccess(tx, access, 'update', key.collection, key.itemId);
    const version = await requireVersion(tx, key, versionKey);
    const changes = prepared ? namedChanges(version.data, prepared) : null;
    await handleCommandIn(tx, context.projections, {
      siteId: key.siteId,
      streamId: versionStream(key, versionKey),
      decider: versionDecider,
      seal: itemEventSealer(context, key.siteId),
      command: { type: 'updateVersion', ...(input.name !== undefined ? { name: input.name } : {}), ...(changes ? { changes } : {}) },
      metadata,
    });
  });
}

/** The fields a write names, as they stand after it: translations merged, a sent-back hash mask kept. */
function namedChanges(data: ItemData, changes: ItemChanges): ItemData {
  const after = applyChanges(data, changes, 'patch');
  const named = [...Object.keys(changes.values), ...changes.keepHashes, ...Object.keys(changes.translations)];
  return Object.fromEntries(named.map((field) => [field, after[field] ?? null]));
}

export async function deleteVersion(context: AppContext, key: ItemKey, versionKey: string, access: Access, metadata: EventMetadata): Promise<void> {
  await context.schemas.collection(key.siteId, key.collection);
  await inSiteTransaction(context, key.siteId, async (tx) => {
    await assertRowAccess(tx, access, 'update', key.collection, key.itemId);
    await requireVersion(tx, key, versionKey);
    await handleCommandIn(tx, context.projections, {
      siteId: key.siteId,
      streamId: versionStream(key, versionKey),
      decider: versionDecider,
      seal: itemEventSealer(context, key.siteId),
      command: { type: 'deleteVersion' },
      metadata,
    });
  });
}

/**
 * Applies a version to main: the fields the version changed relative to its base are written with
 * `item.promoted` (main's own changes to other fields stay). The version is then re-based on main.
 * The write expects main at the version read for the merge: a write in between answers 412.
 */
export async function promoteVersion(context: AppContext, key: ItemKey, versionKey: string, access: Access, metadata: EventMetadata) {
  const collection = await context.schemas.collection(key.siteId, key.collection);
  const { version, main } = await context.database.withSite(key.siteId, async (tx) => {
    const found = await findVersionWithBase(tx, key, versionKey);
    if (!found) throw new AppError('NOT_FOUND', `No version "${versionKey}" on this item`, { path: ['params', 'key'] });
    return { version: found, main: await requireLiveItem(tx, key.siteId, key.collection, key.itemId) };
  });
  const mainDiverged = main.version !== version.baseVersion;
  const result = await changeItem(context, {
    siteId: key.siteId,
    collection: key.collection,
    itemId: key.itemId,
    changes: writableContent(collection, versionChanges({ data: version.data, baseData: version.baseData }, collection.translatableFields)),
    mode: 'patch',
    expectedVersion: main.version,
    eventType: 'item.promoted',
    cause: { versionKey },
    access,
    metadata,
  });
  const revisionId = await inSiteTransaction(context, key.siteId, async (tx) => {
    const after = await requireLiveItem(tx, key.siteId, key.collection, key.itemId);
    const revision = await revisionIdAt(tx, key, result.version);
    await handleCommandIn(tx, context.projections, {
      siteId: key.siteId,
      streamId: versionStream(key, versionKey),
      decider: versionDecider,
      seal: itemEventSealer(context, key.siteId),
      command: { type: 'recordPromotion', mainVersion: after.version, mainData: after.data, revisionId: revision, mainDiverged },
      metadata,
    });
    return revision;
  });
  return { snapshot: result.snapshot, collection, mainDiverged, revisionId };
}

/** True when the item has a revision in this site: it exists, or existed (pins outlive a delete). */
async function itemExisted(tx: Queryable, key: ItemKey): Promise<boolean> {
  const rows = await tx.query(sql`
    SELECT 1 FROM item_revisions WHERE site_id = ${key.siteId} AND collection = ${key.collection} AND item_id = ${key.itemId} LIMIT 1`);
  return rows.length > 0;
}

async function revisionIdAt(tx: Queryable, key: ItemKey, version: number): Promise<string | null> {
  const rows = await tx.query<{ revision_id: string }>(sql`
    SELECT revision_id FROM item_revisions
     WHERE site_id = ${key.siteId} AND collection = ${key.collection} AND item_id = ${key.itemId} AND version = ${version}`);
  return rows[0]?.revision_id ?? null;
}

// ---- pins ----

function pinStream(key: ItemKey): string {
  return streamId(key.siteId, 'item-pins', key.collection, key.itemId);
}

/**
 * The collections whose items `field` refers to: for `*` the item's own collection; for an m2o field
 * its related collection; for to-many fields the related side (and the junction of m2m/m2a).
 * Null when the field is neither `*` nor a relation field.
 */
function pinTargets(collection: CollectionSchema, field: string): { collections: Set<string>; m2o: boolean } | null {
  if (field === '*') return { collections: new Set([collection.name]), m2o: false };
  const relation = collection.queryFields.get(field)?.relation;
  if (!relation) return null;
  const collections = new Set([relation.relatedCollection]);
  for (const definition of collection.relations) {
    const declaredHere = definition.collection === collection.name && definition.field === field;
    const aliasHere = definition.relatedCollection === collection.name && definition.relatedField === field;
    if (!declaredHere && !aliasHere) continue;
    if (definition.kind === 'm2m') collections.add(declaredHere ? definition.relatedCollection! : definition.collection);
    if (definition.kind === 'm2a') for (const allowed of definition.allowedCollections ?? []) collections.add(allowed);
  }
  return { collections, m2o: relation.kind === 'm2o' };
}

/**
 * Pins `field` of the item (`*` = the item itself, or a relation field) to a revision of the item it
 * refers to; a staged revision is refused with 409 REVISION_STAGED.
 */
export async function pinRevision(
  context: AppContext,
  key: ItemKey,
  input: { field: string; revisionId: string },
  access: Access,
  metadata: EventMetadata,
): Promise<ItemPin> {
  const collection = await context.schemas.collection(key.siteId, key.collection);
  const targets = pinTargets(collection, input.field);
  if (!targets) {
    throw new AppError('VALIDATION_FAILED', `"${input.field}" is neither "*" nor a relation field of ${key.collection}`, { path: ['body', 'field'] });
  }
  return inSiteTransaction(context, key.siteId, async (tx) => {
    await assertRowAccess(tx, access, 'update', key.collection, key.itemId);
    const main = await requireLiveItem(tx, key.siteId, key.collection, key.itemId);
    const revision = await findRevision(tx, key.siteId, input.revisionId);
    if (!revision) throw new AppError('RECORD_NOT_FOUND', `No revision ${input.revisionId}`, { path: ['body', 'revisionId'] });
    const current = main.data[input.field];
    const fits =
      targets.collections.has(revision.collection) &&
      (input.field !== '*' || revision.item === key.itemId) &&
      (!targets.m2o || current === null || current === undefined || String(current) === revision.item);
    if (!fits) {
      throw new AppError('VALIDATION_FAILED', `Revision ${input.revisionId} is not of an item "${input.field}" refers to`, { path: ['body', 'revisionId'] });
    }
    await handleCommandIn(tx, context.projections, {
      siteId: key.siteId,
      streamId: pinStream(key),
      decider: pinDecider,
      command: {
        type: 'pin',
        collection: key.collection,
        itemId: key.itemId,
        field: input.field,
        revision: { revisionId: revision.revisionId, collection: revision.collection, itemId: revision.item, staged: revision.staged },
      },
      metadata,
    });
    const [pin] = await listPins(tx, key, input.field);
    return pin!;
  });
}

/** Releases one pin (404 when that field is not pinned) or, with `field` null, every pin of the item. */
export async function releasePins(context: AppContext, key: ItemKey, field: string | null, access: Access, metadata: EventMetadata): Promise<void> {
  await context.schemas.collection(key.siteId, key.collection);
  await inSiteTransaction(context, key.siteId, async (tx) => {
    await assertRowAccess(tx, access, 'update', key.collection, key.itemId);
    if (!(await itemExisted(tx, key))) throw new AppError('RECORD_NOT_FOUND', `Item "${key.itemId}" of "${key.collection}" not found`);
    await handleCommandIn(tx, context.projections, {
      siteId: key.siteId,
      streamId: pinStream(key),
      decider: pinDecider,
      command: { type: 'release', collection: key.collection, itemId: key.itemId, field },
      metadata,
    });
  });
}
