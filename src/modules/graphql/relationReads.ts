// The to-many fields of one GraphQL request. A read (a list, an item by id, a written item) loads the
// relations its selection names in one batch per level, one variant (set of arguments) per field;
// its items are remembered with the plan they were read with. A to-many field asked with another
// variant (aliases: `all: comments(limit: 10) page: comments(limit: 2, offset: 1)`) is read here,
// batched with DataLoader: one read per (collection, field, variant) for every parent of a level,
// never one per parent. That read takes the parents again by id with the field's own arguments and
// sub-selection, through REST's list read and the caller's read permissions.
import DataLoader from 'dataloader';
import type { FastifyRequest } from 'fastify';
import type { FieldNode, GraphQLObjectType, GraphQLResolveInfo } from 'graphql';
import { guardItemRead } from '../../access/itemGuards.ts';
import type { ListQuery } from '../../query/index.ts';
import type { AppContext } from '../../runtime/context.ts';
import { listItems } from '../items/queries.ts';
import { collectionOfType, selectionOf, variantOf, type LevelPlan } from './selection.ts';

export interface RelationReads {
  /** Remembers `items` (a list, an item or null) and their related items as read with `plan`. */
  planned(items: unknown, plan: LevelPlan): void;
  /** A to-many field of `item`: from the read that loaded the item when it holds these arguments, else batched with its siblings. */
  toMany(item: Record<string, unknown>, source: string, args: Record<string, unknown>, info: GraphQLResolveInfo): unknown | Promise<unknown>;
}

export interface RelationReadsInput {
  app: AppContext;
  request: FastifyRequest;
  locale: string;
}

/** The parents of one (collection, field, variant): the field nodes that ask for it, and their loader. */
interface Group {
  nodes: Set<FieldNode>;
  loader: DataLoader<string, unknown>;
}

export function createRelationReads({ app, request, locale }: RelationReadsInput): RelationReads {
  const plans = new WeakMap<object, LevelPlan>();
  const groups = new Map<string, Group>();

  function planned(items: unknown, plan: LevelPlan): void {
    for (const item of Array.isArray(items) ? items : [items]) {
      if (item === null || typeof item !== 'object') continue;
      plans.set(item, plan);
      for (const [source, relation] of plan.relations) planned((item as Record<string, unknown>)[source], relation.level);
    }
  }

  async function readParents(type: GraphQLObjectType, collection: string, source: string, group: Group, info: GraphQLResolveInfo, ids: readonly string[]): Promise<unknown[]> {
    // Every node of the group has the same arguments: one deep entry serves them all.
    const selection = selectionOf(type, [...group.nodes], info);
    const filter = { id: { _in: [...ids] } };
    const query: ListQuery = {
      fields: selection.fields,
      filter,
      sort: [],
      limit: ids.length,
      offset: 0,
      page: null,
      meta: 'none',
      aggregate: null,
      groupBy: [],
      deep: selection.deep,
      search: null,
    };
    const restrictions = await guardItemRead(app, request, collection, { filter, sort: [], deep: selection.deep, locale });
    const { data } = await listItems(app, { siteId: request.siteId, collection, principal: request.principal, locale, metadata: request.metadata, query, restrictions });
    const parents = (Array.isArray(data) ? data : data ? [data] : []) as Record<string, unknown>[];
    planned(parents, selection.plan);
    const byId = new Map(parents.map((parent) => [String(parent.id), parent[source]]));
    return ids.map((id) => byId.get(id) ?? []);
  }

  function toMany(item: Record<string, unknown>, source: string, args: Record<string, unknown>, info: GraphQLResolveInfo): unknown {
    const variant = variantOf(args);
    const plan = plans.get(item);
    const collection = collectionOfType(info.parentType);
    if (!plan || plan.relations.get(source)?.variant === variant || !collection) return item[source] ?? [];
    const key = `${collection}\u0000${source}\u0000${variant}`;
    let group = groups.get(key);
    if (!group) {
      // Not cached: a later batch of the group may carry more nodes (another part of the query), so it reads again.
      const created: Group = { nodes: new Set(), loader: new DataLoader((ids) => readParents(info.parentType, collection, source, created, info, ids), { cache: false }) };
      groups.set(key, (group = created));
    }
    for (const node of info.fieldNodes) group.nodes.add(node);
    return group.loader.load(String(item.id));
  }

  return { planned, toMany };
}
