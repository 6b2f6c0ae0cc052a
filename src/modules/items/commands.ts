// The items area's commands (the command registry, docs/architecture.md): create, update, delete,
// resolve dependents, revert to a revision; named versions (create, update, delete, promote) and pins
// (pin, release). Item-level checks (Access, row rules, hooks) stay in the handlers they call.
import { z } from 'zod';
import { ITEM_ID_PATTERN } from '../../../domain/content/itemInput.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { assertMayUseHistory } from '../../access/itemGuards.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { changeItem } from './changeItem.ts';
import { createItemsWithVersions } from './createItems.ts';
import { deleteItem } from './deleteItem.ts';
import { createVersion, deleteVersion, pinRevision, promoteVersion, releasePins, revertItem, updateVersion } from './historyHandlers.ts';
import { itemParams, pinField, versionKey, versionName, versionParams } from './historyParams.ts';
import { requireVersion } from './historyQueries.ts';
import { resolveDependents } from './resolveDependents.ts';

/** At most this many items in one bulk create. */
export const MAX_BULK_ITEMS = 2_000;

/** POST /items/:collection: one item, or an array of them (all or nothing). */
export const createItemsBody = z.union([z.record(z.string(), z.unknown()), z.array(z.unknown()).min(1).max(MAX_BULK_ITEMS)]);
export const itemChangesBody = z.record(z.string(), z.unknown());
export const resolveDependentsBody = z
  .object({
    action: z.enum(['set_null', 'delete', 'reassign']),
    relation: z.string().min(1).max(64),
    newTargetId: z.string().min(1).max(128).optional(),
    hard: z.boolean().optional(),
  })
  .strict();
export const revertItemBody = z.object({ revisionId: z.string().min(1).max(64) });
export const createVersionBody = z.object({ key: versionKey, name: versionName });
export const updateVersionBody = z
  .object({ name: versionName.optional(), data: z.record(z.string(), z.unknown()).optional() })
  .refine((body) => body.name !== undefined || body.data !== undefined, { message: 'Give data or name' });
export const pinBody = z.object({ field: pinField, revisionId: z.string().min(1).max(64) });

/** An item id that cannot exist names nothing: 404, like an unknown one. */
export function checkItemId(id: string): void {
  if (!ITEM_ID_PATTERN.test(id)) throw new AppError('RECORD_NOT_FOUND', `Item "${id}" not found`);
}

const locale = z.string().nullable().optional();
/** If-Match: the version the caller saw (a mismatch is 412). */
const expectedVersion = z.number().int().min(0).optional();

const createItems = defineCommand({
  name: 'items.create',
  description: 'Create one item of a collection, or several (an array, all or nothing).',
  input: z.object({ collection: z.string(), items: createItemsBody, locale }),
  bodyKey: 'items',
  access: 'public',
  dangerous: false,
  skill: true,
  async handler(context, { siteId, input, metadata, access }) {
    const bulk = Array.isArray(input.items);
    return createItemsWithVersions(context, {
      siteId,
      collection: input.collection,
      items: (bulk ? input.items : [input.items]) as Record<string, unknown>[],
      access: await access(),
      metadata,
      locale: input.locale ?? null,
      bulk,
    });
  },
});

const updateItem = defineCommand({
  name: 'items.update',
  description: 'Change an item, or its draft: `patch` sets the fields given, `replace` the whole item.',
  input: z.object({
    collection: z.string(),
    id: z.string(),
    changes: itemChangesBody,
    mode: z.enum(['patch', 'replace']).default('patch'),
    draft: z.boolean().default(false),
    locale,
    expectedVersion,
  }),
  bodyKey: 'changes',
  access: 'public',
  dangerous: false,
  skill: true,
  async handler(context, { siteId, input, metadata, access }) {
    checkItemId(input.id);
    return changeItem(context, {
      siteId,
      collection: input.collection,
      itemId: input.id,
      changes: input.changes,
      mode: input.mode,
      access: await access(),
      metadata,
      draft: input.draft,
      locale: input.locale ?? null,
      ...(input.expectedVersion !== undefined ? { expectedVersion: input.expectedVersion } : {}),
    });
  },
});

const deleteItemCommand = defineCommand({
  name: 'items.delete',
  description: 'Soft-delete an item (refused while a restrict relation points at it).',
  input: z.object({ collection: z.string(), id: z.string(), expectedVersion }),
  access: 'public',
  dangerous: true,
  skill: true,
  async handler(context, { siteId, input, metadata, access }) {
    checkItemId(input.id);
    await deleteItem(context, {
      siteId,
      collection: input.collection,
      itemId: input.id,
      access: await access(),
      metadata,
      ...(input.expectedVersion !== undefined ? { expectedVersion: input.expectedVersion } : {}),
    });
  },
});

