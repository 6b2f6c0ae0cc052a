// The gate of every processing a restriction stops (docs/privacy.md, "What a restriction stops"):
// marketing email, pageview attribution and AI processing of a user's content ask this first and
// skip the user when it answers true. Email and AI features are not built yet: they must call it.
import { PROCESSING_PURPOSES, type ProcessingPurpose } from '../../../domain/privacy/restriction.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { AppContext } from '../../runtime/context.ts';

export type { ProcessingPurpose };

async function restricted(tx: Queryable, siteId: string, userId: string): Promise<boolean> {
  const rows = await tx.query(sql`SELECT 1 FROM processing_restrictions WHERE site_id = ${siteId} AND user_id = ${userId}`);
  return rows.length > 0;
}

/**
 * Whether `userId` has restricted the processing of their data for `purpose`. Pass the caller's
 * site transaction when there is one (the answer is then part of it), else the context. A purpose
 * outside PROCESSING_PURPOSES is not stopped by a restriction.
 */
export async function isProcessingRestricted(
  source: Queryable | Pick<AppContext, 'database'>,
  siteId: string,
  userId: string,
  purpose: ProcessingPurpose,
): Promise<boolean> {
  if (!PROCESSING_PURPOSES.includes(purpose)) return false;
  if ('database' in source) return source.database.withSiteReads(siteId, (tx) => restricted(tx, siteId, userId));
  return restricted(source, siteId, userId);
}
