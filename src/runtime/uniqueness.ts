// The one way a command keeps a value unique within a site (a team's or policy's name, a user's email,
// an issuer, a page's slug): take the value's lock in the command's transaction, then check the read
// model. Writers of the same value queue on the lock, so the check of each sees the claims committed
// before it, whatever the read model's projection mode; the read model's unique index stays as the
// database's own guard. Answer a taken value with the area's 409, before anything is written.
import type { Queryable } from '../../infra/postgres/database.ts';
import { sql } from '../../infra/postgres/sql.ts';

/** The scope of a value unique across every site of the deployment (a site's domain): no site id has this form. */
export const DEPLOYMENT_SCOPE = '*';

/**
 * Holds the lock of `value` of `kind` in `scope` (a site id, or DEPLOYMENT_SCOPE) until the transaction
 * ends; pass the value as the unique index compares it (lowercased for a case-insensitive name).
 */
export async function lockUniqueValue(tx: Queryable, scope: string, kind: string, value: string): Promise<void> {
  await tx.query(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${scope}/unique/${kind}/${value}`}, 0))`);
}
