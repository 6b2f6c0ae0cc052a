// What the history read models take from an item event (the content contract's `{ collection,
// itemId, snapshot, delta, cause?, draft? }`) and the split of a snapshot into structural keys and
// content fields. The shapes are the content context's own.
import { ITEM_EVENT_TYPES, type ItemEventData, type ItemSnapshot } from '../itemDecider.ts';
import { STRUCTURAL_KEY_SET } from '../schemaModel.ts';

export { ITEM_EVENT_TYPES, type ItemEventData, type ItemSnapshot };

/** Keys of a snapshot that are columns of the item, not content fields. */
export const STRUCTURAL_KEYS: ReadonlySet<string> = STRUCTURAL_KEY_SET;

/** The content fields of a snapshot (everything but the structural keys). */
export function contentFieldsOf(snapshot: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(snapshot)) if (!STRUCTURAL_KEYS.has(key)) fields[key] = value;
  return fields;
}

/** A staged revision is one written by a draft (X-Svc-Draft): recorded, but not the live item. */
export function isStagedCause(cause: Record<string, unknown> | null | undefined): boolean {
  return cause?.draft === true;
}
