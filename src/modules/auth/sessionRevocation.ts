// Ending sessions (refresh-token families): one, or every active session of a user, each as a
// `session.revoked` event in the caller's transaction.
import { sessionDecider, type SessionRevokeReason } from '../../../domain/identity/session.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { Projection } from '../../../projections/projection.ts';
import { handleCommandIn } from '../../runtime/commandHandler.ts';

export async function revokeSessionIn(
  tx: Queryable,
  projections: readonly Projection[],
  siteId: string,
  sessionId: string,
  reason: SessionRevokeReason,
  metadata: EventMetadata,
): Promise<boolean> {
  const result = await handleCommandIn(tx, projections, {
    siteId,
    streamId: streamId(siteId, 'session', sessionId),
    decider: sessionDecider,
    command: { type: 'revokeSession', reason },
    metadata,
  });
  return result.events.length > 0;
}

/** Revokes every active session of the user; returns how many were revoked. */
export async function revokeUserSessions(
  tx: Queryable,
  projections: readonly Projection[],
  siteId: string,
  userId: string,
  reason: SessionRevokeReason,
  metadata: EventMetadata,
): Promise<number> {
  const sessions = await tx.query<{ id: string }>(
    sql`SELECT id FROM sessions WHERE site_id = ${siteId} AND user_id = ${userId} AND revoked_at IS NULL ORDER BY created_at`,
  );
  let revoked = 0;
  for (const session of sessions) {
    if (await revokeSessionIn(tx, projections, siteId, session.id, reason, metadata)) revoked += 1;
  }
  return revoked;
}
