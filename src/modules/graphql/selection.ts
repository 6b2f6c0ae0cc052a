// A GraphQL selection set as the REST read path's field list and `deep` parameters: `{ id title
// author { name } comments(limit: 5) { body } }` reads as fields `id,title,author.name,comments.body`
// with `deep[comments][_limit]=5`. One read then loads every nested relation level in one batch
// (src/modules/items/relationLoader.ts), so a request's SQL statements grow with its depth, never
// with its rows. `_data` reads every field of its level. Fragments are followed.
//
// A to-many relation selected again with other arguments (aliases: `all: comments(limit: 10)`,
// `page: comments(limit: 2, offset: 1)`) cannot share that read, which holds one answer per field:
// the first arguments met are its `variant` in the read's plan, and the others are read by
// ./relationReads.ts, one batched read per (relation, arguments) and level.
import {
  getArgumentValues,
  GraphQLError,
  getNamedType,
  isObjectType,
  Kind,
  type FieldNode,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type SelectionSetNode,
} from 'graphql';
import { AppError } from '../../../domain/shared/appError.ts';
import { MAX_LIMIT, parseSortList, type DeepQuery, type FilterTree } from '../../query/index.ts';

/** How an item field is read (a GraphQL field's `extensions.svc`): a column or declared value, the whole item (`_data`), or a relation to expand. */
export interface ItemFieldInfo {
  kind: 'value' | 'data' | 'm2o' | 'o2m';
  /** The REST name of the field (`createdAt`, a declared field's name). */
  source: string;
  /** m2o/o2m: the related collection. */
  related?: string;
}

/** An item type's collection (a GraphQL object type's `extensions.svc`). */
export interface ItemTypeInfo {
  collection: string;
}

/**
 * What one read loaded at a level: per relation field, the arguments (`variant`, a canonical text)
 * it was read with and the plan of its items' level. A to-many field asked with another variant is
 * not in the items; ./relationReads.ts reads it.
 */
export interface LevelPlan {
  relations: Map<string, { variant: string; level: LevelPlan }>;
}

export interface ReadSelection {
  fields: string[];
  deep: Record<string, DeepQuery>;
  plan: LevelPlan;
}

/** The arguments of a to-many field, as its deep entry takes them. */
export interface ToManyArguments {
  limit: number | null;
  offset: number | null;
  filter: FilterTree | null;
  sort: string[] | null;
}

const emptyDeep = (): DeepQuery => ({ fields: null, filter: null, sort: [], limit: null, offset: null, page: null, deep: {} });
const emptyPlan = (): LevelPlan => ({ relations: new Map() });

function infoOf(type: GraphQLObjectType, name: string): ItemFieldInfo | undefined {
  return type.getFields()[name]?.extensions?.svc as ItemFieldInfo | undefined;
}

/** The collection an item type shows (undefined for the root types). */
export function collectionOfType(type: GraphQLObjectType): string | undefined {
  return (type.extensions?.svc as ItemTypeInfo | undefined)?.collection;
}

function validation(message: string, path?: (string | number)[]): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'VALIDATION', status: 400, ...(path ? { path } : {}) } });
}

/** Every field node of a selection set, through inline fragments and fragment spreads. */
export function fieldNodes(selectionSet: SelectionSetNode | undefined, info: Pick<GraphQLResolveInfo, 'fragments'>, out: FieldNode[] = []): FieldNode[] {
  for (const selection of selectionSet?.selections ?? []) {
    if (selection.kind === Kind.FIELD) out.push(selection);
    else if (selection.kind === Kind.INLINE_FRAGMENT) fieldNodes(selection.selectionSet, info, out);
    else {
      const fragment = info.fragments[selection.name.value];
      if (fragment) fieldNodes(fragment.selectionSet, info, out);
    }
  }
  return out;
}

/** Two equal argument sets give one text, whatever the order of their keys. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The variant of a to-many field's arguments: equal arguments, equal variants. */
export function variantOf(args: Record<string, unknown>): string {
  const { limit = null, offset = null, filter = null, sort = null } = args as Partial<ToManyArguments>;
  return canonical({ limit, offset, filter, sort });
}

