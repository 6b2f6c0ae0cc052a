// Loads the relations a field selection names (`author.name`, `comments.*`, `blocks.item.title`) for a
// whole page of items at once: one query per relation (per target collection, for m2a items) per
// level, never one per item. m2o fields become the related item (null when missing or filtered out);
// to-many fields become lists (of ids when named alone); an m2a junction's item field becomes the item
// of the collection its row names.
import { AppError } from '../../../domain/shared/appError.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import {
  compileFilter,
  compileSort,
  type AnyItemSelection,
  type DeepQuery,
  type FieldSelection,
  type RelationSelection,
  type SortSpec,
} from '../../query/index.ts';
import type { CollectionSchema } from '../schema/siteSchema.ts';
import { shapeRow, type ItemRow } from './itemRecords.ts';
import { baseCondition, itemColumns, tableOf, type ReadContext } from './itemSource.ts';

/** Related items listed per parent when `deep[<field>][limit]` does not say. */
export const DEFAULT_NESTED_LIMIT = 100;

/** Content keys a level must read: its selected content fields and the m2o fields it follows. */
export function contentKeysOf(selection: FieldSelection, collection: CollectionSchema): string[] {
  const keys = new Set<string>();
  for (const name of selection.local) if (collection.fields.has(name) && name !== 'status' && name !== 'sort') keys.add(name);
  for (const relation of selection.relations.values()) if (relation.kind === 'm2o') keys.add(relation.field);
  for (const anyItem of selection.anyItems.values()) {
    keys.add(anyItem.field);
    keys.add(anyItem.collectionField);
  }
  return [...keys];
}

/** Records the pii/phi fields a level returned. */
export function noteSensitiveReads(context: ReadContext, collection: CollectionSchema, items: readonly Record<string, unknown>[], fields: readonly string[]): void {
  const sensitive = fields.filter((name) => collection.sensitiveFields.has(name));
  if (sensitive.length === 0) return;
  for (const item of items) {
    const returned = sensitive.filter((name) => name in item);
    if (returned.length === 0 || typeof item.id !== 'string') continue;
    context.sensitive.push({
      collection: collection.name,
      itemId: item.id,
      fields: returned.map((field) => ({ field, sensitivity: collection.sensitiveFields.get(field)! })),
    });
  }
}

/** Where an error in `deep[a][b][filter]` points. */
function deepPath(path: readonly (string | number)[], key: string): (string | number)[] {
  return ['deep', ...path, key];
}

/** Shapes rows of one level and loads their own relations. */
export async function shapeLevel(
  context: ReadContext,
  collection: CollectionSchema,
  rows: readonly ItemRow[],
  selection: FieldSelection,
  deep: Record<string, DeepQuery>,
  deepPathPrefix: readonly (string | number)[],
): Promise<Record<string, unknown>[]> {
  // Permissions show each collection's own readable fields (the top level may also be narrowed by the caller).
  const permitted = context.permissions?.visibleFields(collection.name) ?? null;
  const visibleFields = deepPathPrefix.length === 0 ? intersect(context.options.visibleFields, permitted) : permitted;
  const options = visibleFields === context.options.visibleFields ? context.options : { ...context.options, visibleFields };
  const items = rows.map((row) => shapeRow(row, selection.local, collection, options));
  noteSensitiveReads(context, collection, items, selection.local);
  for (const relation of selection.relations.values()) {
    if (visibleFields && !visibleFields.has(relation.field)) continue;
    await loadRelation(context, rows, items, relation, deep[relation.field], [...deepPathPrefix, relation.field]);
  }
  for (const anyItem of selection.anyItems.values()) {
    if (visibleFields && !visibleFields.has(anyItem.field)) continue;
    await loadAnyItems(context, rows, items, anyItem, [...deepPathPrefix, anyItem.field]);
  }
  return items;
}

function intersect(a: ReadonlySet<string> | null, b: ReadonlySet<string> | null): ReadonlySet<string> | null {
  if (a === null) return b;
  if (b === null) return a;
  return new Set([...a].filter((name) => b.has(name)));
}

