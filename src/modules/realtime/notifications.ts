// Publishing a notification for a site: an event in the log (stream <site>/notification/<id>),
// which the realtime tailer turns into a `notification` frame for every session of the site.
import { randomUUID } from 'node:crypto';
import { notificationDecider, type NotificationContent } from '../../../domain/changeFeed/notification.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';

export async function publishNotification(
  context: Pick<AppContext, 'database' | 'projections'>,
  siteId: string,
  content: Partial<NotificationContent> & Pick<NotificationContent, 'kind' | 'title'>,
  metadata: EventMetadata,
): Promise<string> {
  const notificationId = randomUUID();
  await handleCommand(context, {
    siteId,
    streamId: streamId(siteId, 'notification', notificationId),
    decider: notificationDecider,
    command: {
      type: 'publish',
      notificationId,
      kind: content.kind,
      severity: content.severity ?? 'info',
      title: content.title,
      body: content.body ?? null,
      deepLink: content.deepLink ?? null,
      entityId: content.entityId ?? null,
    },
    metadata,
  });
  return notificationId;
}
