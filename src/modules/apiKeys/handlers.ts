// API key commands. A key is `svk_` + 32 random bytes (base64url), returned once at creation and
// stored only as its SHA-256 hash; it is bound to this site and to a user or a role.
import { randomUUID } from 'node:crypto';
import { apiKeyDecider } from '../../../domain/identity/apiKey.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { randomToken, tokenHash } from '../../../infra/crypto/secrets.ts';
import { API_KEY_PREFIX } from '../../auth/apiKeyAuthenticator.ts';
import { handleCommand, handleCommandIn, inSiteTransaction } from '../../runtime/commandBus.ts';
import type { AppContext } from '../../runtime/context.ts';
import { findUser, roleExists } from '../users/queries.ts';
import { findApiKey, type ApiKeyView } from './queries.ts';

export interface NewApiKey {
  name: string;
  userId?: string | null;
  roleId?: string | null;
}

export async function createApiKey(context: AppContext, siteId: string, input: NewApiKey, metadata: EventMetadata): Promise<ApiKeyView & { key: string }> {
  const userId = input.userId ?? null;
  const roleId = input.roleId ?? null;
  if ((userId === null) === (roleId === null)) {
    throw new AppError('VALIDATION_FAILED', 'Give exactly one of userId or roleId', { path: ['body', userId === null ? 'userId' : 'roleId'] });
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
      command: { type: 'createApiKey', apiKeyId, name: input.name, keyHash: tokenHash(key), prefix: key.slice(0, 12), userId, roleId },
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
