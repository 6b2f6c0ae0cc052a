// The suppression list's commands (docs/email.md): an administrator's suppress and re-subscribe, a
// recipient's unsubscribe through a token, and the automatic suppression of a hard bounce.
import { suppressionDecider, type SuppressionCommand } from '../../../domain/email/suppression.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { EmailKeys } from './addresses.ts';
import { findSuppression, siteIsLive } from './queries.ts';
import type { SuppressionView } from './schemas.ts';

const suppressionStream = (siteId: string, emailHash: string) => streamId(siteId, 'email-suppression', emailHash);

async function runSuppression(context: AppContext, siteId: string, emailHash: string, command: SuppressionCommand, metadata: EventMetadata): Promise<boolean> {
  const result = await handleCommand(context, { siteId, streamId: suppressionStream(siteId, emailHash), decider: suppressionDecider, command, metadata, lock: true });
  return result.events.length > 0;
}

/** Suppresses an address; `created` is false when it was already suppressed (the first reason stands). */
export async function suppressAddress(
  context: AppContext,
  keys: EmailKeys,
  siteId: string,
  input: { email: string; reason: string },
  metadata: EventMetadata,
): Promise<{ suppression: SuppressionView; created: boolean }> {
  const emailHash = keys.recipientHash(siteId, input.email);
  const created = await runSuppression(context, siteId, emailHash, { type: 'suppress', emailHash, email: input.email, reason: input.reason }, metadata);
  const suppression = await context.database.withSite(siteId, (tx) => findSuppression(tx, siteId, emailHash));
  return { suppression: suppression!, created };
}

/** Re-subscribes an address: 404 when it is not suppressed. */
export async function unsuppressAddress(context: AppContext, keys: EmailKeys, siteId: string, email: string, metadata: EventMetadata): Promise<void> {
  await runSuppression(context, siteId, keys.recipientHash(siteId, email), { type: 'unsuppress' }, metadata);
}

/**
 * A recipient's unsubscribe: the token names the site and the address. A token that does not verify,
 * or names another site than the one asked, suppresses nothing (400 at `path`).
 */
export async function unsubscribe(
  context: AppContext,
  keys: EmailKeys,
  siteId: string,
  input: { token: string; method: 'link' | 'one_click' },
  metadata: EventMetadata,
  path: (string | number)[],
): Promise<{ email: string }> {
  const claims = await keys.readUnsubscribeToken(input.token);
  const valid = claims !== null && claims.siteId === siteId && (await context.database.withSite(siteId, (tx) => siteIsLive(tx, siteId)));
  if (!valid) throw new AppError('VALIDATION_FAILED', 'This unsubscribe link is not valid', { path });
  const emailHash = keys.recipientHash(siteId, claims.email);
  await runSuppression(context, siteId, emailHash, { type: 'unsubscribe', emailHash, email: claims.email, method: input.method }, metadata);
  return { email: claims!.email };
}
