// A pipeline's credentials, sealed in the sensitive value store (src/modules/encryption/sealedValues.ts)
// with the site's active key, as pii values are: the log and the read model hold only the reference,
// a key rotation's rewrap reseals them with the rest, and replacing or deleting them destroys the old
// sealed value. Only the sync reactor and a backfill open them; no answer, event or log line holds them.
import { AppError } from '../../../domain/shared/appError.ts';
import { sealedIdOf, sealedReference } from '../../../domain/privacy/sealedReference.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { AppContext } from '../../runtime/context.ts';
import { readEncryptionSettings } from '../encryption/encryptionSettings.ts';
import { deleteSealed, insertSealed, loadSealed, openSealed, sealValue, type SealTarget } from '../encryption/sealedValues.ts';

/** Where a pipeline's credentials belong in the store: no collection of the site can be named so. */
const targetOf = (pipelineId: string): SealTarget => ({ collection: '$cloud-sync', itemId: pipelineId, field: 'credentials' });

export async function sealCredentials(context: AppContext, tx: Queryable, siteId: string, pipelineId: string, credentials: object): Promise<string> {
  const mode = await readEncryptionSettings(tx, siteId, context.keyRing);
  if (!context.keyRing.has(mode.keyId)) {
    throw new AppError('ENCRYPTION_KEY_REQUIRED', `The credentials cannot be sealed: the site's encryption key "${mode.keyId}" has no bytes in SVC_ENCRYPTION_KEYS`, {
      path: ['body', 'credentials'],
    });
  }
  const row = sealValue(context.keyRing, siteId, mode, targetOf(pipelineId), credentials);
  insertSealed(tx, siteId, [row]);
  return sealedReference(row.id);
}

/** The credentials a reference names; throws DecryptionFailure when they do not open (a missing key). */
export async function openCredentials(context: AppContext, tx: Queryable, siteId: string, pipelineId: string, reference: string): Promise<unknown> {
  const id = sealedIdOf(reference);
  const row = id === null ? undefined : (await loadSealed(tx, siteId, [id])).get(id);
  if (!row) throw new Error('The pipeline credentials are missing from the sealed value store');
  return openSealed(context.keyRing, siteId, row, targetOf(pipelineId));
}

export async function destroyCredentials(tx: Queryable, siteId: string, reference: string): Promise<void> {
  const id = sealedIdOf(reference);
  if (id !== null) await deleteSealed(tx, siteId, [id]);
}
