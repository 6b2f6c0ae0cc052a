// Self-service accounts: sign-up (always a generic 202), email verification, resend, forgotten
// password and reset, and accepting an invitation. Every emailed token is single-use and expiring.
import { randomUUID } from 'node:crypto';
import { userDecider } from '../../../domain/identity/user.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { hashPassword } from '../../../infra/crypto/passwords.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { ensureSystemRole, SUBSCRIBER_ROLE_KEY } from '../users/systemRoles.ts';
import { consumeEmailToken, issueEmailToken } from './emailTokens.ts';
import { alreadyRegisteredMail, passwordResetMail, verificationMail } from './mailTemplates.ts';
import { revokeUserSessions } from './sessionRevocation.ts';
import { lockUniqueValue } from '../../runtime/uniqueness.ts';

export interface Registration {
  email: string;
  password: string;
  firstName?: string | null;
  lastName?: string | null;
}

interface AccountRow {
  id: string;
  email: string;
  status: string;
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

async function liveUserByEmail(tx: Queryable, siteId: string, email: string): Promise<AccountRow | null> {
  const [row] = await tx.query<AccountRow>(
    sql`SELECT id, email, status FROM users WHERE site_id = ${siteId} AND email = ${email} AND deleted_at IS NULL`,
  );
  return row ?? null;
}

/**
 * Creates an unverified subscriber and mails a verification link. An address that already has an
 * account gets a notice instead (or a fresh link while still unverified); the answer is the same.
 */
export async function register(context: AppContext, siteId: string, input: Registration, metadata: EventMetadata): Promise<void> {
  const services = context.identity;
  const email = normalizeEmail(input.email);
  const passwordHash = await hashPassword(input.password);
  const ttlSeconds = context.config.SVC_EMAIL_VERIFICATION_TTL;
  const outcome = await inSiteTransaction(context, siteId, async (tx) => {
    // A registration of the same address a moment ago is seen once it commits: this one mails a link too.
    await lockUniqueValue(tx, siteId, 'user-email', email);
    const existing = await liveUserByEmail(tx, siteId, email);
    if (existing?.status === 'unverified') {
      const token = await issueEmailToken(tx, context.projections, { siteId, userId: existing.id, purpose: 'verify_email', ttlSeconds, metadata });
      return { kind: 'unverified' as const, token };
    }
    if (existing) return { kind: 'exists' as const };
    const roleId = await ensureSystemRole(tx, context.projections, siteId, SUBSCRIBER_ROLE_KEY, metadata);
    const userId = randomUUID();
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'user', userId),
      decider: userDecider,
      command: { type: 'createUser', userId, email, passwordHash, firstName: input.firstName, lastName: input.lastName, roleId, status: 'unverified' },
      metadata: { ...metadata, actor: { kind: 'user', id: userId } },
    });
    const token = await issueEmailToken(tx, context.projections, { siteId, userId, purpose: 'verify_email', ttlSeconds, metadata });
    return { kind: 'created' as const, token };
  });
  if (outcome.kind === 'exists') {
    services.sendInBackground(alreadyRegisteredMail(email, siteId));
    return;
  }
  services.sendInBackground(verificationMail(email, siteId, services.emailLink('verify-email', siteId, outcome.token)));
}

export async function verifyEmail(context: AppContext, siteId: string, token: string, metadata: EventMetadata): Promise<void> {
  await inSiteTransaction(context, siteId, async (tx) => {
    const userId = await consumeEmailToken(tx, context.projections, { siteId, token, purpose: 'verify_email', metadata });
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'user', userId),
      decider: userDecider,
      command: { type: 'verifyEmail' },
      metadata: { ...metadata, actor: { kind: 'user', id: userId } },
    });
  });
}

/** Mails a new verification link when the address belongs to an unverified account; silent otherwise. */
export async function resendVerification(context: AppContext, siteId: string, rawEmail: string, metadata: EventMetadata): Promise<void> {
  const services = context.identity;
  const email = normalizeEmail(rawEmail);
  const token = await inSiteTransaction(context, siteId, async (tx) => {
    const user = await liveUserByEmail(tx, siteId, email);
    if (user?.status !== 'unverified') return null;
    return issueEmailToken(tx, context.projections, {
      siteId,
      userId: user.id,
      purpose: 'verify_email',
      ttlSeconds: context.config.SVC_EMAIL_VERIFICATION_TTL,
      metadata,
    });
  });
  if (token) services.sendInBackground(verificationMail(email, siteId, services.emailLink('verify-email', siteId, token)));
}

/** Mails a password-reset link when the address belongs to an active account; silent otherwise. */
export async function forgotPassword(context: AppContext, siteId: string, rawEmail: string, metadata: EventMetadata): Promise<void> {
  const services = context.identity;
  const email = normalizeEmail(rawEmail);
  const token = await inSiteTransaction(context, siteId, async (tx) => {
    const user = await liveUserByEmail(tx, siteId, email);
    if (user?.status !== 'active') return null;
    return issueEmailToken(tx, context.projections, {
      siteId,
      userId: user.id,
      purpose: 'reset_password',
      ttlSeconds: context.config.SVC_PASSWORD_RESET_TTL,
      metadata,
    });
  });
  if (token) services.sendInBackground(passwordResetMail(email, siteId, services.emailLink('reset-password', siteId, token)));
}

/** Sets a new password from a reset token, bumps tokenVersion and revokes every session of the user. */
export async function resetPassword(context: AppContext, siteId: string, token: string, password: string, metadata: EventMetadata): Promise<void> {
  const passwordHash = await hashPassword(password);
  await inSiteTransaction(context, siteId, async (tx) => {
    const userId = await consumeEmailToken(tx, context.projections, { siteId, token, purpose: 'reset_password', metadata });
    const asUser = { ...metadata, actor: { kind: 'user' as const, id: userId } };
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'user', userId),
      decider: userDecider,
      command: { type: 'changePassword', passwordHash, reason: 'reset' },
      metadata: asUser,
    });
    await revokeUserSessions(tx, context.projections, siteId, userId, 'password_reset', asUser);
  });
}

/** Accepts an invitation: the emailed token sets the first password and proves the address. */
export async function acceptInvite(context: AppContext, siteId: string, token: string, password: string, metadata: EventMetadata): Promise<void> {
  const passwordHash = await hashPassword(password);
  await inSiteTransaction(context, siteId, async (tx) => {
    const userId = await consumeEmailToken(tx, context.projections, { siteId, token, purpose: 'invite', metadata });
    const asUser = { ...metadata, actor: { kind: 'user' as const, id: userId } };
    const user = { siteId, streamId: streamId(siteId, 'user', userId), decider: userDecider, metadata: asUser };
    await handleCommandIn(tx, context.projections, { ...user, command: { type: 'changePassword', passwordHash, reason: 'invite' } });
    await handleCommandIn(tx, context.projections, { ...user, command: { type: 'verifyEmail' } });
  });
}
