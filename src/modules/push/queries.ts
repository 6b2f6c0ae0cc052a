// Reading a user's web push subscriptions.
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';

export interface PushSubscriptionRow {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: Date;
  updated_at: Date;
}

export async function listUserPushSubscriptions(tx: Queryable, siteId: string, userId: string): Promise<PushSubscriptionRow[]> {
  return tx.query<PushSubscriptionRow>(sql`
    SELECT id, endpoint, p256dh, auth, created_at, updated_at FROM push_subscriptions
     WHERE site_id = ${siteId} AND user_id = ${userId} ORDER BY created_at, id`);
}

export async function countUserPushSubscriptions(tx: Queryable, siteId: string, userId: string): Promise<number> {
  const [row] = await tx.query<{ total: number }>(
    sql`SELECT count(*)::int AS total FROM push_subscriptions WHERE site_id = ${siteId} AND user_id = ${userId}`,
  );
  return row?.total ?? 0;
}
