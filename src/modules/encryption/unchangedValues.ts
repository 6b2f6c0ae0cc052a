// A write that sends a pii/phi field the value it already holds (a form saved whole) changes
// nothing: the stored value is a sealed reference, so the decider would see plaintext against a
// reference and record a change. Before it decides, each such value is opened and, when equal,
// replaced by the reference it equals; the write then records no change for it (and, with nothing
// else changed, no event).
import type { ItemCommand, ItemState } from '../../../domain/content/itemDecider.ts';
import { sealedIdOf } from '../../../domain/privacy/sealedReference.ts';
import type { KeyRing } from '../../../infra/crypto/keyRing.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { CollectionSchema } from '../../schema/siteSchema.ts';
import { canonicalJson } from '../../../domain/shared/canonicalJson.ts';
import { DecryptionFailure, loadSealed, openSealed } from './sealedValues.ts';

/**
 * Runs in the write's transaction with the collection the caller already holds: loading the schema
 * here could take a second connection while the transaction holds one, and a burst of writes
 * would then wait on each other for the pool.
 */
export async function keepUnchangedSealedValues(
  keyRing: KeyRing,
  tx: Queryable,
  siteId: string,
  collection: CollectionSchema,
  state: ItemState,
  command: ItemCommand,
): Promise<ItemCommand> {
  if (command.type !== 'updateItem' || !state.snapshot || collection.sensitiveFields.size === 0) return command;
  const base: Record<string, unknown> = command.target === 'draft' && state.draft ? { ...state.snapshot, ...state.draft } : state.snapshot;
  const candidates = Object.entries(command.changes.values).flatMap(([field, value]) => {
    const held = sealedIdOf(base[field]);
    return collection.sensitiveFields.has(field) && value !== null && value !== undefined && sealedIdOf(value) === null && held ? [{ field, value, held }] : [];
  });
  if (candidates.length === 0) return command;
  const stored = await loadSealed(tx, siteId, candidates.map((candidate) => candidate.held));
  const values = { ...command.changes.values };
  for (const { field, value, held } of candidates) {
    const row = stored.get(held);
    if (!row) continue;
    try {
      const current = openSealed(keyRing, siteId, row, { collection: command.collection, itemId: command.itemId, field });
      if (canonicalJson(current) === canonicalJson(value)) values[field] = base[field];
    } catch (error) {
      // A value that does not open is simply written anew; its read fails closed where it is read.
      if (!(error instanceof DecryptionFailure)) throw error;
    }
  }
  return { ...command, changes: { ...command.changes, values } };
}
