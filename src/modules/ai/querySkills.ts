// The read-only skills (docs/ai-skills.md): queries registered in the command registry like any
// command (`readOnly`, `skill`), so an agent reads items through the very read path of the items
// routes and of GET /search (the query compiler, the principal's read permissions, the sealed-value
// revealer and the sensitive-read log), never a second one. They write nothing but what a read writes
// (the field access log of pii/phi values shown).
import { z } from 'zod';
import { AppError } from '../../../domain/shared/appError.ts';
import { guardItemReadBy, guardSearchBy } from '../../access/itemGuards.ts';
import { itemReadPermissions } from '../../access/itemAccess.ts';
import type { Access } from '../../access/access.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { parseListQuery, type ListQuery } from '../../query/index.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import type { AppContext } from '../../runtime/context.ts';
import { collectionOf, type CollectionSchema } from '../../schema/siteSchema.ts';
import { createRevealer, mayDecryptFor } from '../encryption/reveal.ts';
import { getItem, listItems } from '../items/queries.ts';
import { logHistoryReads } from '../items/historyItemRows.ts';
import { searchItems } from '../search/queries.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { Principal } from '../../auth/principal.ts';

/** At most this many items per read skill call (the items routes allow 200; an agent's context is smaller). */
export const MAX_SKILL_ITEMS = 100;
/** How many of the newest items a summary names. */
export const SUMMARY_LATEST = 5;

const collectionName = z.string().min(1).max(64);
const fieldPath = z.string().min(1).max(200);

export const listItemsInput = z
  .object({
    collection: collectionName,
    /** A filter of the query language, as the items routes' JSON `filter`. */
    filter: z.record(z.string(), z.unknown()).optional(),
    /** Fields to sort by, `-` for descending (`-createdAt`). */
    sort: z.array(fieldPath).max(10).optional(),
    fields: z.array(fieldPath).max(100).optional(),
    limit: z.number().int().min(1).max(MAX_SKILL_ITEMS).default(25),
    offset: z.number().int().min(0).max(1_000_000).default(0),
  })
  .strict();

export const readItemInput = z.object({ collection: collectionName, id: z.string().min(1).max(128), fields: z.array(fieldPath).max(100).optional() }).strict();

export const searchItemsInput = z
  .object({
    q: z.string().trim().min(1, 'q must not be empty').max(500),
    collections: z.array(collectionName).min(1).max(20).optional(),
    limit: z.number().int().min(1).max(MAX_SKILL_ITEMS).default(20),
  })
  .strict();

export const summarizeInput = z.object({ collection: collectionName }).strict();

/** A list parameter's refusal (parsing or compiling it), at the skill input's path (`input.filter.<field>`), as the skill runner answers input errors. */
async function inInput<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError && error.path.length > 0 && error.path[0] !== 'input') throw error.at(['input', ...error.path]);
    throw error;
  }
}

function listQueryOf(input: { filter?: Record<string, unknown> | undefined; sort?: string[] | undefined; fields?: string[] | undefined; limit: number; offset: number }): Promise<ListQuery> {
  return inInput(() =>
    parseListQuery({
      ...(input.filter ? { filter: JSON.stringify(input.filter) } : {}),
      ...(input.sort ? { sort: input.sort.join(',') } : {}),
      ...(input.fields ? { fields: input.fields.join(',') } : {}),
      limit: String(input.limit),
      offset: String(input.offset),
    }),
  );
}

interface ReadCall {
  siteId: string;
  principal: Principal;
  metadata: EventMetadata;
  access: Access;
}

async function listAs(context: AppContext, call: ReadCall, collection: string, query: ListQuery) {
  const restrictions = await inInput(() => guardItemReadBy(context, call.access, collection, { ...query, locale: null }));
  return inInput(() => listItems(context, { siteId: call.siteId, collection, query, restrictions, principal: call.principal, locale: null, draft: false, metadata: call.metadata }));
}

/** The field that names an item in a summary: a title-like field, else the first text field, else none (the id). */
export function displayFieldOf(collection: CollectionSchema): string | null {
  const readable = [...collection.fields.values()].filter((field) => !collection.sensitiveFields.has(field.field) && !collection.hashFields.has(field.field));
  const named = readable.find((field) => ['title', 'name', 'label', 'headline', 'subject'].includes(field.field));
  if (named) return named.field;
  return readable.find((field) => field.type === 'string' || field.type === 'text')?.field ?? null;
}

