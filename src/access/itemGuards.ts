// The permission checks of the item routes, one function per route kind, each returning the hooks
// the item read and write functions take (src/modules/items: `restrictions.permissions`,
// `authorize`, `authorizeDependent`, `sampleCondition`). Administrators get no hooks at all, so
// their requests run exactly as without permissions.
import type { FastifyRequest } from 'fastify';
import { AppError, errors } from '../../domain/shared/appError.ts';
import type { Queryable } from '../../infra/postgres/database.ts';
import { join, sql, type SqlFragment } from '../../infra/postgres/sql.ts';
import { loadSiteSchema } from '../schema/schemaCache.ts';
import { ITEMS_TABLE, type ListQuery } from '../query/index.ts';
import type { AppContext } from '../runtime/context.ts';
import { requestAccess, type Access } from './access.ts';
import {
  assertCan as assertAllowed,
  assertCreatable,
  assertReadableQuery,
  assertRowAccess,
  assertWritableFields,
  itemReadPermissions,
  permissionDenied,
  type ReadPermissions,
} from './itemAccess.ts';

type GuardContext = Pick<AppContext, 'database' | 'notifier' | 'onClose' | 'logger'>;

/** 403 without a rule for `action` on the collection; 401 instead for a request without credentials. */
function assertCan(access: Access, action: 'create' | 'read' | 'update' | 'delete', collection: string): void {
  if (access.principal.kind === 'anonymous' && !access.can(action, collection)) throw errors.unauthenticated();
  assertAllowed(access, action, collection);
}

async function declaredFields(context: GuardContext, siteId: string, collection: string): Promise<ReadonlyMap<string, unknown>> {
  return (await loadSiteSchema(context, siteId)).collections.get(collection)?.fields ?? new Map();
}

/**
 * A list or single read: 403 without any read rule on the collection, 403 when the filter, sort,
 * deep or aggregate parameters test a field the principal may not read; else the read permissions
 * to apply at every level (rows outside them are simply absent: a single item answers 404).
 */
export async function guardItemRead(
  context: GuardContext,
  request: FastifyRequest,
  collection: string,
  query: Pick<ListQuery, 'filter' | 'sort' | 'deep'> & Partial<Pick<ListQuery, 'aggregate' | 'groupBy'>> & { locale?: string | null },
): Promise<{ permissions?: ReadPermissions }> {
  const access = await requestAccess(context, request);
  if (access.admin) return {};
  assertCan(access, 'read', collection);
  assertReadableQuery(access, await loadSiteSchema(context, request.siteId), collection, query);
  return { permissions: itemReadPermissions(access)! };
}

/** The fields a written item may show in the answer (the principal's read fields; null: all). */
export async function writtenItemFields(context: GuardContext, request: FastifyRequest, collection: string): Promise<ReadonlySet<string> | null> {
  const access = await requestAccess(context, request);
  return itemReadPermissions(access)?.visibleFields(collection) ?? null;
}

/** A create (one item or a bulk array): 403 without a create rule or for a field outside it; conditions are checked on each item as stored. */
export async function guardItemCreate(
  context: GuardContext,
  request: FastifyRequest,
  collection: string,
  items: readonly unknown[],
  bulk: boolean,
): Promise<{ authorize?: (snapshot: Record<string, unknown>, basePath: (string | number)[]) => void }> {
  const access = await requestAccess(context, request);
  if (access.admin) return {};
  assertCan(access, 'create', collection);
  const declared = await declaredFields(context, request.siteId, collection);
  items.forEach((item, index) => {
    if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
      assertWritableFields(access, 'create', collection, item as Record<string, unknown>, declared, bulk ? [index] : []);
    }
  });
  return { authorize: (snapshot, basePath) => assertCreatable(access, collection, snapshot, basePath) };
}

/**
 * PATCH / PUT: 403 without an update rule or for a field outside it (a PUT replaces every field, so
 * it needs update on all of them); in the write's transaction, the row must be one the principal may
 * update (404 when it cannot even see it).
 */
export async function guardItemUpdate(
  context: GuardContext,
  request: FastifyRequest,
  collection: string,
  itemId: string,
  body: Record<string, unknown>,
  mode: 'patch' | 'replace',
): Promise<{ authorize?: (tx: Queryable) => Promise<void> }> {
  const access = await requestAccess(context, request);
  if (access.admin) return {};
  assertCan(access, 'update', collection);
  if (mode === 'replace' && !access.allowedFields('update', collection).all) {
    throw permissionDenied(`Replacing a whole item of "${collection}" needs update permission on every field; send PATCH with the fields you may change`, ['body']);
  }
  assertWritableFields(access, 'update', collection, body, await declaredFields(context, request.siteId, collection));
  return { authorize: (tx) => assertRowAccess(tx, access, 'update', collection, itemId) };
}

