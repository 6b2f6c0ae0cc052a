// A notification for the people of a site (stream <site>/notification/<id>): published once, it
// reaches every realtime session of the site as a `notification` frame, carried by the same
// committed-event path as item signals.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { NOTIFICATION_SEVERITIES, type NotificationContent, type NotificationEvent, notificationEventSchemas, type NotificationSeverity } from './events.ts';

export { NOTIFICATION_SEVERITIES, type NotificationContent, type NotificationEvent, type NotificationSeverity };

export type NotificationCommand = { type: 'publish'; notificationId: string } & NotificationContent;

export const notificationDecider: Decider<{ published: boolean }, NotificationCommand, NotificationEvent> = {
  eventTypes: eventTypesOf(notificationEventSchemas),
  initialState: () => ({ published: false }),
  evolve(_state, event) {
    return { published: event.type === 'notification.published' };
  },
  decide(command, state) {
    if (state.published) throw new AppError('CONFLICT', 'Notification already published');
    const { type: _type, ...data } = command;
    return [{ type: 'notification.published', data }];
  },
};

/** The `notification` object of the realtime frame: the content, its id, and when it was published. */
export function notificationFrameOf(event: { data: NotificationEvent['data']; recordedAt: Date }): {
  type: 'notification';
  notification: NotificationContent & { id: string; ts: string };
} {
  const { data } = event;
  return {
    type: 'notification',
    notification: {
      id: data.notificationId,
      kind: data.kind,
      severity: data.severity,
      title: data.title,
      body: data.body ?? null,
      deepLink: data.deepLink ?? null,
      entityId: data.entityId ?? null,
      ts: event.recordedAt.toISOString(),
    },
  };
}
