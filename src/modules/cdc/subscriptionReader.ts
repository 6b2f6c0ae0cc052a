// Whose eyes a webhook subscription reads the feed with: its creator's, as that principal stands at
// delivery time (role, admin flag, policies now), so a webhook never delivers more than its creator
// could read with GET /cdc/events. A creator that can no longer sign in (user suspended or gone,
// API key revoked, its role gone) has no reader: the reactor holds its entries until it can.
// The feed's head is read in the same statement as the creator: a batch delivers entries up to it
// only, so every entry sent was committed before the access it is sent with was read (a suspension
// or role change committed before an entry applies to that entry).
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { UUID_PATTERN } from '../../../domain/shared/uuid.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { accessFor } from '../../access/access.ts';
import { API_KEY_USER_PREFIX, type Principal } from '../../auth/principal.ts';
import type { AppContext } from '../../runtime/context.ts';
import { feedViewFor, type FeedView } from './feedVisibility.ts';

export type SubscriptionReader =
  | { signedIn: true; view: FeedView; actor: EventMetadata['actor']; headSeq: number }
  | { signedIn: false; reason: string };

interface CreatorRow {
  head_seq: number;
  creator_kind: string | null;
  creator_id: string | null;
  user_status: string | null;
  user_role_id: string | null;
  user_admin: boolean | null;
  key_active: boolean;
  key_role_id: string | null;
  key_role_admin: boolean | null;
}

const UUID = UUID_PATTERN.source;

/** The creator as a principal now, or why it has none. */
function principalOf(row: CreatorRow): Principal | string {
  const base = { kind: 'user' as const, sessionId: null, impersonatorId: null, realm: 'studio' as const };
  switch (row.creator_kind) {
    case 'instance':
      return { kind: 'instance' };
    case 'user':
    case 'apiKey':
      if (row.creator_id?.startsWith(API_KEY_USER_PREFIX)) {
        if (!row.key_active || row.key_role_id === null) return 'the API key that created it is revoked or its role is gone';
        return { ...base, userId: row.creator_id, roleId: row.key_role_id, admin: row.key_role_admin === true, via: 'apiKey' };
      }
      if (row.user_status !== 'active') return 'the user who created it is not active any more';
      return { ...base, userId: row.creator_id!, roleId: row.user_role_id, admin: row.user_admin === true, via: row.creator_kind === 'apiKey' ? 'apiKey' : 'session' };
    default:
      return 'it has no creator that could read the feed';
  }
}

/** null when the subscription does not exist. */
export async function subscriptionReader(
  context: Pick<AppContext, 'database' | 'schemas' | 'grants' | 'logger'>,
  siteId: string,
  subscriptionId: string,
): Promise<SubscriptionReader | null> {
  const [row] = await context.database.withSite(siteId, (tx) =>
    tx.query<CreatorRow>(sql`
      SELECT coalesce((SELECT last_seq FROM cdc_feed_sites h WHERE h.site_id = s.site_id), 0) AS head_seq,
             s.creator_kind, s.creator_id, u.status AS user_status, u.role_id AS user_role_id, ur.admin AS user_admin,
             (k.id IS NOT NULL AND k.revoked_at IS NULL) AS key_active, kr.id AS key_role_id, kr.admin AS key_role_admin
        FROM cdc_subscriptions s
        LEFT JOIN users u ON u.site_id = s.site_id AND u.id = (CASE WHEN s.creator_id ~* ${UUID} THEN s.creator_id::uuid END)
        LEFT JOIN roles ur ON ur.site_id = u.site_id AND ur.id = u.role_id
        LEFT JOIN api_keys k ON k.site_id = s.site_id
             AND k.id = (CASE WHEN substr(s.creator_id, ${API_KEY_USER_PREFIX.length + 1}) ~* ${UUID} AND starts_with(s.creator_id, ${API_KEY_USER_PREFIX})
                              THEN substr(s.creator_id, ${API_KEY_USER_PREFIX.length + 1})::uuid END)
        LEFT JOIN roles kr ON kr.site_id = k.site_id AND kr.id = k.role_id
       WHERE s.site_id = ${siteId} AND s.id = ${subscriptionId}::uuid`),
  );
  if (!row) return null;
  const principal = principalOf(row);
  if (typeof principal === 'string') return { signedIn: false, reason: `Not delivered: ${principal}` };
  const [access, schema] = await Promise.all([accessFor(context, siteId, principal), context.schemas.site(siteId)]);
  return {
    signedIn: true,
    view: feedViewFor(access, schema),
    actor: { kind: row.creator_kind as EventMetadata['actor']['kind'], id: row.creator_id },
    headSeq: Number(row.head_seq),
  };
}
