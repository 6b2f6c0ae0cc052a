// Grants that let the site's subscriber role read a collection (recorded here; enforced by the
// permissions layer, which reads the subscriber_access read model).
import { subscriberAccessDecider } from '../../../domain/identity/subscriberAccess.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { findSubscriberGrant, type SubscriberGrant } from './queries.ts';

/** Grants read on `collection`; returns the grant and whether it is new (granting twice is a no-op). */
export async function grantSubscriberAccess(
  context: AppContext,
  siteId: string,
  collection: string,
  metadata: EventMetadata,
): Promise<{ grant: SubscriberGrant; created: boolean }> {
  const result = await handleCommand(context, {
    siteId,
    streamId: streamId(siteId, 'subscriber-access', collection),
    decider: subscriberAccessDecider,
    command: { type: 'grantSubscriberAccess', collection },
    metadata,
  });
  const grant = await context.database.withSite(siteId, (tx) => findSubscriberGrant(tx, siteId, collection));
  return { grant: grant!, created: result.events.length > 0 };
}

export async function revokeSubscriberAccess(context: AppContext, siteId: string, collection: string, metadata: EventMetadata): Promise<void> {
  await handleCommand(context, {
    siteId,
    streamId: streamId(siteId, 'subscriber-access', collection),
    decider: subscriberAccessDecider,
    command: { type: 'revokeSubscriberAccess', collection },
    metadata,
  });
}