/** DELETE: 403 without a delete rule; in the transaction, the row must be one the principal may delete. */
export async function guardItemDelete(
  context: GuardContext,
  request: FastifyRequest,
  collection: string,
  itemId: string,
): Promise<{ authorize?: (tx: Queryable) => Promise<void> }> {
  const access = await requestAccess(context, request);
  if (access.admin) return {};
  assertCan(access, 'delete', collection);
  return { authorize: (tx) => assertRowAccess(tx, access, 'delete', collection, itemId) };
}

function sampleConditionOf(access: Access): ((collection: string, alias: string) => SqlFragment | null) | undefined {
  const permissions = itemReadPermissions(access);
  return permissions ? (collection, alias) => permissions.rowCondition(collection, alias, ITEMS_TABLE) : undefined;
}

/**
 * GET …/dependents: the item must be readable; dependents count whole (a delete is blocked by rows
 * the principal cannot see too), but samples list only readable ones.
 */
export async function guardItemDependents(
  context: GuardContext,
  request: FastifyRequest,
  collection: string,
  itemId: string,
): Promise<{ authorize?: (tx: Queryable) => Promise<void>; sampleCondition?: (collection: string, alias: string) => SqlFragment | null }> {
  const access = await requestAccess(context, request);
  if (access.admin) return {};
  assertCan(access, 'read', collection);
  return { authorize: (tx) => assertRowAccess(tx, access, 'read', collection, itemId), sampleCondition: sampleConditionOf(access)! };
}

/**
 * POST …/resolve-dependents: the item must be readable, and each dependent changed must be one the
 * principal may update (with the field it writes) or delete; a dependent it may not touch refuses
 * the whole resolution (403, nothing written).
 */
export async function guardResolveDependents(
  context: GuardContext,
  request: FastifyRequest,
  collection: string,
  itemId: string,
): Promise<{
  authorize?: (tx: Queryable) => Promise<void>;
  authorizeDependent?: (tx: Queryable, collection: string, itemId: string, change: { action: 'delete' } | { action: 'update'; values: Record<string, unknown> }) => Promise<void>;
  sampleCondition?: (collection: string, alias: string) => SqlFragment | null;
}> {
  const access = await requestAccess(context, request);
  if (access.admin) return {};
  assertCan(access, 'read', collection);
  return {
    authorize: (tx) => assertRowAccess(tx, access, 'read', collection, itemId),
    sampleCondition: sampleConditionOf(access)!,
    async authorizeDependent(tx, dependentCollection, dependentId, change) {
      const action = change.action;
      try {
        assertCan(access, action, dependentCollection);
        if (change.action === 'update') {
          assertWritableFields(access, 'update', dependentCollection, change.values, await declaredFields(context, request.siteId, dependentCollection));
        }
        await assertRowAccess(tx, access, action, dependentCollection, dependentId);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        // A dependent the principal cannot see is not named; the resolution as a whole is refused.
        throw permissionDenied(`You may not ${action} every item of "${dependentCollection}" that depends on this item`, ['body', 'action']);
      }
    },
  };
}

/**
 * The item history routes (revisions, versions, pins): revisions and versions show whole items, so a
 * principal who is not an administrator needs read on every field of the collection and a visible
 * row to read them (404 otherwise), and update on every field and an updatable row to change them
 * (revert, promote, versions, pins). Registered as a preHandler of those routes' plugins.
 */
export function guardItemHistory(context: GuardContext): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    const access = await requestAccess(context, request);
    if (access.admin) return;
    const { collection, id } = request.params as { collection: string; id: string };
    const action = request.method === 'GET' ? 'read' : 'update';
    assertCan(access, action, collection);
    if (!access.allowedFields(action, collection).all) {
      throw permissionDenied(`The history of an item shows whole items: it needs ${action} permission on every field of "${collection}"`);
    }
    await context.database.withSite(request.siteId, (tx) => assertRowAccess(tx, access, action, collection, id));
  };
}

/**
 * GET /search: hits come from the collections the principal may read whole (a match or a highlight
 * on a hidden field would show it), and only from rows it may read. Null for administrators; 403
 * when a named collection is not searchable for the principal.
 */
export async function guardSearch(context: GuardContext, request: FastifyRequest, collection: string | null): Promise<SqlFragment | null> {
  const access = await requestAccess(context, request);
  if (access.admin) return null;
  const schema = await loadSiteSchema(context, request.siteId);
  const searchable = [...schema.collections.keys()].filter((name) => access.can('read', name) && access.allowedFields('read', name).all);
  if (collection !== null && !searchable.includes(collection)) {
    throw permissionDenied(`Searching "${collection}" needs read permission on every field of it`, ['query', 'collection']);
  }
  const within = collection === null ? searchable : [collection];
  if (within.length === 0) return sql`FALSE`;
  return sql`(${join(within.map((name) => sql`(i.collection = ${name}::text AND ${access.rowFilterSql('read', name, 'i')})`), ' OR ')})`;
}