async function loadRelation(
  context: ReadContext,
  rows: readonly ItemRow[],
  items: Record<string, unknown>[],
  relation: RelationSelection,
  deep: DeepQuery | undefined,
  path: readonly (string | number)[],
): Promise<void> {
  const related = context.schema.collections.get(relation.collection);
  if (!related) throw new AppError('VALIDATION_FAILED', 400, `Field "${relation.field}" points at an unknown collection`, { path: ['fields'] });
  const filter = deep?.filter
    ? sql` AND ${compileFilter(deep.filter, {
        alias: 'r',
        fields: related.queryFields,
        resolveFields: context.schema.resolveFields,
        table: context.source.table,
        path: deepPath(path, 'filter'),
        ...context.dynamic,
      })}`
    : sql``;
  const columns = itemColumns('r', related, contentKeysOf(relation.selection, related));
  const childDeep = deep?.deep ?? {};

  if (relation.kind === 'm2o') {
    const ids = [...new Set(rows.map((row) => row.data[relation.field]).filter((id): id is string => typeof id === 'string'))];
    const children =
      ids.length === 0
        ? []
        : await context.tx.query<ItemRow>(sql`
            SELECT ${columns} FROM ${tableOf(context.source)} r
             WHERE ${baseCondition(context, related.name, 'r')} AND r.id = ANY(${ids}::text[])${filter}`);
    const shaped = await shapeLevel(context, related, children, relation.selection, childDeep, path);
    const byId = new Map(shaped.map((item, index) => [children[index]!.id, item]));
    rows.forEach((row, index) => {
      const id = row.data[relation.field];
      items[index]![relation.field] = typeof id === 'string' ? (byId.get(id) ?? null) : null;
    });
    return;
  }

  const foreignKey = relation.relatedField;
  if (!foreignKey) throw new AppError('VALIDATION_FAILED', 400, `Relation "${relation.field}" names no field on the related side`, { path: ['fields'] });
  const parentIds = [...new Set(rows.map((row) => row.id))];
  const sort: SortSpec[] = deep?.sort?.length ? deep.sort : related.meta.sort_field ? [{ field: related.meta.sort_field, direction: 'asc' }] : [];
  const limit = deep?.limit ?? DEFAULT_NESTED_LIMIT;
  const offset = deep?.offset ?? (deep?.page ? (deep.page - 1) * limit : 0);
  let orderBy;
  try {
    orderBy = compileSort(sort, related.queryFields, 'r');
  } catch (error) {
    if (error instanceof AppError) throw new AppError(error.code, error.status, error.message, { path: deepPath(path, 'sort') });
    throw error;
  }
  const parentKey = sql`(r.data ->> ${foreignKey}::text)`;
  const children =
    parentIds.length === 0
      ? []
      : await context.tx.query<ItemRow & { parent_id: string }>(sql`
          SELECT * FROM (
            SELECT ${columns}, ${parentKey} AS parent_id, row_number() OVER (PARTITION BY ${parentKey} ORDER BY ${orderBy}) AS rank_in_parent
              FROM ${tableOf(context.source)} r
             WHERE ${baseCondition(context, related.name, 'r')} AND ${parentKey} = ANY(${parentIds}::text[])${filter}
          ) ranked
           WHERE rank_in_parent > ${offset} AND rank_in_parent <= ${offset + limit}
           ORDER BY parent_id, rank_in_parent`);
  const shaped = relation.idsOnly ? children.map((child) => child.id) : await shapeLevel(context, related, children, relation.selection, childDeep, path);
  const byParent = new Map<string, unknown[]>();
  children.forEach((child, index) => {
    const list = byParent.get(child.parent_id) ?? [];
    list.push(shaped[index]);
    byParent.set(child.parent_id, list);
  });
  rows.forEach((row, index) => {
    items[index]![relation.field] = byParent.get(row.id) ?? [];
  });
}

/**
 * Expands the item field of m2a junction rows: one query per target collection for the whole level.
 * Each target collection is read as an m2o target is (its rows and fields as the reader may see
 * them, soft-deleted items absent); a row naming a collection the relation does not allow reads null.
 */
async function loadAnyItems(
  context: ReadContext,
  rows: readonly ItemRow[],
  items: Record<string, unknown>[],
  anyItem: AnyItemSelection,
  path: readonly (string | number)[],
): Promise<void> {
  const targetOf = (row: ItemRow) => {
    const collection = row.data[anyItem.collectionField];
    const id = row.data[anyItem.field];
    return { collection: typeof collection === 'string' ? collection : null, id: typeof id === 'string' ? id : null };
  };
  const loaded = new Map<string, Map<string, Record<string, unknown>>>();
  for (const [name, selection] of anyItem.targets) {
    const related = context.schema.collections.get(name);
    const ids = [...new Set(rows.map(targetOf).flatMap((target) => (target.collection === name && target.id !== null ? [target.id] : [])))];
    if (!related || ids.length === 0) continue;
    const children = await context.tx.query<ItemRow>(sql`
      SELECT ${itemColumns('r', related, contentKeysOf(selection, related))} FROM ${tableOf(context.source)} r
       WHERE ${baseCondition(context, related.name, 'r')} AND r.id = ANY(${ids}::text[])`);
    const shaped = await shapeLevel(context, related, children, selection, {}, path);
    loaded.set(name, new Map(shaped.map((item, index) => [children[index]!.id, item])));
  }
  rows.forEach((row, index) => {
    const { collection, id } = targetOf(row);
    let value: unknown = null;
    if (collection !== null && id !== null && context.schema.collections.has(collection) && anyItem.allowedCollections.includes(collection)) {
      value = anyItem.targets.has(collection) ? (loaded.get(collection)?.get(id) ?? null) : id;
    }
    items[index]![anyItem.field] = value;
  });
}