const list = defineCommand({
  name: 'items.list',
  description: `List items of a collection: { collection, filter?, sort?, fields?, limit (at most ${MAX_SKILL_ITEMS}), offset }, with the caller's read permissions.`,
  input: listItemsInput,
  access: 'bearer',
  dangerous: false,
  skill: true,
  readOnly: true,
  async handler(context, { siteId, principal, input, metadata, access }) {
    const result = await listAs(context, { siteId, principal, metadata, access: await access() }, input.collection, await listQueryOf(input));
    return { items: result.data, meta: result.meta ?? null };
  },
});

const read = defineCommand({
  name: 'items.read',
  description: 'Read one item of a collection by id: { collection, id, fields? }; an item the caller may not read is not found.',
  input: readItemInput,
  access: 'bearer',
  dangerous: false,
  skill: true,
  readOnly: true,
  async handler(context, { siteId, principal, input, metadata, access }) {
    const granted = await access();
    const query = await listQueryOf({ fields: input.fields, limit: 1, offset: 0 });
    const restrictions = await guardItemReadBy(context, granted, input.collection, { filter: null, sort: [], deep: {}, locale: null });
    return inInput(() =>
      getItem(context, { siteId, collection: input.collection, id: input.id, query: { fields: query.fields, deep: {} }, restrictions, principal, locale: null, draft: false, metadata }),
    );
  },
});

const search = defineCommand({
  name: 'items.search',
  description: `Full-text search of items: { q, collections?, limit (at most ${MAX_SKILL_ITEMS}) }, ranked, in the collections the caller may read whole.`,
  input: searchItemsInput,
  access: 'bearer',
  dangerous: false,
  skill: true,
  readOnly: true,
  async handler(context, { siteId, input, metadata, access }) {
    const granted = await access();
    const schema = await context.schemas.site(siteId);
    for (const [index, name] of (input.collections ?? []).entries()) {
      if (!schema.collections.has(name)) throw new AppError('NOT_FOUND', `Collection "${name}" not found`, { path: ['input', 'collections', index] });
    }
    const collections = input.collections ?? null;
    const guarded = await guardSearchBy(context, granted, collections, ['input', 'collections']);
    // Administrators pass the guard unrestricted: the collections asked for still bound the search.
    const permitted = guarded ?? (collections ? sql`i.collection = ANY(${collections}::text[])` : null);
    const revealer = createRevealer(context, siteId, mayDecryptFor(itemReadPermissions(granted)), metadata);
    const result = await context.database.withSite(siteId, (tx) =>
      searchItems(tx, schema, { q: input.q, collection: collections?.length === 1 ? collections[0]! : null, limit: input.limit, page: 1, permitted, locale: null }, revealer),
    );
    await logHistoryReads(context, { siteId, metadata }, result.sensitive);
    return { hits: result.hits, total: result.total };
  },
});

const summarize = defineCommand({
  name: 'items.summarize',
  description: `Summarize a collection: { collection } → how many items the caller may read, how many per status, and the ${SUMMARY_LATEST} newest by their display field.`,
  input: summarizeInput,
  access: 'bearer',
  dangerous: false,
  skill: true,
  readOnly: true,
  async handler(context, { siteId, principal, input, metadata, access }) {
    const call = { siteId, principal, metadata, access: await access() };
    const collection = collectionOf(await context.schemas.site(siteId), input.collection);
    const grouped = await listAs(context, call, collection.name, {
      ...(await listQueryOf({ limit: MAX_SKILL_ITEMS, offset: 0 })),
      aggregate: { count: ['*'] },
      groupBy: ['status'],
    });
    const groups = grouped.data as { status: string | null; count: number }[];
    const total = groups.reduce((sum, group) => sum + Number(group.count), 0);
    const byStatus = groups.some((group) => group.status !== null) ? Object.fromEntries(groups.map((group) => [group.status ?? 'null', Number(group.count)])) : null;
    const display = displayFieldOf(collection);
    const fields = display !== null && call.access.allowedFields('read', collection.name).has(display) ? ['id', display, 'createdAt'] : ['id', 'createdAt'];
    const latest = await listAs(context, call, collection.name, await listQueryOf({ fields, sort: ['-createdAt'], limit: SUMMARY_LATEST, offset: 0 }));
    const items = latest.data as Record<string, unknown>[];
    return {
      collection: collection.name,
      total,
      byStatus,
      displayField: display,
      latest: items.map((item) => ({ id: item.id, display: display !== null ? (item[display] ?? null) : null, createdAt: item.createdAt ?? null })),
    };
  },
});

export const querySkillCommands = { list, read, search, summarize };
