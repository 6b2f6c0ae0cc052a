// The permission rules of item writes, for the item command handlers (src/modules/items), which call
// them with the request's Access: the checks on the body before any transaction, and the row checks
// inside the write's own transaction. Administrators pass every check untouched.
import { AppError, errors } from '../../domain/shared/appError.ts';
import type { Queryable } from '../../infra/postgres/database.ts';
import type { SqlFragment } from '../../infra/postgres/sql.ts';
import { ITEMS_TABLE } from '../query/index.ts';
import type { Access } from './access.ts';
import { assertCan, assertRowAccess, assertWritableFields, itemReadPermissions, permissionDenied, type ItemAction } from './itemAccess.ts';

/** 403 without a rule for `action` on the collection; 401 instead for a request without credentials. */
export function assertMay(access: Access, action: ItemAction, collection: string): void {
  if (access.principal.kind === 'anonymous' && !access.can(action, collection)) throw errors.unauthenticated();
  assertCan(access, action, collection);
}

/** A create (one item or a bulk array): 403 without a create rule or for a field outside it. */
export function assertMayCreate(access: Access, collection: string, bodies: readonly unknown[], declared: ReadonlyMap<string, unknown>, bulk: boolean): void {
  if (access.admin) return;
  assertMay(access, 'create', collection);
  bodies.forEach((body, index) => {
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
      assertWritableFields(access, 'create', collection, body as Record<string, unknown>, declared, bulk ? [index] : []);
    }
  });
}

/**
 * PATCH / PUT: 403 without an update rule or for a field outside it (a PUT replaces every field, so
 * it needs update on all of them).
 */
export function assertMayUpdate(
  access: Access,
  collection: string,
  body: Record<string, unknown>,
  mode: 'patch' | 'replace',
  declared: ReadonlyMap<string, unknown>,
): void {
  if (access.admin) return;
  assertMay(access, 'update', collection);
  if (mode === 'replace' && !access.allowedFields('update', collection).all) {
    throw permissionDenied(`Replacing a whole item of "${collection}" needs update permission on every field; send PATCH with the fields you may change`, ['body']);
  }
  assertWritableFields(access, 'update', collection, body, declared);
}

/**
 * A dependent changed by resolve-dependents must be one the principal may update (with the field it
 * writes) or delete; a dependent it may not touch refuses the whole resolution (403, nothing
 * written), without naming a dependent the principal cannot see.
 */
export async function assertMayChangeDependent(
  tx: Queryable,
  access: Access,
  collection: string,
  itemId: string,
  change: { action: 'delete' } | { action: 'update'; values: Record<string, unknown> },
  declared: ReadonlyMap<string, unknown>,
): Promise<void> {
  if (access.admin) return;
  const action = change.action;
  try {
    assertMay(access, action, collection);
    if (change.action === 'update') assertWritableFields(access, 'update', collection, change.values, declared);
    await assertRowAccess(tx, access, action, collection, itemId);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    throw permissionDenied(`You may not ${action} every item of "${collection}" that depends on this item`, ['body', 'action']);
  }
}

/** Dependents count whole (a delete is blocked by rows the principal cannot see too), but samples list only readable ones. */
export function dependentSampleCondition(access: Access): ((collection: string, alias: string) => SqlFragment | null) | undefined {
  const permissions = itemReadPermissions(access);
  return permissions ? (collection, alias) => permissions.rowCondition(collection, alias, ITEMS_TABLE) : undefined;
}