const resolveItemDependents = defineCommand({
  name: 'items.resolveDependents',
  description: "Resolve the items that point at an item: clear the relation, delete them, or reassign them to another item.",
  input: resolveDependentsBody.safeExtend({ collection: z.string(), id: z.string() }),
  access: 'public',
  dangerous: true,
  async handler(context, { siteId, input, metadata, access }) {
    checkItemId(input.id);
    const { action, relation, newTargetId, hard } = input;
    return resolveDependents(context, {
      siteId,
      collection: input.collection,
      itemId: input.id,
      action,
      relation,
      access: await access(),
      metadata,
      ...(newTargetId !== undefined ? { newTargetId } : {}),
      ...(hard !== undefined ? { hard } : {}),
    });
  },
});

/**
 * The caller's access for a command on an item's history (revert, versions, pins): checked as the
 * history routes' guard does, so that a caller of `commands.run` meets the same check.
 */
async function historyAccess<TAccess extends Parameters<typeof assertMayUseHistory>[0]>(access: () => Promise<TAccess>, collection: string): Promise<TAccess> {
  const granted = await access();
  assertMayUseHistory(granted, 'update', collection);
  return granted;
}

const revert = defineCommand({
  name: 'items.revert',
  description: 'Restore an item to one of its revisions (a soft-deleted item comes back).',
  input: revertItemBody.extend(itemParams.shape),
  access: 'bearer',
  dangerous: false,
  async handler(context, { siteId, input, metadata, access }) {
    const granted = await historyAccess(access, input.collection);
    return revertItem(context, { siteId, collection: input.collection, itemId: input.id }, input.revisionId, granted, metadata);
  },
});

const promote = defineCommand({
  name: 'items.promote',
  description: "Apply a named version of an item to the item (the fields the version changed).",
  input: versionParams,
  access: 'bearer',
  dangerous: false,
  async handler(context, { siteId, input, metadata, access }) {
    const granted = await historyAccess(access, input.collection);
    return promoteVersion(context, { siteId, collection: input.collection, itemId: input.id }, input.key, granted, metadata);
  },
});

const createVersionCommand = defineCommand({
  name: 'items.createVersion',
  description: 'Create a named version (a draft) of an item, starting from the item as it is: the version.',
  input: createVersionBody.extend(itemParams.shape),
  access: 'bearer',
  dangerous: false,
  async handler(context, { siteId, input, metadata, access }) {
    const granted = await historyAccess(access, input.collection);
    const key = { siteId, collection: input.collection, itemId: input.id };
    await createVersion(context, key, { key: input.key, name: input.name }, granted, metadata);
    return context.database.withSite(siteId, (tx) => requireVersion(tx, key, input.key));
  },
});

const updateVersionCommand = defineCommand({
  name: 'items.updateVersion',
  description: "Change a named version's name or data (merged into its data; the item is not touched): the version.",
  input: versionParams.extend({ changes: updateVersionBody }),
  bodyKey: 'changes',
  access: 'bearer',
  dangerous: false,
  async handler(context, { siteId, input, metadata, access }) {
    const granted = await historyAccess(access, input.collection);
    const key = { siteId, collection: input.collection, itemId: input.id };
    await updateVersion(context, key, input.key, input.changes, granted, metadata);
    return context.database.withSite(siteId, (tx) => requireVersion(tx, key, input.key));
  },
});

const deleteVersionCommand = defineCommand({
  name: 'items.deleteVersion',
  description: 'Delete a named version of an item.',
  input: versionParams,
  access: 'bearer',
  dangerous: true,
  async handler(context, { siteId, input, metadata, access }) {
    const granted = await historyAccess(access, input.collection);
    await deleteVersion(context, { siteId, collection: input.collection, itemId: input.id }, input.key, granted, metadata);
  },
});

const pin = defineCommand({
  name: 'items.pin',
  description: 'Pin a relation field of an item (or `*`, the item itself) to a revision of the item it refers to: the pin.',
  input: pinBody.extend(itemParams.shape),
  access: 'bearer',
  dangerous: false,
  async handler(context, { siteId, input, metadata, access }) {
    const granted = await historyAccess(access, input.collection);
    return pinRevision(context, { siteId, collection: input.collection, itemId: input.id }, { field: input.field, revisionId: input.revisionId }, granted, metadata);
  },
});

const releasePinsCommand = defineCommand({
  name: 'items.releasePins',
  description: "Release one pin of an item (`field`), or every pin when no field is given: the item's relations follow their latest revisions again.",
  input: itemParams.extend({ field: pinField.optional() }),
  access: 'bearer',
  // Removes pins: what the item delivers changes at once.
  dangerous: true,
  async handler(context, { siteId, input, metadata, access }) {
    const granted = await historyAccess(access, input.collection);
    await releasePins(context, { siteId, collection: input.collection, itemId: input.id }, input.field ?? null, granted, metadata);
  },
});

export const itemCommands = {
  createItems,
  updateItem,
  deleteItem: deleteItemCommand,
  resolveItemDependents,
  revert,
  promote,
  createVersion: createVersionCommand,
  updateVersion: updateVersionCommand,
  deleteVersion: deleteVersionCommand,
  pin,
  releasePins: releasePinsCommand,
};
