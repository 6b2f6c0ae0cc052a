// Emailed tokens: `<tokenId>.<32 random bytes>`. The id names the token's stream; only the hash of
// the whole token is stored, in the `email_token.issued` event.
import { randomUUID } from 'node:crypto';
import { emailTokenDecider, type EmailTokenPurpose } from '../../../domain/identity/emailToken.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { isUuid } from '../../../domain/shared/uuid.ts';
import { randomToken, tokenHash } from '../../../infra/crypto/secrets.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { Projection } from '../../../projections/projection.ts';
import { handleCommandIn } from '../../runtime/commandHandler.ts';

const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The id of a well-formed token, else null. An id not issued (one in upper case too) names no token. */
function tokenIdOf(token: string): string | null {
  const [id, secret, ...rest] = token.split('.');
  return isUuid(id) && SECRET_PATTERN.test(secret ?? '') && rest.length === 0 ? id : null;
}

export async function issueEmailToken(
  tx: Queryable,
  projections: readonly Projection[],
  request: { siteId: string; userId: string; purpose: EmailTokenPurpose; ttlSeconds: number; metadata: EventMetadata },
): Promise<string> {
  const tokenId = randomUUID();
  const token = `${tokenId}.${randomToken(32)}`;
  await handleCommandIn(tx, projections, {
    siteId: request.siteId,
    streamId: streamId(request.siteId, 'email-token', tokenId),
    decider: emailTokenDecider,
    command: {
      type: 'issueEmailToken',
      tokenId,
      userId: request.userId,
      purpose: request.purpose,
      tokenHash: tokenHash(token),
      expiresAt: new Date(Date.now() + request.ttlSeconds * 1000),
    },
    metadata: request.metadata,
  });
  return token;
}

/** Consumes a presented token (once); returns the user it was issued for. */
export async function consumeEmailToken(
  tx: Queryable,
  projections: readonly Projection[],
  request: { siteId: string; token: string; purpose: EmailTokenPurpose; metadata: EventMetadata },
): Promise<string> {
  const tokenId = tokenIdOf(request.token);
  if (!tokenId) {
    throw new AppError('VALIDATION_FAILED', 'The token is not valid', { path: ['body', 'token'], extensions: { reason: 'invalid' } });
  }
  const result = await handleCommandIn(tx, projections, {
    siteId: request.siteId,
    streamId: streamId(request.siteId, 'email-token', tokenId),
    decider: emailTokenDecider,
    command: { type: 'consumeEmailToken', presentedTokenHash: tokenHash(request.token), purpose: request.purpose, now: new Date() },
    metadata: request.metadata,
  });
  return result.state.userId!;
}
