// Site administration of users: create, update, soft delete, invite, impersonate.
import { randomUUID } from 'node:crypto';
import { apiKeyDecider } from '../../../domain/identity/apiKey.ts';
import { sessionDecider } from '../../../domain/identity/session.ts';
import { userDecider, type UserChanges } from '../../../domain/identity/user.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { hashPassword } from '../../../infra/crypto/passwords.ts';
import { randomToken, tokenHash } from '../../../infra/crypto/secrets.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { AccessTokenIssuer } from '../../auth/accessTokens.ts';
import type { UserPrincipal } from '../../auth/principal.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { issueEmailToken } from '../auth/emailTokens.ts';
import type { ClientInfo, UserProfile } from '../auth/handlers.ts';
import { invitationMail } from '../auth/mailTemplates.ts';
import { normalizeEmail } from '../auth/registration.ts';
import { revokeUserSessions } from '../auth/sessionRevocation.ts';
import { findUser, findUserByEmail, roleExists, type UserView } from './queries.ts';
import { lockUniqueValue } from '../../runtime/uniqueness.ts';

export interface NewUser {
  email: string;
  password: string;
  roleId?: string | null;
  firstName?: string | null;
  lastName?: string | null;
}

export interface UserUpdate extends UserChanges {
  password?: string;
}

const emailTaken = () => new AppError('CONFLICT', 'A user with this email already exists', { path: ['body', 'email'] });

async function assertRole(tx: Queryable, siteId: string, roleId: string | null | undefined): Promise<void> {
  if (roleId && !(await roleExists(tx, siteId, roleId))) {
    throw new AppError('VALIDATION_FAILED', 'No role with this id', { path: ['body', 'roleId'] });
  }
}

function userStream(siteId: string, userId: string, metadata: EventMetadata) {
  return { siteId, streamId: streamId(siteId, 'user', userId), decider: userDecider, metadata };
}

export async function createUser(context: AppContext, siteId: string, input: NewUser, metadata: EventMetadata): Promise<UserView> {
  const email = normalizeEmail(input.email);
  const passwordHash = await hashPassword(input.password);
  const userId = randomUUID();
  return inSiteTransaction(context, siteId, async (tx) => {
    await assertRole(tx, siteId, input.roleId);
    await lockUniqueValue(tx, siteId, 'user-email', email);
    if (await findUserByEmail(tx, siteId, email)) throw emailTaken();
    await handleCommandIn(tx, context.projections, {
      ...userStream(siteId, userId, metadata),
      command: {
        type: 'createUser',
        userId,
        email,
        passwordHash,
        firstName: input.firstName,
        lastName: input.lastName,
        roleId: input.roleId ?? null,
        status: 'active',
      },
    });
    return (await findUser(tx, siteId, userId))!;
  });
}

/**
 * Updates profile, role and status; a new password or a suspension also revokes every session
 * (and a new password bumps tokenVersion, so access tokens die at once).
 */
export async function updateUser(
  context: AppContext,
  siteId: string,
  userId: string,
  update: UserUpdate,
  actor: UserPrincipal,
  metadata: EventMetadata,
): Promise<UserView> {
  const { password, ...changes } = update;
  if (userId === actor.userId && changes.status === 'suspended') {
    throw new AppError('CONFLICT', 'You cannot suspend your own account', { path: ['body', 'status'] });
  }
  const passwordHash = password === undefined ? null : await hashPassword(password);
  if (changes.email !== undefined) changes.email = normalizeEmail(changes.email);
  return inSiteTransaction(context, siteId, async (tx) => {
    const current = await findUser(tx, siteId, userId);
    if (!current) throw errors.notFound('User not found');
    await assertRole(tx, siteId, changes.roleId);
    if (changes.email !== undefined && changes.email !== current.email) {
      await lockUniqueValue(tx, siteId, 'user-email', changes.email);
      if (await findUserByEmail(tx, siteId, changes.email)) throw emailTaken();
    }
    const stream = userStream(siteId, userId, metadata);
    await handleCommandIn(tx, context.projections, { ...stream, command: { type: 'updateUser', changes } });
    if (passwordHash) {
      await handleCommandIn(tx, context.projections, { ...stream, command: { type: 'changePassword', passwordHash, reason: 'admin' } });
      await revokeUserSessions(tx, context.projections, siteId, userId, 'password_changed', metadata);
    }
    if (changes.status === 'suspended' && current.status !== 'suspended') {
      await revokeUserSessions(tx, context.projections, siteId, userId, 'user_suspended', metadata);
    }
    return (await findUser(tx, siteId, userId))!;
  });
}

