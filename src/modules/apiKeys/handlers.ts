// API key commands. A key is `svk_` + 32 random bytes (base64url), returned once at creation and
// stored only as its SHA-256 hash; it is bound to this site and to a user or a role (by default the
// calling user, as a personal access token is). A key may expire: from `expiresAt` on it answers 401
// TOKEN_EXPIRED (src/auth/apiKeyAuthenticator.ts).
import { randomUUID } from 'node:crypto';
import { apiKeyDecider } from '../../../domain/identity/apiKey.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { randomToken, tokenHash } from '../../../infra/crypto/secrets.ts';
import { API_KEY_PREFIX } from '../../auth/apiKeyAuthenticator.ts';
import { isSiteUser, type Principal } from '../../auth/principal.ts';
import { handleCommand, handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { findUser, roleExists } from '../users/queries.ts';
import { findApiKey, type ApiKeyView } from './queries.ts';

export interface NewApiKey {
  name: string;
  userId?: string | null;
  roleId?: string | null;
  expiresAt?: string | null;
}

/** The expiry as stored (UTC, milliseconds), or 400 at body.expiresAt when it is not in the future. */
function checkedExpiry(expiresAt: string | null | undefined, now: Date): string | null {
  if (expiresAt === undefined || expiresAt === null) return null;
  const at = new Date(expiresAt);
  if (!(at.getTime() > now.getTime())) {
    throw new AppError('VALIDATION_FAILED', 'expiresAt must be in the future', { path: ['body', 'expiresAt'] });
  }
  return at.toISOString();
}

/** With neither userId nor roleId the key acts as the caller: the user it is, or acts as (a user-bound key). */
function callerAsUser(caller: Principal): string {
  if (isSiteUser(caller)) return caller.userId;
  throw new AppError('VALIDATION_FAILED', 'The caller is not a user (an API key bound to a role): give userId or roleId', {
    path: ['body', 'userId'],
  });
}

export async function createApiKey(
  context: AppContext,
  siteId: string,
  input: NewApiKey,
  caller: Principal,
  metadata: EventMetadata,
): Promise<ApiKeyView & { key: string }> {
  const expiresAt = checkedExpiry(input.expiresAt, new Date());
  const roleId = input.roleId ?? null;
  const userId = input.userId ?? (roleId === null ? callerAsUser(caller) : null);
  if (userId !== null && roleId !== null) {
    throw new AppError('VALIDATION_FAILED', 'Give one of userId or roleId, not both', { path: ['body', 'roleId'] });
  }
  const apiKeyId = randomUUID();
  const key = `${API_KEY_PREFIX}${randomToken(32)}`;
  const view = await inSiteTransaction(context, siteId, async (tx) => {
    if (userId !== null && !(await findUser(tx, siteId, userId))) {
      throw new AppError('VALIDATION_FAILED', 'No user with this id', { path: ['body', 'userId'] });
    }
    if (roleId !== null && !(await roleExists(tx, siteId, roleId))) {
      throw new AppError('VALIDATION_FAILED', 'No role with this id', { path: ['body', 'roleId'] });
    }
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'api-key', apiKeyId),
      decider: apiKeyDecider,
      command: { type: 'createApiKey', apiKeyId, name: input.name, keyHash: tokenHash(key), prefix: key.slice(0, 12), userId, roleId, expiresAt },
      metadata,
    });
    return (await findApiKey(tx, siteId, apiKeyId))!;
  });
  return { ...view, key };
}

export async function revokeApiKey(context: AppContext, siteId: string, apiKeyId: string, metadata: EventMetadata): Promise<void> {
  await handleCommand(context, {
    siteId,
    streamId: streamId(siteId, 'api-key', apiKeyId),
    decider: apiKeyDecider,
    command: { type: 'revokeApiKey' },
    metadata,
  });
}
