// Schema reads for principals who are not administrators: they see the collections they hold some
// item permission on, and in them the fields some rule lists (for any action), so that a client can
// build forms for what it may do without learning the rest of the schema. Schema changes stay with
// site administrators (the routes declare `siteAdmin`).
import { ITEM_ACTIONS } from '../../domain/access/permissionRule.ts';
import type { Access } from './access.ts';
import { permissionDenied } from './itemAccess.ts';

/** Whether the principal may see the collection in the schema (some item action on it). */
export function canSeeCollection(access: Access, collection: string): boolean {
  return access.admin || ITEM_ACTIONS.some((action) => access.can(action, collection));
}

/** Whether the principal may see a field's definition (some rule of the collection lists it, or `*`). */
export function canSeeField(access: Access, collection: string, field: string): boolean {
  return access.admin || ITEM_ACTIONS.some((action) => access.allowedFields(action, collection).has(field));
}

/** 403 for a collection the principal holds no permission on (whether it exists or not). */
export function assertCanSeeCollection(access: Access, collection: string): void {
  if (!canSeeCollection(access, collection)) throw permissionDenied(`You have no permission on the collection "${collection}"`);
}

/** Relations are shown when every collection they touch is visible. */
export function canSeeRelation(
  access: Access,
  relation: { collection: string; relatedCollection?: string | null; junctionCollection?: string | null; allowedCollections?: readonly string[] | null },
): boolean {
  const touched = [relation.collection, relation.relatedCollection, relation.junctionCollection, ...(relation.allowedCollections ?? [])];
  return touched.every((name) => name === null || name === undefined || canSeeCollection(access, name));
}
