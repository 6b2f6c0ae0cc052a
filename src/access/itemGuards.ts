// The permission checks of the item read routes (lists, single items, history, search), with the
// request's Access. Item writes check theirs in their handlers (./itemWriteRules.ts). Administrators
// get no restrictions at all, so their requests run exactly as without permissions.
import type { FastifyRequest } from 'fastify';
import { join, sql, type SqlFragment } from '../../infra/postgres/sql.ts';
import type { ListQuery } from '../query/index.ts';
import { AppError } from '../../domain/shared/appError.ts';
import type { AppContext } from '../runtime/context.ts';
import type { Access } from './access.ts';
import { assertReadableQuery, assertRowAccess, itemReadPermissions, permissionDenied, type ReadPermissions } from './itemAccess.ts';
import { assertMay } from './itemWriteRules.ts';

type GuardContext = Pick<AppContext, 'database' | 'schemas'>;

/**
 * A list or single read: 403 without any read rule on the collection, 403 when the filter, sort,
 * deep or aggregate parameters test a field the principal may not read; else the read permissions
 * to apply at every level (rows outside them are simply absent: a single item answers 404).
 */
export async function guardItemRead(
  context: GuardContext,
  request: FastifyRequest,
  collection: string,
  query: Pick<ListQuery, 'filter' | 'sort' | 'deep'> & Partial<Pick<ListQuery, 'aggregate' | 'groupBy' | 'search'>> & { locale?: string | null },
): Promise<{ permissions?: ReadPermissions }> {
  return guardItemReadBy(context, await request.access(), collection, query);
}

/** guardItemRead for an Access built by the caller (public delivery reads as the public role whatever the request carries). */
export async function guardItemReadBy(
  context: GuardContext,
  access: Access,
  collection: string,
  query: Parameters<typeof guardItemRead>[3],
): Promise<{ permissions?: ReadPermissions }> {
  if (access.admin) return {};
  assertMay(access, 'read', collection);
  assertReadableQuery(access, await context.schemas.site(access.siteId), collection, query);
  // A search matches words of every indexed field: it would tell of fields the reader may not read (as GET /search, which needs them all).
  if (query.search && !access.allowedFields('read', collection).all) {
    throw new AppError('PERMISSION_DENIED', `Searching "${collection}" needs read on every field of it`, { path: ['search'] });
  }
  return { permissions: itemReadPermissions(access)! };
}

/** The fields a written item may show in the answer (the principal's read fields; null: all). */
export async function writtenItemFields(request: FastifyRequest, collection: string): Promise<ReadonlySet<string> | null> {
  const access = await request.access();
  return itemReadPermissions(access)?.visibleFields(collection) ?? null;
}

/**
 * The item history routes (revisions, versions, pins): revisions and versions show whole items, so a
 * principal who is not an administrator needs read on every field of the collection and a visible
 * row to read them (404 otherwise), and update on every field to change them (revert, promote,
 * versions, pins), whose handlers check the row inside their own transaction. Registered as a
 * preHandler of those routes' plugins.
 */
/** The item history shows and writes whole items: `action` permission on every field of the collection (administrators pass). */
export function assertMayUseHistory(access: Access, action: 'read' | 'update', collection: string): void {
  if (access.admin) return;
  assertMay(access, action, collection);
  if (!access.allowedFields(action, collection).all) {
    throw permissionDenied(`The history of an item shows whole items: it needs ${action} permission on every field of "${collection}"`);
  }
}

export function guardItemHistory(context: GuardContext): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    const access = await request.access();
    if (access.admin) return;
    const { collection, id } = request.params as { collection: string; id: string };
    const action = request.method === 'GET' ? 'read' : 'update';
    assertMayUseHistory(access, action, collection);
    if (action === 'read') await context.database.withSite(request.siteId, (tx) => assertRowAccess(tx, access, 'read', collection, id));
  };
}

/**
 * GET /search: hits come from the collections the principal may read whole (a match or a highlight
 * on a hidden field would show it), and only from rows it may read. Null for administrators; 403
 * when a named collection is not searchable for the principal.
 */
export async function guardSearch(context: GuardContext, request: FastifyRequest, collection: string | null): Promise<SqlFragment | null> {
  return guardSearchBy(context, await request.access(), collection === null ? null : [collection], ['query', 'collection']);
}

/** guardSearch for an Access built by the caller (an agent's skill), over some collections (null: every one); `path` names them in a refusal. */
export async function guardSearchBy(
  context: GuardContext,
  access: Access,
  collections: readonly string[] | null,
  path: (string | number)[],
): Promise<SqlFragment | null> {
  if (access.admin) return null;
  const schema = await context.schemas.site(access.siteId);
  const searchable = [...schema.collections.keys()].filter((name) => access.can('read', name) && access.allowedFields('read', name).all);
  const refused = collections?.find((collection) => !searchable.includes(collection));
  if (refused !== undefined) {
    throw permissionDenied(`Searching "${refused}" needs read permission on every field of it`, path);
  }
  const within = collections ?? searchable;
  if (within.length === 0) return sql`FALSE`;
  return sql`(${join(within.map((name) => sql`(i.collection = ${name}::text AND ${access.rowFilterSql('read', name, 'i')})`), ' OR ')})`;
}
