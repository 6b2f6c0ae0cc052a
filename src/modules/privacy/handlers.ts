// Privacy commands of the signed-in user: set a consent, set or lift the restriction of processing.
import { consentDecider, type ConsentType } from '../../../domain/privacy/consent.ts';
import { restrictionDecider } from '../../../domain/privacy/restriction.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { findConsent, readRestriction } from './queries.ts';
import type { ConsentView, RestrictionView } from './schemas.ts';

export async function setConsent(
  context: AppContext,
  siteId: string,
  userId: string,
  consentType: ConsentType,
  input: { granted: boolean; source: string; version: string },
  metadata: EventMetadata,
): Promise<ConsentView> {
  return inSiteTransaction(context, siteId, async (tx) => {
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'consent', userId, consentType),
      decider: consentDecider,
      command: { type: 'setConsent', userId, consentType, ...input },
      metadata,
    });
    return (await findConsent(tx, siteId, userId, consentType))!;
  });
}

export async function setRestriction(
  context: AppContext,
  siteId: string,
  userId: string,
  input: { restricted: boolean; reason?: string | null },
  metadata: EventMetadata,
): Promise<RestrictionView> {
  return inSiteTransaction(context, siteId, async (tx) => {
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'processing_restriction', userId),
      decider: restrictionDecider,
      command: { type: 'setRestriction', userId, restricted: input.restricted, reason: input.restricted ? (input.reason ?? null) : null },
      metadata,
    });
    return readRestriction(tx, siteId, userId);
  });
}
