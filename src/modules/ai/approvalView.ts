// How an approval shows values (docs/ai-skills.md, "The diff"): pii/phi and hashed fields sealed,
// fields the viewer may not read hidden; the requester's rights when it is recorded, a reviewer's own
// when a reviewer reads it.
import type { Access } from '../../access/access.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { CollectionSchema } from '../../schema/siteSchema.ts';
import type { ApprovalView } from './approvalSchemas.ts';

/** What a diff shows for a value it may not show: a pii/phi or hashed field, or one the requester may not read. */
export const SEALED_VALUE = '[sealed]';
export const HIDDEN_VALUE = '[hidden]';

export function shownValue(collection: CollectionSchema, access: Access, field: string, value: unknown): unknown {
  if (collection.sensitiveFields.has(field) || collection.hashFields.has(field)) return SEALED_VALUE;
  if (!access.allowedFields('read', collection.name).has(field)) return HIDDEN_VALUE;
  return value;
}

/**
 * An approval as a reviewer sees it (not its requester, not a site administrator: a holder of
 * `review:<area>`): null when the call's collection is one they may not read; else its diff and its
 * call's item values masked with the reviewer's own read rights, as they were with the requester's.
 */
export async function approvalForReviewer(context: AppContext, siteId: string, approval: ApprovalView, access: Access): Promise<ApprovalView | null> {
  const named = approval.call.input.collection;
  if (typeof named !== 'string') return approval;
  if (!access.can('read', named)) return null;
  const collection = await context.schemas.collection(siteId, named);
  const mask = (values: unknown) =>
    typeof values === 'object' && values !== null && !Array.isArray(values)
      ? Object.fromEntries(Object.entries(values).map(([field, value]) => [field, shownValue(collection, access, field, value)]))
      : values;
  const maskEach = (values: unknown) => (Array.isArray(values) ? values.map(mask) : mask(values));
  const diff = { ...approval.diff };
  if ('item' in diff) diff.item = mask(diff.item);
  if ('items' in diff && diff.kind === 'create') diff.items = maskEach(diff.items);
  if ('fields' in diff && typeof diff.fields === 'object' && diff.fields !== null) {
    diff.fields = Object.fromEntries(
      Object.entries(diff.fields as Record<string, { before: unknown; after: unknown }>).map(([field, change]) => [
        field,
        { before: shownValue(collection, access, field, change.before), after: shownValue(collection, access, field, change.after) },
      ]),
    );
  }
  const input = { ...approval.call.input };
  if ('changes' in input) input.changes = mask(input.changes);
  if ('items' in input) input.items = maskEach(input.items);
  return { ...approval, diff, call: { ...approval.call, input } };
}
