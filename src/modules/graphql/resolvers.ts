// The resolvers of a site's GraphQL schema: the same read and write paths as REST (listItems,
// getItem with the caller's read permissions; createItems, changeItem, deleteItem with its Access),
// so filters, masks, row conditions, events, revisions, audit, the change feed and the editorial
// gate behave exactly as there. Errors leave as GraphQL errors with the spec's codes (./errors.ts).
import type { FastifyRequest } from 'fastify';
import type { GraphQLError, GraphQLFieldResolver, GraphQLResolveInfo } from 'graphql';
import { AppError } from '../../../domain/shared/appError.ts';
import { accessFor, type Access } from '../../access/access.ts';
import { guardItemRead, guardItemReadBy } from '../../access/itemGuards.ts';
import { DEFAULT_LIMIT, MAX_LIMIT, parseSortList, type FilterTree, type ListQuery } from '../../query/index.ts';
import type { AppContext } from '../../runtime/context.ts';
import { changeItem } from '../items/changeItem.ts';
import { createItemsWithVersions } from '../items/createItems.ts';
import { deleteItem } from '../items/deleteItem.ts';
import { getItem, listItems } from '../items/queries.ts';
import type { ItemEvent, RealtimeService } from '../realtime/realtimeService.ts';
import { REVOKE_MESSAGES, type RevokeReason } from '../realtime/revocations.ts';
import { graphqlError, graphqlErrorOf } from './errors.ts';
import type { RelationReads } from './relationReads.ts';
import { readSelection, type ReadSelection } from './selection.ts';

/** What every resolver of one request shares. */
export interface GraphqlContext {
  app: AppContext;
  request: FastifyRequest;
  access: Access;
  realtime: RealtimeService | null;
  /** Aborts when the client goes away (subscriptions end). */
  signal: AbortSignal;
  /** X-Svc-Locale, else the site's default language: translatable fields are values of their type, never language maps. */
  locale: string;
  /** The request's to-many reads: each set of arguments of a relation read once per level. */
  reads: RelationReads;
}

type Args = Record<string, unknown>;
/** The fields and deep parameters of a read. */
type ItemQuery = Pick<ReadSelection, 'fields' | 'deep'>;

/** Runs a resolver, turning what it throws into a GraphQL error with the spec's code and status. */
function guarded<T>(resolve: (args: Args, context: GraphqlContext, info: GraphQLResolveInfo) => Promise<T>): GraphQLFieldResolver<unknown, GraphqlContext, Args> {
  return async (_source, args, context, info) => {
    try {
      return await resolve(args, context, info);
    } catch (error) {
      throw graphqlErrorOf(error);
    }
  };
}

const invalid = (message: string, argument: string) => new AppError('VALIDATION_FAILED', message, { path: [argument] });

function objectArgument(value: unknown, argument: string): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(`${argument} must be an object`, argument);
  return value as Record<string, unknown>;
}

function integerArgument(value: unknown, argument: string, fallback: number, min: number, max: number): number {
  if (value === undefined || value === null) return fallback;
  const number = value as number;
  if (number < min || number > max) throw invalid(`${argument} must be between ${min} and ${max}`, argument);
  return number;
}

/** `filter` and the `status` shorthand, as one REST filter tree. */
function filterOf(args: Args): FilterTree | null {
  const filter = objectArgument(args.filter, 'filter');
  const status = args.status as string | null | undefined;
  if (status === undefined || status === null) return filter;
  const byStatus = { status: { _eq: status } };
  return filter ? { _and: [filter, byStatus] } : byStatus;
}


function readInput(context: GraphqlContext, collection: string) {
  const { request } = context;
  return { siteId: request.siteId, collection, principal: request.principal, locale: context.locale, metadata: request.metadata };
}

/**
 * The item as the caller may read it with this selection, or null when it is not (or no longer)
 * visible; by `access` when given (a subscription reads with the caller's permissions as they are now).
 */