/** A to-many field's arguments as its deep entry, refused as REST refuses deep[<relation>][limit|offset|filter|sort]. */
function toManyDeep(name: string, source: string, args: Partial<ToManyArguments>): DeepQuery {
  const { limit, offset, filter, sort } = args;
  if (limit !== undefined && limit !== null && (limit < 1 || limit > MAX_LIMIT)) {
    throw validation(`"${name}" limit must be an integer from 1 to ${MAX_LIMIT}`, ['deep', source, 'limit']);
  }
  if (offset !== undefined && offset !== null && offset < 0) throw validation(`"${name}" offset must not be negative`, ['deep', source, 'offset']);
  if (filter !== undefined && filter !== null && (typeof filter !== 'object' || Array.isArray(filter))) {
    throw validation(`"${name}" filter must be an object`, ['deep', source, 'filter']);
  }
  let sorted;
  try {
    sorted = parseSortList(sort ?? null, ['deep', source, 'sort']);
  } catch (error) {
    if (error instanceof AppError) throw validation(error.message, ['deep', source, 'sort']);
    throw error;
  }
  return { ...emptyDeep(), limit: limit ?? null, offset: offset ?? null, filter: filter ?? null, sort: sorted };
}

interface Level {
  fields: Set<string>;
  deep: Record<string, DeepQuery>;
  plan: LevelPlan;
}

function collect(type: GraphQLObjectType, nodes: readonly FieldNode[], info: GraphQLResolveInfo, prefix: string, level: Level): void {
  const { fields, deep, plan } = level;
  for (const node of nodes) {
    const field = infoOf(type, node.name.value);
    if (!field) continue;
    if (field.kind === 'value') {
      fields.add(`${prefix}${field.source}`);
      continue;
    }
    if (field.kind === 'data') {
      fields.add(`${prefix}*`);
      continue;
    }
    const related = getNamedType(type.getFields()[node.name.value]!.type);
    if (!isObjectType(related)) continue;
    let entry: DeepQuery;
    let known = plan.relations.get(field.source);
    if (field.kind === 'o2m') {
      const args = getArgumentValues(type.getFields()[node.name.value]!, node, info.variableValues) as Partial<ToManyArguments>;
      const wanted = toManyDeep(node.name.value, field.source, args);
      const variant = variantOf(args);
      // Another variant of a relation this read already holds is read on its own (./relationReads.ts),
      // which finds this level's items by their ids.
      if (known && known.variant !== variant) {
        fields.add(`${prefix}id`);
        continue;
      }
      entry = deep[field.source] ??= wanted;
      known ??= { variant, level: emptyPlan() };
    } else {
      // An m2o's level gets a deep entry only when a to-many relation below it needs one.
      entry = deep[field.source] ?? emptyDeep();
      known ??= { variant: '', level: emptyPlan() };
    }
    plan.relations.set(field.source, known);
    const path = `${prefix}${field.source}.`;
    const before = fields.size;
    collect(related, fieldNodes(node.selectionSet, info), info, path, { fields, deep: entry.deep, plan: known.level });
    if (field.kind === 'm2o' && Object.keys(entry.deep).length > 0) deep[field.source] = entry;
    if (fields.size === before) fields.add(`${path}id`);
  }
}

/** The REST field list, deep parameters and plan of items of `type` selected by `nodes`. */
export function selectionOf(type: GraphQLObjectType, nodes: readonly FieldNode[], info: GraphQLResolveInfo): ReadSelection {
  const level: Level = { fields: new Set(['id']), deep: {}, plan: emptyPlan() };
  collect(type, nodes, info, '', level);
  return { fields: [...level.fields], deep: level.deep, plan: level.plan };
}

/** The REST field list and deep parameters of the items the resolved field returns. */
export function readSelection(info: GraphQLResolveInfo): ReadSelection {
  const type = getNamedType(info.returnType);
  if (!isObjectType(type)) return { fields: ['id'], deep: {}, plan: emptyPlan() };
  return selectionOf(type, info.fieldNodes.flatMap((node) => fieldNodes(node.selectionSet, info)), info);
}
