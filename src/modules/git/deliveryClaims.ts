// Claims of webhook deliveries being handled (infra/postgres/migrations/0621_git_delivery_claims.sql):
// of concurrent copies of one delivery, only the claimant acts; the others answer as duplicates.
import type { Database } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';

/** A claim this old is its dead instance's: another copy may take it over. */
const CLAIM_TAKEOVER = '10 minutes';

export async function claimDelivery(database: Database, siteId: string, integrationId: string, deliveryId: string): Promise<boolean> {
  const rows = await database.withSite(siteId, (tx) =>
    tx.query(sql`
      INSERT INTO git_delivery_claims (site_id, integration_id, delivery_id, claimed_at) VALUES (${siteId}, ${integrationId}, ${deliveryId}, now())
      ON CONFLICT (site_id, integration_id, delivery_id) DO UPDATE SET claimed_at = now()
       WHERE git_delivery_claims.claimed_at < now() - ${CLAIM_TAKEOVER}::interval
      RETURNING 1`),
  );
  return rows.length > 0;
}

export async function releaseDelivery(database: Database, siteId: string, integrationId: string, deliveryId: string): Promise<void> {
  await database.withSite(siteId, (tx) =>
    tx.query(sql`DELETE FROM git_delivery_claims WHERE site_id = ${siteId} AND integration_id = ${integrationId} AND delivery_id = ${deliveryId}`),
  );
}
