// A pipeline's credentials, sealed in the sensitive value store (../encryption/sealedSecrets.ts). Only
// the sync reactor and a backfill open them.
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { AppContext } from '../../runtime/context.ts';
import { destroySecret, openSecret, sealSecret, type SealTarget } from '../encryption/sealedSecrets.ts';

/** Where a pipeline's credentials belong in the store: no collection of the site can be named so. */
const targetOf = (pipelineId: string): SealTarget => ({ collection: '$cloud-sync', itemId: pipelineId, field: 'credentials' });

export function sealCredentials(context: AppContext, tx: Queryable, siteId: string, pipelineId: string, credentials: object): Promise<string> {
  return sealSecret(context, tx, siteId, targetOf(pipelineId), credentials, ['body', 'credentials']);
}

export function openCredentials(context: AppContext, tx: Queryable, siteId: string, pipelineId: string, reference: string): Promise<unknown> {
  return openSecret(context, tx, siteId, targetOf(pipelineId), reference);
}

export const destroyCredentials = destroySecret;
