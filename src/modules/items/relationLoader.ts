// Loads the relations a field selection names (`author.name`, `comments.*`, `blocks.item.title`) for a
// whole page of items at once: one query per relation (per target collection, for m2a items) per
// level, never one per item. m2o fields become the related item (null when missing or filtered out);
// to-many fields become lists (of ids when named alone); an m2a junction's item field becomes the item
// of the collection its row names. `deep` parameters apply per relation, and per target collection of
// an m2a item field (`deep[blocks][item:headings][filter]`, see src/query/anyItemDeep.ts).
import { AppError } from '../../../domain/shared/appError.ts';
import { prepared, sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { listParamOf, splitDeepKey, topLevelFilterFields, unscopedDeepAppliesTo } from '../../query/anyItemDeep.ts';
import { lookupField } from '../../query/fieldExpressions.ts';
import {
  compileFilter,
  compileSort,
  STRUCTURAL_COLUMNS,
  type AnyItemSelection,
  type DeepQuery,
  type FieldSelection,
  type RelationSelection,
  type SortSpec,
} from '../../query/index.ts';
import type { CollectionSchema, SiteSchema } from '../../schema/siteSchema.ts';
import { isShownValue } from './historyItemRows.ts';
import { shapeRow, type ItemRow } from './itemRecords.ts';
import { baseCondition, itemColumns, queryFieldsOf, type ReadContext } from './itemSource.ts';

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

/**
 * Records the pii/phi fields a level returned, per item: `items` are `rows` as shaped, in order (the
 * id comes from the row, as a selection such as `fields=email` returns no id).
 */
export function noteSensitiveReads(
  context: ReadContext,
  collection: CollectionSchema,
  rows: readonly ItemRow[],
  items: readonly Record<string, unknown>[],
  fields: readonly string[],
): void {
  const sensitive = fields.filter((name) => collection.sensitiveFields.has(name));
  if (sensitive.length === 0) return;
  items.forEach((item, index) => {
    const returned = sensitive.filter((name) => name in item && isShownValue(item[name]));
    if (returned.length === 0) return;
    context.sensitive.push({
      collection: collection.name,
      itemId: rows[index]!.id,
      fields: returned.map((field) => ({ field, sensitivity: collection.sensitiveFields.get(field)! })),
    });
  });
}

/** An items row's structural fields as the API names them (read_decrypted conditions may test them). */
function structuralOf(row: ItemRow): Record<string, unknown> {
  return { id: row.id, status: row.status, sort: row.sort, createdAt: row.created_at, updatedAt: row.updated_at, userCreated: row.user_created, userUpdated: row.user_updated };
}

/** The rows with their sealed pii/phi values opened, or masked for a reader without `read_decrypted`. */
async function revealRows(context: ReadContext, collection: CollectionSchema, rows: readonly ItemRow[]): Promise<readonly ItemRow[]> {
  if (collection.sensitiveFields.size === 0) return rows;
  const contents = await context.revealer.reveal(
    context.tx,
    collection,
    rows.map((row) => ({ itemId: row.id, content: row.data, record: () => ({ ...row.data, ...structuralOf(row) }) })),
  );
  return rows.map((row, index) => (contents[index] === row.data ? row : { ...row, data: contents[index]! }));
}

type Path = readonly (string | number)[];

/** Where an error in `deep[a][b][filter]` points. */
function deepPath(path: Path, key: string | number): (string | number)[] {
  return ['deep', ...path, key];
}

function deepInvalid(message: string, path: (string | number)[]): AppError {
  return new AppError('VALIDATION_FAILED', message, { path });
}

/** `deep[blocks][item:headings]`, as the client wrote it in the bracket form. */
function deepKeyText(path: Path): string {
  return `deep[${path.join('][')}]`;
}

/** One `deep` entry of a level, with the path of its key below `deep` (`['blocks', 'item:quotes', 'author']`). */
interface DeepEntry {
  query: DeepQuery;
  path: Path;
}

/** A level's `deep` entries by key: relation fields, m2a item fields and their `<field>:<collection>` scopes. */
type DeepLevel = ReadonlyMap<string, DeepEntry>;

function deepLevel(deep: Record<string, DeepQuery> | undefined, prefix: Path): Map<string, DeepEntry> {
  return new Map(Object.entries(deep ?? {}).map(([key, query]) => [key, { query, path: [...prefix, key] }]));
}

/** Shapes the rows a read returns (the top level) and loads their relations. */
export async function shapeLevel(
  context: ReadContext,
  collection: CollectionSchema,
  rows: readonly ItemRow[],
  selection: FieldSelection,
  deep: Record<string, DeepQuery>,
): Promise<Record<string, unknown>[]> {
  checkAnyItemDeep(context.schema, collection, deep, []);
  return shapeItems(context, collection, rows, selection, deepLevel(deep, []), true);
}

async function shapeItems(
  context: ReadContext,
  collection: CollectionSchema,
  rows: readonly ItemRow[],
  selection: FieldSelection,
  deep: DeepLevel,
  top: boolean,
): Promise<Record<string, unknown>[]> {
  // Permissions show each collection's own readable fields (the top level may also be narrowed by the caller).
  const permitted = context.permissions?.visibleFields(collection.name) ?? null;
  const visibleFields = top ? intersect(context.options.visibleFields, permitted) : permitted;
  const options = visibleFields === context.options.visibleFields ? context.options : { ...context.options, visibleFields };
  const opened = await revealRows(context, collection, rows);
  const items = opened.map((row) => shapeRow(row, selection.local, collection, options));
  noteSensitiveReads(context, collection, rows, items, selection.local);
  for (const relation of selection.relations.values()) {
    if (visibleFields && !visibleFields.has(relation.field)) continue;
    await loadRelation(context, rows, items, relation, deep.get(relation.field));
  }
  for (const anyItem of selection.anyItems.values()) {
    if (visibleFields && !visibleFields.has(anyItem.field)) continue;
    await loadAnyItems(context, rows, items, anyItem, deep);
  }
  return items;
}

/**
 * Checks the keys of the whole `deep` tree that concern m2a targets, whether or not the fields
 * expand them: `<field>:<collection>` must name the item field of an m2a junction and one of its
 * allowed collections; a target (scoped or not) takes no sort/limit/offset/page; an unscoped target
 * filter must test fields some allowed collection has. Other keys are checked where they apply.
 */
function checkAnyItemDeep(schema: SiteSchema, collection: CollectionSchema, deep: Record<string, DeepQuery>, path: Path): void {
  for (const [key, query] of Object.entries(deep)) {
    const keyPath = [...path, key];
    const { field: name, scope } = splitDeepKey(key);
    const field = STRUCTURAL_COLUMNS.has(name) ? undefined : collection.queryFields.get(name);
    const anyItem = field?.anyItem;
    if (scope !== null) {
      if (!anyItem) {
        const message = `"${name}" of "${collection.name}" is not the item field of a many-to-any relation, so "${deepKeyText(keyPath)}" cannot be used`;
        throw deepInvalid(message, deepPath(path, key));
      }
      if (!schema.collections.has(scope)) throw deepInvalid(`Unknown collection "${scope}" in "${deepKeyText(keyPath)}"`, deepPath(path, key));
      if (!anyItem.allowedCollections.includes(scope)) {
        const message = `"${deepKeyText(keyPath)}" names a collection the relation does not allow (allowed: ${anyItem.allowedCollections.join(', ')})`;
        throw deepInvalid(message, deepPath(path, key));
      }
    }
    if (anyItem) {
      const param = listParamOf(query);
      if (param) throw deepInvalid(`"${deepKeyText(keyPath)}" is a single item: it takes filter, fields and nested relations, not "${param}"`, deepPath(keyPath, param));
      const allowed = anyItem.allowedCollections.flatMap((target) => schema.collections.get(target) ?? []);
      const targets = scope !== null ? allowed.filter((target) => target.name === scope) : unscopedTargets(allowed, query, keyPath);
      for (const target of targets) checkAnyItemDeep(schema, target, query.deep, keyPath);
      continue;
    }
    const related = field?.relation ? schema.collections.get(field.relation.relatedCollection) : undefined;
    if (related) checkAnyItemDeep(schema, related, query.deep, keyPath);
  }
}

/** The allowed collections unscoped target parameters apply to; 400 when their filter fits none. */
function unscopedTargets(allowed: readonly CollectionSchema[], query: DeepQuery, keyPath: Path): CollectionSchema[] {
  const targets = allowed.filter((target) => unscopedDeepAppliesTo(query, target.queryFields));
  if (targets.length > 0 || allowed.length === 0) return targets;
  const names = allowed.map((target) => target.name).join(', ');
  for (const { name, path } of topLevelFilterFields(query.filter)) {
    if (!allowed.some((target) => lookupField(target.queryFields, name) !== undefined)) {
      throw deepInvalid(`Unknown field "${name}": no collection "${deepKeyText(keyPath)}" may point at (${names}) has it`, [...deepPath(keyPath, 'filter'), ...path]);
    }
  }
  const message = `No collection "${deepKeyText(keyPath)}" may point at (${names}) has every field its filter tests; scope the filter, e.g. "${deepKeyText([...keyPath.slice(0, -1), `${String(keyPath.at(-1))}:${allowed[0]!.name}`])}"`;
  throw deepInvalid(message, deepPath(keyPath, 'filter'));
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
  entry: DeepEntry | undefined,
): Promise<void> {
  const deep = entry?.query;
  const path = entry?.path ?? [relation.field];
  const related = context.schema.collections.get(relation.collection);
  if (!related) throw new AppError('VALIDATION_FAILED', `Field "${relation.field}" points at an unknown collection`, { path: ['fields'] });
  const filter = deep?.filter
    ? sql` AND ${compileFilter(deep.filter, {
        alias: 'r',
        fields: queryFieldsOf(context, related),
        resolveFields: context.fields,
        table: context.source.table,
        path: deepPath(path, 'filter'),
        ...context.dynamic,
      })}`
    : sql``;
  const columns = itemColumns('r', related, contentKeysOf(relation.selection, related));
  const childDeep = deepLevel(deep?.deep, path);

  if (relation.kind === 'm2o') {
    const ids = [...new Set(rows.map((row) => row.data[relation.field]).filter((id): id is string => typeof id === 'string'))];
    const children =
      ids.length === 0
        ? []
        : // Led by the primary key: one generic plan serves every batch of ids.
          await context.tx.query<ItemRow>(
            prepared(sql`
            SELECT ${columns} FROM ${context.source.table} r
             WHERE ${baseCondition(context, related.name, 'r')} AND r.id = ANY(${ids}::text[])${filter}`),
          );
    const shaped = await shapeItems(context, related, children, relation.selection, childDeep, false);
    const byId = new Map(shaped.map((item, index) => [children[index]!.id, item]));
    rows.forEach((row, index) => {
      const id = row.data[relation.field];
      items[index]![relation.field] = typeof id === 'string' ? (byId.get(id) ?? null) : null;
    });
    return;
  }

  const foreignKey = relation.relatedField;
  if (!foreignKey) throw new AppError('VALIDATION_FAILED', `Relation "${relation.field}" names no field on the related side`, { path: ['fields'] });
  const parentIds = [...new Set(rows.map((row) => row.id))];
  const sort: SortSpec[] = deep?.sort?.length ? deep.sort : related.meta.sort_field ? [{ field: related.meta.sort_field, direction: 'asc' }] : [];
  const limit = deep?.limit ?? DEFAULT_NESTED_LIMIT;
  const offset = deep?.offset ?? (deep?.page ? (deep.page - 1) * limit : 0);
  let orderBy;
  try {
    orderBy = compileSort(sort, queryFieldsOf(context, related), 'r');
  } catch (error) {
    if (error instanceof AppError) throw error.at(deepPath(path, 'sort'));
    throw error;
  }
  const parentKey = sql`(r.data ->> ${foreignKey}::text)`;
  const children =
    parentIds.length === 0
      ? []
      : // Planned for its values: the foreign key's index is a partial index of the collection.
        await context.tx.query<ItemRow & { parent_id: string }>(
          prepared(
            sql`
          SELECT * FROM (
            SELECT ${columns}, ${parentKey} AS parent_id, row_number() OVER (PARTITION BY ${parentKey} ORDER BY ${orderBy}) AS rank_in_parent
              FROM ${context.source.table} r
             WHERE ${baseCondition(context, related.name, 'r')} AND ${parentKey} = ANY(${parentIds}::text[])${filter}
          ) ranked
           WHERE rank_in_parent > ${offset} AND rank_in_parent <= ${offset + limit}
           ORDER BY parent_id, rank_in_parent`,
            { plan: 'custom' },
          ),
        );
  const shaped = relation.idsOnly ? children.map((child) => child.id) : await shapeItems(context, related, children, relation.selection, childDeep, false);
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

/** How the targets of one collection are read: the filters of the deep entries that apply, and the deep of their own relations. */
interface TargetPlan {
  filter: SqlFragment;
  deep: DeepLevel;
}

/**
 * The deep parameters of each allowed collection's targets: the unscoped entry (`deep[blocks][item]`)
 * when it applies to the collection, then the scoped one (`deep[blocks][item:headings]`). Both
 * filters apply; for a nested relation both name, the scoped entry's parameters win. Filters are
 * compiled for every allowed collection, expanded or not, so that a bad one is refused either way.
 */
function targetPlans(context: ReadContext, anyItem: AnyItemSelection, deep: DeepLevel): Map<string, TargetPlan> {
  const unscoped = deep.get(anyItem.field);
  const plans = new Map<string, TargetPlan>();
  for (const name of anyItem.allowedCollections) {
    const related = context.schema.collections.get(name);
    if (!related) continue;
    const scoped = deep.get(`${anyItem.field}:${name}`);
    const entries = [unscoped && unscopedDeepAppliesTo(unscoped.query, related.queryFields) ? unscoped : undefined, scoped].filter(
      (entry): entry is DeepEntry => entry !== undefined,
    );
    let filter = sql``;
    const childDeep = new Map<string, DeepEntry>();
    for (const entry of entries) {
      if (entry.query.filter) {
        filter = sql`${filter} AND ${compileFilter(entry.query.filter, {
          alias: 'r',
          fields: queryFieldsOf(context, related),
          resolveFields: context.fields,
          table: context.source.table,
          path: deepPath(entry.path, 'filter'),
          ...context.dynamic,
        })}`;
      }
      for (const [key, child] of deepLevel(entry.query.deep, entry.path)) childDeep.set(key, child);
    }
    plans.set(name, { filter, deep: childDeep });
  }
  return plans;
}

/**
 * Expands the item field of m2a junction rows: one query per target collection for the whole level.
 * Each target collection is read as an m2o target is (its rows and fields as the reader may see
 * them, soft-deleted items absent, the deep filter applied); a row naming a collection the relation
 * does not allow reads null.
 */
async function loadAnyItems(context: ReadContext, rows: readonly ItemRow[], items: Record<string, unknown>[], anyItem: AnyItemSelection, deep: DeepLevel): Promise<void> {
  const targetOf = (row: ItemRow) => {
    const collection = row.data[anyItem.collectionField];
    const id = row.data[anyItem.field];
    return { collection: typeof collection === 'string' ? collection : null, id: typeof id === 'string' ? id : null };
  };
  const plans = targetPlans(context, anyItem, deep);
  const loaded = new Map<string, Map<string, Record<string, unknown>>>();
  for (const [name, selection] of anyItem.targets) {
    const related = context.schema.collections.get(name);
    const plan = plans.get(name);
    const ids = [...new Set(rows.map(targetOf).flatMap((target) => (target.collection === name && target.id !== null ? [target.id] : [])))];
    if (!related || !plan || ids.length === 0) continue;
    const children = await context.tx.query<ItemRow>(
      prepared(sql`
      SELECT ${itemColumns('r', related, contentKeysOf(selection, related))} FROM ${context.source.table} r
       WHERE ${baseCondition(context, related.name, 'r')} AND r.id = ANY(${ids}::text[])${plan.filter}`),
    );
    const shaped = await shapeItems(context, related, children, selection, plan.deep, false);
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
