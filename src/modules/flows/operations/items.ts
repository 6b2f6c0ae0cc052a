// The item operations: read_items reads as the flow's principal through the items list query (its
// permissions, row rules and field masks); create_item, update_item and delete_item run the items
// commands through the registry, so each write is validated, authorized, audited and carries the run
// as its causation (the loop guard).
import { z } from 'zod';
import { accessFor } from '../../../access/access.ts';
import { guardItemReadBy } from '../../../access/itemGuards.ts';
import { DEFAULT_LIMIT, MAX_LIMIT, parseListQuery } from '../../../query/index.ts';
import { listItems } from '../../items/queries.ts';
import type { ItemWriteResult } from '../../items/itemStreams.ts';
import { defineOperation } from '../operation.ts';
import { collectionOption, commandRun, itemIdOption, objectOption, renderedObject } from './optionShapes.ts';

const fieldPath = z.string().min(1).max(200);

export const readItemsOperation = defineOperation({
  key: 'read_items',
  description: `Lists items of a collection as the flow's principal (its permissions apply); outputs the array of items (the item, or null, of a singleton). At most ${MAX_LIMIT}.`,
  options: z
    .object({
      collection: collectionOption,
      filter: z.record(z.string(), z.unknown()).optional().describe('A filter as the items list takes it (?filter=). Not rendered as a template.'),
      sort: z.array(fieldPath).max(10).optional().describe('Sort terms, "-" first for descending: ["-createdAt", "title"].'),
      limit: z.number().int().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT).describe(`How many items, 1–${MAX_LIMIT} (default ${DEFAULT_LIMIT}).`),
      fields: z.array(fieldPath).max(100).optional().describe('The fields to read, as ?fields= takes them ("author.name"); default all the principal may read.'),
    })
    .strict(),
  sideEffects: false,
  raw: ['filter'],
  async run(options, call) {
    const { context, siteId, principal } = call;
    const parameters: Record<string, string> = { limit: String(options.limit ?? DEFAULT_LIMIT), meta: 'none' };
    if (options.sort) parameters.sort = options.sort.join(',');
    if (options.fields) parameters.fields = options.fields.join(',');
    const query = { ...parseListQuery(parameters), filter: options.filter ?? null };
    const access = await accessFor(context, siteId, principal);
    const restrictions = await guardItemReadBy(context, access, options.collection, { ...query, locale: null });
    const result = await listItems(context, { siteId, collection: options.collection, query, restrictions, principal, metadata: call.metadata });
    return result.data;
  },
});

export const createItemOperation = defineOperation({
  key: 'create_item',
  description: 'Creates an item (items.create, as the flow\'s principal); outputs { id, version }.',
  options: z.object({ collection: collectionOption, item: objectOption('The item\'s fields (templates allowed), or "{{ $last }}".') }).strict(),
  sideEffects: true,
  async run(options, call) {
    const input = { collection: options.collection, items: renderedObject(options.item, 'item') };
    const [created] = await call.context.commands.run<ItemWriteResult[]>('items.create', input, commandRun(call));
    return { id: created!.snapshot.id, version: created!.version };
  },
});

export const updateItemOperation = defineOperation({
  key: 'update_item',
  description: "Changes the given fields of an item (items.update, as the flow's principal); outputs { id, version }.",
  options: z.object({ collection: collectionOption, id: itemIdOption, changes: objectOption('The fields to set (templates allowed).') }).strict(),
  sideEffects: true,
  async run(options, call) {
    const input = { collection: options.collection, id: String(options.id), changes: renderedObject(options.changes, 'changes') };
    const updated = await call.context.commands.run<ItemWriteResult>('items.update', input, commandRun(call));
    return { id: updated.snapshot.id, version: updated.version };
  },
});

export const deleteItemOperation = defineOperation({
  key: 'delete_item',
  description: "Deletes an item (items.delete, as the flow's principal; a soft delete); outputs { id, deleted: true }.",
  options: z.object({ collection: collectionOption, id: itemIdOption }).strict(),
  sideEffects: true,
  async run(options, call) {
    const id = String(options.id);
    await call.context.commands.run('items.delete', { collection: options.collection, id }, commandRun(call));
    return { id, deleted: true };
  },
});
