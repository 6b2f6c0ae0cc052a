// An integration's secrets (cloud-sync credentials, git tokens and webhook secrets), sealed in the
// sensitive value store (./sealedValues.ts) with the site's active key, as pii values are: the log and
// the read models hold only the reference, a key rotation's rewrap reseals them with the rest, and
// replacing or deleting one destroys the old sealed value. Only the area's own runtime opens them; no
// answer, event or log line holds them.
import { AppError } from '../../../domain/shared/appError.ts';
import { sealedIdOf, sealedReference } from '../../../domain/privacy/sealedReference.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { AppContext } from '../../runtime/context.ts';
import { readEncryptionSettings } from './encryptionSettings.ts';
import { deleteSealed, insertSealed, loadSealed, openSealed, sealValue, type SealTarget } from './sealedValues.ts';

export type { SealTarget };

/**
 * Seals `value` for `target` (a collection name no site can have, e.g. `$cloud-sync`) and answers its
 * reference; 400 ENCRYPTION_KEY_REQUIRED at `path` when the site's key has no bytes.
 */
export async function sealSecret(context: AppContext, tx: Queryable, siteId: string, target: SealTarget, value: unknown, path: readonly (string | number)[]): Promise<string> {
  const mode = await readEncryptionSettings(tx, siteId, context.keyRing);
  if (!context.keyRing.has(mode.keyId)) {
    throw new AppError('ENCRYPTION_KEY_REQUIRED', `The ${target.field} cannot be sealed: the site's encryption key "${mode.keyId}" has no bytes in SVC_ENCRYPTION_KEYS`, {
      path: [...path],
    });
  }
  const row = sealValue(context.keyRing, siteId, mode, target, value);
  insertSealed(tx, siteId, [row]);
  return sealedReference(row.id);
}

/** The value a reference names; throws DecryptionFailure when it does not open (a missing key). */
export async function openSecret(context: AppContext, tx: Queryable, siteId: string, target: SealTarget, reference: string): Promise<unknown> {
  const id = sealedIdOf(reference);
  const row = id === null ? undefined : (await loadSealed(tx, siteId, [id])).get(id);
  if (!row) throw new Error(`The sealed ${target.field} of ${target.collection} ${target.itemId} is missing from the sealed value store`);
  return openSealed(context.keyRing, siteId, row, target);
}

export async function destroySecret(tx: Queryable, siteId: string, reference: string | null): Promise<void> {
  const id = reference === null ? null : sealedIdOf(reference);
  if (id !== null) await deleteSealed(tx, siteId, [id]);
}