/** Soft delete: the user can no longer sign in, its sessions and API keys are revoked, its email is free. */
export async function deleteUser(context: AppContext, siteId: string, userId: string, actor: UserPrincipal, metadata: EventMetadata): Promise<void> {
  if (userId === actor.userId) throw new AppError('CONFLICT', 'You cannot delete your own account', { path: ['params', 'id'] });
  await inSiteTransaction(context, siteId, async (tx) => {
    if (!(await findUser(tx, siteId, userId))) throw errors.notFound('User not found');
    await handleCommandIn(tx, context.projections, { ...userStream(siteId, userId, metadata), command: { type: 'deleteUser' } });
    await revokeUserSessions(tx, context.projections, siteId, userId, 'user_deleted', metadata);
    const keys = await tx.query<{ id: string }>(sql`SELECT id FROM api_keys WHERE site_id = ${siteId} AND user_id = ${userId} AND revoked_at IS NULL`);
    for (const key of keys) {
      await handleCommandIn(tx, context.projections, {
        siteId,
        streamId: streamId(siteId, 'api-key', key.id),
        decider: apiKeyDecider,
        command: { type: 'revokeApiKey' },
        metadata,
      });
    }
  });
}

export interface Invitation {
  email: string;
  roleId?: string | null;
  firstName?: string | null;
  lastName?: string | null;
}

/**
 * Creates an invited user (no password) and mails a link to accept (POST /auth/accept-invite).
 * Inviting an address that is still only invited sends a new link; any other account is a 409.
 * The mail is sent before answering: a failed delivery is 502 DELIVERY_FAILED (inviting again retries).
 */
export async function inviteUser(
  context: AppContext,
  siteId: string,
  invitation: Invitation,
  metadata: EventMetadata,
): Promise<{ user: UserView; created: boolean }> {
  const services = context.identity;
  const email = normalizeEmail(invitation.email);
  const { user, created, token } = await inSiteTransaction(context, siteId, async (tx) => {
    await assertRole(tx, siteId, invitation.roleId);
    await lockUniqueValue(tx, siteId, 'user-email', email);
    const existing = await findUserByEmail(tx, siteId, email);
    if (existing && existing.status !== 'invited') throw emailTaken();
    const userId = existing?.id ?? randomUUID();
    if (!existing) {
      await handleCommandIn(tx, context.projections, {
        ...userStream(siteId, userId, metadata),
        command: {
          type: 'createUser',
          userId,
          email,
          passwordHash: null,
          firstName: invitation.firstName,
          lastName: invitation.lastName,
          roleId: invitation.roleId ?? null,
          status: 'invited',
        },
      });
    }
    const token = await issueEmailToken(tx, context.projections, { siteId, userId, purpose: 'invite', ttlSeconds: context.config.SVC_INVITE_TTL, metadata });
    return { user: (await findUser(tx, siteId, userId))!, created: !existing, token };
  });
  try {
    await services.mailer.send(invitationMail(email, siteId, services.emailLink('accept-invite', siteId, token)));
  } catch (error) {
    context.logger.error({ err: error }, 'invitation mail failed');
    throw new AppError('DELIVERY_FAILED', 'The invitation email could not be sent; invite again to retry', { extensions: { userId: user.id } });
  }
  return { user, created };
}

export interface Impersonation {
  token: string;
  expires: number;
  sessionId: string;
  user: UserProfile;
}

/**
 * Opens a session as another user for a signed-in administrator: an access token whose claims name
 * the impersonator, no refresh token (it ends with the access token), and a `user.impersonated` event.
 */
export async function impersonate(
  context: AppContext,
  tokens: AccessTokenIssuer,
  siteId: string,
  targetUserId: string,
  impersonator: UserPrincipal,
  client: ClientInfo,
  metadata: EventMetadata,
): Promise<Impersonation> {
  // The route admits administrators signed in as themselves; an impersonated session does not chain.
  if (impersonator.impersonatorId) throw errors.forbidden('Impersonation needs an administrator signed in as themselves');
  const sessionId = randomUUID();
  const expiresAt = new Date(Date.now() + context.config.SVC_ACCESS_TOKEN_TTL * 1000);
  const target = await inSiteTransaction(context, siteId, async (tx) => {
    const [row] = await tx.query<{ id: string; email: string; first_name: string | null; last_name: string | null; avatar: string | null; token_version: number }>(
      sql`SELECT id, email, first_name, last_name, avatar, token_version FROM users WHERE site_id = ${siteId} AND id = ${targetUserId} AND deleted_at IS NULL`,
    );
    if (!row) throw errors.notFound('User not found');
    await handleCommandIn(tx, context.projections, {
      ...userStream(siteId, targetUserId, metadata),
      command: { type: 'impersonate', impersonatorId: impersonator.userId, sessionId },
    });
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'session', sessionId),
      decider: sessionDecider,
      command: {
        type: 'startSession',
        sessionId,
        userId: targetUserId,
        // Nobody holds this refresh token: it only gives the session a family that can be revoked.
        refreshTokenHash: tokenHash(`${sessionId}.${randomToken(32)}`),
        expiresAt,
        userAgent: client.userAgent,
        ip: client.ip,
        impersonatorId: impersonator.userId,
      },
      metadata,
    });
    return row;
  });
  const access = await tokens.issue({
    siteId,
    userId: target.id,
    sessionId,
    tokenVersion: target.token_version,
    impersonatorId: impersonator.userId,
    realm: 'studio',
  });
  return {
    token: access.token,
    expires: access.expiresAt.getTime(),
    sessionId,
    user: { id: target.id, email: target.email, firstName: target.first_name, lastName: target.last_name, avatar: target.avatar },
  };
}
