// Sign-in: login, refresh-token rotation with reuse detection, logout, and the current user.
import { randomUUID } from 'node:crypto';
import { sessionDecider } from '../../../domain/identity/session.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { verifyPassword } from '../../../infra/crypto/passwords.ts';
import { randomToken, tokenHash } from '../../../infra/crypto/secrets.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { AccessTokenIssuer } from '../../auth/accessTokens.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { recordFailedSignIn } from './failedSignIns.ts';
import type { SignInLimiter } from './signInLimits.ts';

export interface UserProfile {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  avatar: string | null;
}

export interface SignedIn {
  token: string;
  expires: number;
  refreshToken: string;
  refreshExpiresAt: Date;
  user: UserProfile;
}

export interface UserRow {
  id: string;
  email: string;
  password_hash: string | null;
  first_name: string | null;
  last_name: string | null;
  avatar: string | null;
  status: string;
  token_version: number;
}

function profileOf(row: UserRow): UserProfile {
  return { id: row.id, email: row.email, firstName: row.first_name, lastName: row.last_name, avatar: row.avatar };
}

export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

export interface AuthDeps {
  context: AppContext;
  tokens: AccessTokenIssuer;
}

/** A refresh token names its session (the family) and carries 32 random bytes. */
function newRefreshToken(sessionId: string): string {
  return `${sessionId}.${randomToken(32)}`;
}

function sessionIdOf(refreshToken: string): string {
  const sessionId = refreshToken.split('.')[0] ?? '';
  if (!/^[0-9a-f-]{36}$/.test(sessionId)) throw errors.unauthenticated('The refresh token is not valid');
  return sessionId;
}

/**
 * Email and password sign-in. The per-account limit counts the attempt first, by email whether or not
 * a user has it (signInLimits.ts): while locked, even the right password gets 429.
 */
export async function login(
  { context, tokens, signInLimiter }: AuthDeps & { signInLimiter: SignInLimiter },
  siteId: string,
  credentials: { email: string; password: string },
  client: ClientInfo,
  metadata: EventMetadata,
): Promise<SignedIn> {
  const email = credentials.email.trim().toLowerCase();
  await signInLimiter.beforeAttempt(siteId, email);
  const [user] = await context.database.withSite(siteId, (tx) =>
    tx.query<UserRow>(sql`SELECT * FROM users WHERE site_id = ${siteId} AND email = ${email} AND deleted_at IS NULL`),
  );
  const passwordMatches = await verifyPassword(user?.password_hash ?? null, credentials.password);
  if (!user || !passwordMatches || user.status !== 'active') {
    const reason = !user ? 'unknown_email' : passwordMatches ? 'inactive' : 'wrong_password';
    await recordFailedSignIn(context, siteId, { email, userId: user?.id ?? null, reason, ip: client.ip }, metadata);
    throw errors.invalidCredentials();
  }
  await signInLimiter.succeeded(siteId, email);
  return startSession({ context, tokens }, siteId, user, client, { ...metadata, actor: { kind: 'user', id: user.id } });
}

export async function startSession(
  { context, tokens }: AuthDeps,
  siteId: string,
  user: UserRow,
  client: ClientInfo,
  metadata: EventMetadata,
  impersonatorId: string | null = null,
): Promise<SignedIn> {
  const sessionId = randomUUID();
  const refreshToken = newRefreshToken(sessionId);
  const refreshExpiresAt = new Date(Date.now() + context.config.SVC_REFRESH_TOKEN_TTL * 1000);
  await handleCommand(context, {
    siteId,
    streamId: streamId(siteId, 'session', sessionId),
    decider: sessionDecider,
    command: {
      type: 'startSession',
      sessionId,
      userId: user.id,
      refreshTokenHash: tokenHash(refreshToken),
      expiresAt: refreshExpiresAt,
      userAgent: client.userAgent,
      ip: client.ip,
      impersonatorId,
    },
    metadata,
  });
  const access = await tokens.issue({ siteId, userId: user.id, sessionId, tokenVersion: user.token_version, impersonatorId, realm: 'studio' });
  return { token: access.token, expires: access.expiresAt.getTime(), refreshToken, refreshExpiresAt, user: profileOf(user) };
}

/** Rotates a refresh token. A token that was already rotated revokes its whole family. */
export async function refresh({ context, tokens }: AuthDeps, siteId: string, presented: string, metadata: EventMetadata): Promise<SignedIn> {
  const sessionId = sessionIdOf(presented);
  const nextToken = newRefreshToken(sessionId);
  const refreshExpiresAt = new Date(Date.now() + context.config.SVC_REFRESH_TOKEN_TTL * 1000);
  const result = await handleCommand(context, {
    siteId,
    streamId: streamId(siteId, 'session', sessionId),
    decider: sessionDecider,
    command: { type: 'refreshSession', presentedTokenHash: tokenHash(presented), nextTokenHash: tokenHash(nextToken), expiresAt: refreshExpiresAt, now: new Date() },
    metadata,
  });
  if (result.state.status !== 'active') {
    throw new AppError('UNAUTHENTICATED', 'The refresh token is no longer valid; sign in again');
  }
  const [row] = await context.database.withSite(siteId, (tx) =>
    tx.query<UserRow & { session_user_id: string; impersonator_id: string | null }>(sql`
      SELECT u.*, s.impersonator_id FROM sessions s JOIN users u ON u.site_id = s.site_id AND u.id = s.user_id
       WHERE s.site_id = ${siteId} AND s.id = ${sessionId}`),
  );
  if (!row || row.status !== 'active') throw new AppError('UNAUTHENTICATED', 'The account is not active');
  const access = await tokens.issue({ siteId, userId: row.id, sessionId, tokenVersion: row.token_version, impersonatorId: row.impersonator_id, realm: 'studio' });
  return { token: access.token, expires: access.expiresAt.getTime(), refreshToken: nextToken, refreshExpiresAt, user: profileOf(row) };
}

/** Revokes the family of the presented refresh token. Unknown tokens are ignored (logout is idempotent). */
export async function logout(context: AppContext, siteId: string, presented: string, metadata: EventMetadata): Promise<void> {
  const sessionId = sessionIdOf(presented);
  const [session] = await context.database.withSite(siteId, (tx) =>
    tx.query<{ refresh_token_hash: string }>(sql`SELECT refresh_token_hash FROM sessions WHERE site_id = ${siteId} AND id = ${sessionId}`),
  );
  if (!session || session.refresh_token_hash !== tokenHash(presented)) return;
  await handleCommand(context, {
    siteId,
    streamId: streamId(siteId, 'session', sessionId),
    decider: sessionDecider,
    command: { type: 'revokeSession', reason: 'logout' },
    metadata,
  });
}

export async function currentUser(context: AppContext, siteId: string, userId: string): Promise<UserProfile> {
  const [row] = await context.database.withSite(siteId, (tx) =>
    tx.query<UserRow>(sql`SELECT * FROM users WHERE site_id = ${siteId} AND id = ${userId} AND deleted_at IS NULL`),
  );
  if (!row) throw errors.recordNotFound('User not found');
  return profileOf(row);
}