async function readItem(context: GraphqlContext, collection: string, id: string, selection: ItemQuery, access?: Access): Promise<Record<string, unknown> | null> {
  const input = readInput(context, collection);
  const query = { filter: null, sort: [], deep: selection.deep, locale: input.locale };
  const { fields, deep } = selection;
  const restrictions = access ? await guardItemReadBy(context.app, access, collection, query) : await guardItemRead(context.app, context.request, collection, query);
  try {
    return (await getItem(context.app, { ...input, id, query: { fields, deep }, restrictions })).item;
  } catch (error) {
    if (error instanceof AppError && error.code === 'RECORD_NOT_FOUND') return null;
    throw error;
  }
}

export function listResolver(collection: string) {
  return guarded(async (args, context, info) => {
    const selection = readSelection(info);
    const filter = filterOf(args);
    const sort = parseSortList((args.sort as string[] | null | undefined) ?? null, ['sort']);
    const query: ListQuery = {
      fields: selection.fields,
      filter,
      sort,
      limit: integerArgument(args.limit, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT),
      offset: integerArgument(args.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER),
      page: null,
      meta: 'none',
      aggregate: null,
      groupBy: [],
      deep: selection.deep,
      search: (args.search as string | null | undefined) ?? null,
    };
    const input = readInput(context, collection);
    const restrictions = await guardItemRead(context.app, context.request, collection, { filter, sort, deep: selection.deep, search: query.search, locale: input.locale });
    const { data } = await listItems(context.app, { ...input, query, restrictions });
    // A singleton collection answers its one item.
    const items = Array.isArray(data) ? data : data ? [data] : [];
    context.reads.planned(items, selection.plan);
    return items;
  });
}

export function byIdResolver(collection: string) {
  return guarded(async (args, context, info) => {
    const selection = readSelection(info);
    const item = await readItem(context, collection, String(args.id), selection);
    context.reads.planned(item, selection.plan);
    return item;
  });
}

/** A to-many field of an item: what the item's read loaded, or its own batched read when asked with other arguments. */
export function toManyResolver(source: string): GraphQLFieldResolver<Record<string, unknown>, GraphqlContext, Args> {
  return (item, args, context, info) => {
    // What the item's read loaded is answered at once; only another variant waits for its read.
    const value = context.reads.toMany(item, source, args, info);
    return value instanceof Promise ? value.catch((error: unknown) => Promise.reject(graphqlErrorOf(error))) : value;
  };
}

/**
 * `data` (the collection's input type, by GraphQL names) plus the `status` and `sort` shorthands, as
 * the body of a REST write (by the fields' own names: `sources`).
 */
function writeBody(args: Args, sources: ReadonlyMap<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(objectArgument(args.data, 'data') ?? {})) body[sources.get(name) ?? name] = value;
  if (args.status !== undefined && args.status !== null) body.status = args.status;
  if (args.sort !== undefined && args.sort !== null) body.sort = args.sort;
  return body;
}

/** A written item as the caller may read it; `{ id }` alone when its read rules do not reach it. */
async function written(context: GraphqlContext, collection: string, id: string, info: GraphQLResolveInfo): Promise<Record<string, unknown>> {
  const selection = readSelection(info);
  const item = (await readItem(context, collection, id, selection)) ?? { id };
  context.reads.planned(item, selection.plan);
  return item;
}

export function createResolver(collection: string, sources: ReadonlyMap<string, string>) {
  return guarded(async (args, context, info) => {
    const [result] = await createItemsWithVersions(context.app, {
      siteId: context.request.siteId,
      collection,
      items: [writeBody(args, sources)],
      access: context.access,
      metadata: context.request.metadata,
      locale: context.locale,
    });
    return written(context, collection, result!.snapshot.id, info);
  });
}

