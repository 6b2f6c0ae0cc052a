// The signed-in user's own account: password change, sessions, preferences.
import { userDecider, type Preferences } from '../../../domain/identity/user.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { hashPassword, verifyPassword } from '../../../infra/crypto/passwords.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { handleCommand, handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { revokeSessionIn, revokeUserSessions } from '../auth/sessionRevocation.ts';
import { activeSessionOwner, readPreferences } from './queries.ts';

/**
 * Verifies the current password, stores the new hash (bumping tokenVersion: every access token of
 * the user stops working at once) and revokes every session (refresh token) of the user.
 */
export async function changePassword(
  context: AppContext,
  siteId: string,
  userId: string,
  input: { currentPassword: string; newPassword: string },
  metadata: EventMetadata,
): Promise<void> {
  const [row] = await context.database.withSite(siteId, (tx) =>
    tx.query<{ password_hash: string | null }>(sql`SELECT password_hash FROM users WHERE site_id = ${siteId} AND id = ${userId} AND deleted_at IS NULL`),
  );
  if (!row) throw errors.notFound('User not found');
  if (!(await verifyPassword(row.password_hash, input.currentPassword))) {
    throw new AppError('INVALID_CREDENTIALS', 'The current password is wrong', { path: ['body', 'currentPassword'] });
  }
  const passwordHash = await hashPassword(input.newPassword);
  await inSiteTransaction(context, siteId, async (tx) => {
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'user', userId),
      decider: userDecider,
      command: { type: 'changePassword', passwordHash, reason: 'change' },
      metadata,
    });
    await revokeUserSessions(tx, context.projections, siteId, userId, 'password_changed', metadata);
  });
}

/** Revokes one active session; `ownerId` restricts it to that user's sessions (404 otherwise). */
export async function revokeSession(
  context: AppContext,
  siteId: string,
  sessionId: string,
  ownerId: string | null,
  metadata: EventMetadata,
): Promise<void> {
  await inSiteTransaction(context, siteId, async (tx) => {
    const owner = await activeSessionOwner(tx, siteId, sessionId);
    if (!owner || (ownerId !== null && owner !== ownerId)) throw errors.notFound('Session not found');
    await revokeSessionIn(tx, context.projections, siteId, sessionId, 'revoked', metadata);
  });
}

export async function revokeAllSessions(context: AppContext, siteId: string, userId: string, metadata: EventMetadata): Promise<number> {
  return inSiteTransaction(context, siteId, (tx) => revokeUserSessions(tx, context.projections, siteId, userId, 'revoked', metadata));
}

/** Shallow-merges `changes` into the user's preferences and returns the result. */
export async function updatePreferences(
  context: AppContext,
  siteId: string,
  userId: string,
  changes: Preferences,
  metadata: EventMetadata,
): Promise<Record<string, unknown>> {
  await handleCommand(context, {
    siteId,
    streamId: streamId(siteId, 'user', userId),
    decider: userDecider,
    command: { type: 'updatePreferences', changes },
    metadata,
  });
  const preferences = await context.database.withSite(siteId, (tx) => readPreferences(tx, siteId, userId));
  if (!preferences) throw errors.notFound('User not found');
  return preferences;
}
