// A GraphQL selection set as the REST read path's field list and `deep` parameters: `{ id title
// author { name } comments(limit: 5) { body } }` reads as fields `id,title,author.name,comments.body`
// with `deep[comments][_limit]=5`. One read then loads every nested relation level in one batch
// (src/modules/items/relationLoader.ts), so a request's SQL statements grow with its depth, never
// with its rows. `_data` reads every field of its level. Fragments are followed.
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
import { MAX_LIMIT, type DeepQuery } from '../../query/index.ts';

/** How an item field is read (a GraphQL field's `extensions.svc`): a column or declared value, the whole item (`_data`), or a relation to expand. */
export interface ItemFieldInfo {
  kind: 'value' | 'data' | 'm2o' | 'o2m';
  /** The REST name of the field (`createdAt`, a declared field's name). */
  source: string;
  /** m2o/o2m: the related collection. */
  related?: string;
}

export interface ReadSelection {
  fields: string[];
  deep: Record<string, DeepQuery>;
}

const emptyDeep = (limit: number | null, offset: number | null): DeepQuery => ({ fields: null, filter: null, sort: [], limit, offset, page: null, deep: {} });

function infoOf(type: GraphQLObjectType, name: string): ItemFieldInfo | undefined {
  return type.getFields()[name]?.extensions?.svc as ItemFieldInfo | undefined;
}

function validation(message: string, path?: (string | number)[]): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'VALIDATION', status: 400, ...(path ? { path } : {}) } });
}

/** Every field node of a selection set, through inline fragments and fragment spreads. */
function fieldNodes(selectionSet: SelectionSetNode | undefined, info: GraphQLResolveInfo, out: FieldNode[] = []): FieldNode[] {
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

/** The o2m's deep entry for its `limit`/`offset`; the same relation selected twice must ask the same. */
function o2mDeep(type: GraphQLObjectType, node: FieldNode, info: GraphQLResolveInfo, source: string, deep: Record<string, DeepQuery>): DeepQuery {
  const args = getArgumentValues(type.getFields()[node.name.value]!, node, info.variableValues) as { limit?: number | null; offset?: number | null };
  // As REST's deep[<relation>][limit|offset]: limit 1–200, offset from 0.
  if (args.limit !== undefined && args.limit !== null && (args.limit < 1 || args.limit > MAX_LIMIT)) {
    throw validation(`"${node.name.value}" limit must be an integer from 1 to ${MAX_LIMIT}`, ['deep', source, 'limit']);
  }
  if (args.offset !== undefined && args.offset !== null && args.offset < 0) {
    throw validation(`"${node.name.value}" offset must not be negative`, ['deep', source, 'offset']);
  }
  const wanted = emptyDeep(args.limit ?? null, args.offset ?? null);
  const current = deep[source];
  if (!current) return (deep[source] = wanted);
  if (current.limit !== wanted.limit || current.offset !== wanted.offset) {
    throw validation(`"${node.name.value}" is selected twice with different limit or offset; one read serves both`);
  }
  return current;
}

function collect(type: GraphQLObjectType, nodes: readonly FieldNode[], info: GraphQLResolveInfo, prefix: string, fields: Set<string>, deep: Record<string, DeepQuery>): void {
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
    // An o2m takes its own deep entry; an m2o's level gets one only when a to-many relation below it needs it.
    const entry = field.kind === 'o2m' ? o2mDeep(type, node, info, field.source, deep) : (deep[field.source] ?? emptyDeep(null, null));
    const path = `${prefix}${field.source}.`;
    const before = fields.size;
    collect(related, fieldNodes(node.selectionSet, info), info, path, fields, entry.deep);
    if (field.kind === 'm2o' && Object.keys(entry.deep).length > 0) deep[field.source] = entry;
    if (fields.size === before) fields.add(`${path}id`);
  }
}

/** The REST field list and deep parameters of the items the resolved field returns. */
export function readSelection(info: GraphQLResolveInfo): ReadSelection {
  const type = getNamedType(info.returnType);
  if (!isObjectType(type)) return { fields: ['id'], deep: {} };
  const fields = new Set<string>(['id']);
  const deep: Record<string, DeepQuery> = {};
  const nodes = info.fieldNodes.flatMap((node) => fieldNodes(node.selectionSet, info));
  collect(type, nodes, info, '', fields, deep);
  return { fields: [...fields], deep };
}