export function updateResolver(collection: string, sources: ReadonlyMap<string, string>) {
  return guarded(async (args, context, info) => {
    const id = String(args.id);
    await changeItem(context.app, {
      siteId: context.request.siteId,
      collection,
      itemId: id,
      changes: writeBody(args, sources),
      mode: 'patch',
      access: context.access,
      metadata: context.request.metadata,
      locale: context.locale,
    });
    return written(context, collection, id, info);
  });
}

export function deleteResolver(collection: string) {
  return guarded(async (args, context) => {
    await deleteItem(context.app, { siteId: context.request.siteId, collection, itemId: String(args.id), access: context.access, metadata: context.request.metadata });
    return true;
  });
}

export interface ItemEventPayload {
  action: string;
  itemId: string;
  item: Record<string, unknown> | null;
}

/** Whether the caller reads every row of the collection (a delete can then be told without a row to check). */
function readsEveryRow(access: Access, collection: string): boolean {
  if (access.admin) return true;
  const filter = access.rowFilter('read', collection);
  return filter.kind === 'constant' && filter.value;
}

/** The last payload of a stream whose credential or permissions changed: an error, then the stream ends. */
function revokedError(reason: RevokeReason): GraphQLError {
  return reason === 'unauthenticated' ? graphqlError('UNAUTHENTICATED', REVOKE_MESSAGES.unauthenticated, 401) : graphqlError('PERMISSION_DENIED', REVOKE_MESSAGES.forbidden, 403);
}

interface Revoked {
  reason: RevokeReason | null;
}

async function* payloads(
  context: GraphqlContext,
  collection: string,
  events: AsyncIterable<ItemEvent> | Iterable<ItemEvent>,
  revoked: Revoked,
): AsyncGenerator<ItemEventPayload | GraphQLError> {
  const all: ItemQuery = { fields: ['*'], deep: {} };
  const { request } = context;
  for await (const event of events) {
    // The permissions of now, not of the subscription's start: a field or row taken away since is not sent.
    const access = await accessFor(context.app, request.siteId, request.principal);
    if (event.action === 'delete') {
      if (readsEveryRow(access, collection)) yield { action: event.action, itemId: event.itemId, item: null };
      continue;
    }
    const item = await readItem(context, collection, event.itemId, all, access);
    if (item) yield { action: event.action, itemId: event.itemId, item };
  }
  if (revoked.reason) yield revokedError(revoked.reason);
}

/**
 * `<collection>_events`: the realtime fan-out's item events of this site and collection, each with
 * the item as the subscriber may read it now (`_data`-like JSON). Changes to rows its read conditions
 * exclude are left out; so are deletes, unless it reads every row. The stream is followed before the
 * subscription answers (every change committed after the response's headers is delivered); without a
 * realtime channel it is empty. It ends with UNAUTHENTICATED when the subscriber's credential ends
 * (logout, password change, suspension, key revoked), with PERMISSION_DENIED when its role changes
 * or it may no longer read the collection (../realtime/revocations.ts).
 */
export function eventsSubscriber(collection: string): GraphQLFieldResolver<unknown, GraphqlContext, Args> {
  return async (_source, _args, context) => {
    const revoked: Revoked = { reason: null };
    if (!context.realtime) return payloads(context, collection, [], revoked);
    const { realtime, request } = context;
    const events = await realtime.itemEvents(request.siteId, collection, context.signal);
    const holder = request.principal;
    // The instance token is never revoked by a log event.
    if (holder.kind !== 'user') return payloads(context, collection, events, revoked);
    const end = (reason: RevokeReason) => {
      revoked.reason = reason;
      void events.return?.();
    };
    const unwatch = realtime.revocations.watch({ siteId: request.siteId, holder, allowed: (access) => access.can('read', collection), revoke: end });
    context.signal.addEventListener('abort', unwatch, { once: true });
    // Watched first, then checked: a revocation committed before the check is seen by it, a later one reaches the watcher.
    const refused = await realtime.revocations.check(request.siteId, holder);
    if (refused) {
      unwatch();
      end(refused);
    }
    return payloads(context, collection, events, revoked);
  };
}
