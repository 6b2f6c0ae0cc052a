// Reads of items: lists (filter, sort, page, fields with nested relations, deep, aggregates) and
// single items. Every read goes through readItems, so permissions can add a row filter and a field
// mask in one place (`restrictions`), and the history can run the same code over its temporal table
// (`source`). Reads read only read models.
import { AppError } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { prepared, sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import type { Access } from '../../access/access.ts';
import { assertRowAccess, type ReadPermissions } from '../../access/itemAccess.ts';
import { assertMay, dependentSampleCondition } from '../../access/itemWriteRules.ts';
import type { Principal } from '../../auth/principal.ts';
import {
  compileAggregate,
  compileFilter,
  compileSort,
  parseFieldSelection,
  shapeAggregateRow,
  type DeepQuery,
  type FilterTree,
  type ListQuery,
} from '../../query/index.ts';
import { dynamicValuesOf } from '../../query/dynamicValues.ts';
import type { AppContext } from '../../runtime/context.ts';
import { collectionOf, type CollectionSchema } from '../../schema/siteSchema.ts';
import { dependentsOf, type DependentsReport } from './dependents.ts';
import { findLiveItem } from './historyQueries.ts';
import type { ItemRow } from './itemRecords.ts';
import { countedTotalQuery } from './itemCounts.ts';
import { baseCondition, itemColumns, LIVE_ITEMS, queryFieldsOf, type ItemSource, type ReadContext } from './itemSource.ts';
import { contentKeysOf, shapeLevel } from './relationLoader.ts';
import { searchCondition } from './itemSearch.ts';
import { logSensitiveReads } from './sensitiveReads.ts';
import { createRevealer, mayDecryptFor } from '../encryption/reveal.ts';

/** What item reads need of the application context. */
export type ItemsReadContext = Pick<AppContext, 'database' | 'projections' | 'schemas' | 'keyRing'>;

/** What permissions add to a read: rows must also match `filter`; only `fields` are shown. */
export interface ReadRestrictions {
  filter?: FilterTree | null;
  fields?: ReadonlySet<string> | null;
  /** The reader's permissions (src/access): row conditions and visible fields of every collection read. */
  permissions?: ReadPermissions;
}

export interface ReadItemsInput {
  siteId: string;
  collection: string;
  principal: Principal;
  /** X-Svc-Locale. */
  locale?: string | null;
  /** X-Svc-Draft: items show their draft where they have one. */
  draft?: boolean;
  source?: ItemSource;
  restrictions?: ReadRestrictions;
  /** The request's event metadata, for the sensitive-read log entry. */
  metadata: EventMetadata;
  now?: Date;
}

export interface ListItemsInput extends ReadItemsInput {
  query: ListQuery;
}

export interface ListItemsResult {
  /** Items; the single item (or null) of a singleton collection; aggregate rows. */
  data: unknown;
  meta?: { total?: number; limit: number; offset: number };
}

export interface GetItemInput extends ReadItemsInput {
  id: string;
  /** `fields` and `deep` of the querystring (other list parameters are ignored). */
  query?: Pick<ListQuery, 'fields' | 'deep'>;
}

/** `deep[rel][fields]=a,b` selects `rel.a,rel.b`. */
export function withDeepFields(fields: string[] | null, deep: Record<string, DeepQuery>, prefix = ''): string[] | null {
  let result = fields;
  for (const [relation, query] of Object.entries(deep)) {
    const path = `${prefix}${relation}`;
    if (query.fields) result = [...(result ?? ['*']).filter((field) => field !== path), ...query.fields.map((field) => `${path}.${field}`)];
    result = withDeepFields(result, query.deep, `${path}.`);
  }
  return result;
}

interface Prepared {
  context: ReadContext;
  collection: CollectionSchema;
  where: SqlFragment;
}

/** Runs `work`'s reads in the site with the request's read context, then logs sensitive reads. */
async function withReadContext<T>(
  app: ItemsReadContext,
  input: ReadItemsInput,
  filter: FilterTree | null,
  work: (prepared: Prepared) => Promise<T>,
  search: string | null = null,
): Promise<T> {
  const schema = await app.schemas.site(input.siteId);
  const collection = collectionOf(schema, input.collection);
  const source = input.source ?? LIVE_ITEMS;
  const dynamic = dynamicValuesOf(input.principal, input.now ?? new Date());
  const fields = schema.fieldsIn(input.locale ?? null);
  const compileContext = { alias: 'i', table: source.table, ...dynamic };
  const conditions: SqlFragment[] = [];
  if (filter) conditions.push(compileFilter(filter, { ...compileContext, fields: fields(collection.name) ?? collection.queryFields, resolveFields: fields }));
  if (search) conditions.push(searchCondition(input.siteId, collection.name, search, 'i'));
  if (input.restrictions?.filter) {
    // Permission conditions mean the same whatever language the request reads in.
    const permissionContext = { ...compileContext, fields: collection.queryFields, resolveFields: schema.resolveFields, path: ['permissions', 'filter'] };
    conditions.push(compileFilter(input.restrictions.filter, permissionContext));
  }
  const result = await app.database.withSiteReads(input.siteId, async (tx) => {
    const context: ReadContext = {
      tx,
      siteId: input.siteId,
      schema,
      source,
      dynamic,
      sensitive: [],
      revealer: createRevealer(app, input.siteId, mayDecryptFor(input.restrictions?.permissions), input.metadata),
      options: { locale: input.locale ?? null, defaultLanguage: schema.defaultLanguage, visibleFields: input.restrictions?.fields ?? null },
      fields,
      ...(input.restrictions?.permissions ? { permissions: input.restrictions.permissions } : {}),
    };
    const base = baseCondition(context, collection.name, 'i');
    const where = conditions.reduce((all, condition) => sql`${all} AND ${condition}`, base);
    const value = await work({ context, collection, where });
    return { value, sensitive: context.sensitive };
  });
  if (result.sensitive.length > 0) {
    await logSensitiveReads(app, input.siteId, result.sensitive, input.metadata);
  }
  return result.value;
}

/** Puts each item's draft over it (X-Svc-Draft reads). */
async function overlayDrafts(context: ReadContext, collection: string, rows: ItemRow[]): Promise<void> {
  if (rows.length === 0) return;
  const drafts = await context.tx.query<{ id: string; data: Record<string, unknown>; status: string | null; sort: number | null }>(sql`
    SELECT id, data, status, sort FROM item_drafts
     WHERE site_id = ${context.siteId} AND collection = ${collection} AND id = ANY(${rows.map((row) => row.id)}::text[])`);
  const byId = new Map(drafts.map((draft) => [draft.id, draft]));
  for (const row of rows) {
    const draft = byId.get(row.id);
    if (!draft) continue;
    row.data = draft.data;
    row.status = draft.status;
    row.sort = draft.sort;
  }
}

/** A page of items, or aggregates, per the list parameters. */
export async function listItems(app: ItemsReadContext, input: ListItemsInput): Promise<ListItemsResult> {
  const { query } = input;
  if (query.aggregate || query.groupBy.length > 0) return aggregateItems(app, input);
  return withReadContext(app, input, query.filter, async ({ context, collection, where }) => {
    const selection = parseFieldSelection(withDeepFields(query.fields, query.deep), collection.name, context.schema.resolveFields);
    const orderBy = compileSort(query.sort, queryFieldsOf(context, collection), 'i');
    const singleton = collection.meta.singleton;
    const limit = singleton ? 1 : query.limit;
    const offset = singleton ? 0 : query.offset;
    const counted = singleton || query.meta === 'none' ? null : countedTotalQuery(context, collection.name, query.filter, input.restrictions?.filter !== undefined || query.search !== null);
    const rows = await context.tx.query<ItemRow & { counted_total?: string }>(
      prepared(
        sql`
      SELECT ${itemColumns('i', collection, contentKeysOf(selection, collection))}${counted ? sql`, (${counted}) AS counted_total` : sql``}
        FROM ${context.source.table} i
       WHERE ${where} ORDER BY ${orderBy} LIMIT ${limit} OFFSET ${offset}`,
        { plan: 'custom' },
      ),
    );
    if (input.draft) await overlayDrafts(context, collection.name, rows);
    const items = await shapeLevel(context, collection, rows, selection, query.deep);
    if (singleton) return { data: items[0] ?? null };
    if (query.meta === 'none') return { data: items, meta: { limit, offset } };
    // A page that is not full is the end of the list, so it tells the total without counting: a
    // filter no index serves (`_contains` on a text) then reads the collection once, not twice.
    if (rows.length < limit && (rows.length > 0 || offset === 0)) return { data: items, meta: { total: offset + rows.length, limit, offset } };
    if (counted && rows.length > 0) return { data: items, meta: { total: Number(rows[0]!.counted_total), limit, offset } };
    if (counted) {
      const [row] = await context.tx.query<{ total: string }>(sql`SELECT (${counted}) AS total`);
      return { data: items, meta: { total: Number(row!.total), limit, offset } };
    }
    const [count] = await context.tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM ${context.source.table} i WHERE ${where}`);
    return { data: items, meta: { total: count?.total ?? 0, limit, offset } };
  }, query.search);
}

async function aggregateItems(app: ItemsReadContext, input: ListItemsInput): Promise<ListItemsResult> {
  const { query } = input;
  return withReadContext(app, input, query.filter, async ({ context, collection, where }) => {
    const visible = input.restrictions?.fields;
    if (visible) {
      for (const name of [...query.groupBy, ...(query.bucket ? [query.bucket.field] : []), ...Object.values(query.aggregate ?? {}).flat()]) {
        if (name !== '*' && name !== 'id' && !visible.has(name)) throw new AppError('PERMISSION_DENIED', `You may not read "${name}"`);
      }
    }
    refuseSensitiveValues(collection, query);
    const compiled = compileAggregate(query.aggregate, query.groupBy, queryFieldsOf(context, collection), 'i', query.bucket ?? null);
    const grouped = compiled.groupBy !== null;
    const rows = await context.tx.query<Record<string, unknown>>(
      grouped
        ? sql`SELECT ${compiled.select} FROM ${context.source.table} i WHERE ${where}
               GROUP BY ${compiled.groupBy!} ORDER BY ${compiled.groupBy!} LIMIT ${query.limit} OFFSET ${query.offset}`
        : sql`SELECT ${compiled.select} FROM ${context.source.table} i WHERE ${where}`,
    );
    return { data: rows.map((row) => shapeAggregateRow(row, compiled.columns)) };
  }, query.search);
}

/**
 * pii/phi values leave the service item by item, each read logged with its item (the field access
 * log), and are sealed in storage: an aggregate over them other than a count is refused (a group
 * key, a min or max would answer values; a sum, an average or a distinct count cannot be computed
 * over sealed values). Their filters are refused by the query language but for _null/_nnull.
 */
function refuseSensitiveValues(collection: CollectionSchema, query: ListItemsInput['query']): void {
  const refuse = (name: string, path: (string | number)[]) => {
    const sensitivity = collection.sensitiveFields.get(name);
    if (sensitivity) {
      throw new AppError('VALIDATION_FAILED', `"${name}" is a ${sensitivity} field: its values are read item by item, each read logged`, { path });
    }
  };
  for (const name of [...query.groupBy, ...(query.bucket ? [query.bucket.field] : [])]) refuse(name, ['groupBy']);
  for (const [fn, names] of Object.entries(query.aggregate ?? {})) {
    if (fn !== 'count') for (const name of names ?? []) refuse(name, ['aggregate', fn]);
  }
}

/** One item with the selected fields, and its version (for ETag); 404 RECORD_NOT_FOUND when missing or not visible. */
export async function getItem(app: ItemsReadContext, input: GetItemInput): Promise<{ item: Record<string, unknown>; version: number }> {
  return withReadContext(app, input, null, async ({ context, collection, where }) => {
    const query = input.query ?? { fields: null, deep: {} };
    const selection = parseFieldSelection(withDeepFields(query.fields, query.deep), collection.name, context.schema.resolveFields);
    // Led by the primary key whatever else the condition holds: one generic plan serves every id.
    const rows = await context.tx.query<ItemRow>(
      prepared(sql`
      SELECT ${itemColumns('i', collection, contentKeysOf(selection, collection))} FROM ${context.source.table} i
       WHERE ${where} AND i.id = ${input.id}`),
    );
    const row = rows[0];
    if (!row) throw new AppError('RECORD_NOT_FOUND', `Item "${input.id}" of "${collection.name}" not found`);
    if (input.draft) await overlayDrafts(context, collection.name, rows);
    const [item] = await shapeLevel(context, collection, rows, selection, query.deep);
    return { item: item!, version: row.version };
  });
}

/**
 * GET …/dependents: the item must be readable; dependents count whole (a delete is blocked by rows
 * the principal cannot see too), but samples list only readable ones.
 */
export async function getDependents(app: ItemsReadContext, access: Access, collectionName: string, itemId: string): Promise<DependentsReport> {
  assertMay(access, 'read', collectionName);
  const collection = await app.schemas.collection(access.siteId, collectionName);
  return app.database.withSite(access.siteId, async (tx) => {
    await assertRowAccess(tx, access, 'read', collection.name, itemId);
    if (!(await findLiveItem(tx, access.siteId, collection.name, itemId))) {
      throw new AppError('RECORD_NOT_FOUND', `Item "${itemId}" of "${collection.name}" not found`);
    }
    return dependentsOf(tx, access.siteId, collection, itemId, collection.references, dependentSampleCondition(access));
  });
}
