// Web push commands: register (upsert by endpoint) and remove a browser's subscription, and send a
// one-off test notification to the caller's browsers (endpoints the push service calls gone are forgotten).
import { createHash } from 'node:crypto';
import { pushSubscriptionDecider, type PushKeys } from '../../../domain/changeFeed/pushSubscription.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { OutboundRequestError, type OutboundHttp } from '../../../infra/http/outboundHttp.ts';
import type { WebPushSender } from '../../../infra/webpush/webPushSender.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { listUserPushSubscriptions } from './queries.ts';

export interface PushDeps {
  context: AppContext;
  http: OutboundHttp;
  sender: WebPushSender;
}

export function pushSubscriptionId(endpoint: string): string {
  return createHash('sha256').update(endpoint).digest('hex');
}

function pushStream(siteId: string, endpoint: string): string {
  return streamId(siteId, 'push-subscription', pushSubscriptionId(endpoint));
}

function decodedLength(value: string): number {
  return /^[A-Za-z0-9_-]+=*$/.test(value) ? Buffer.from(value, 'base64url').length : -1;
}

/** p256dh: an uncompressed P-256 point (65 bytes, 0x04 first); auth: 16 bytes; both base64url. */
function assertKeys(keys: PushKeys): void {
  const point = /^[A-Za-z0-9_-]+=*$/.test(keys.p256dh) ? Buffer.from(keys.p256dh, 'base64url') : Buffer.alloc(0);
  if (point.length !== 65 || point[0] !== 4) {
    throw new AppError('VALIDATION_FAILED', 'keys.p256dh must be a base64url P-256 public key', { path: ['body', 'keys', 'p256dh'] });
  }
  if (decodedLength(keys.auth) !== 16) throw new AppError('VALIDATION_FAILED', 'keys.auth must be 16 bytes, base64url', { path: ['body', 'keys', 'auth'] });
}

/** Returns true when the endpoint was not registered before. */
export async function registerPushSubscription(
  deps: PushDeps,
  siteId: string,
  userId: string,
  input: { endpoint: string; keys: PushKeys },
  metadata: EventMetadata,
): Promise<boolean> {
  assertKeys(input.keys);
  try {
    await deps.http.checkUrl(input.endpoint);
  } catch (error) {
    if (error instanceof OutboundRequestError) throw new AppError('VALIDATION_FAILED', `Push endpoint refused: ${error.message}`, { path: ['body', 'endpoint'] });
    throw error;
  }
  let isNew = false;
  await handleCommand(deps.context, {
    siteId,
    streamId: pushStream(siteId, input.endpoint),
    decider: pushSubscriptionDecider,
    command: (state) => {
      isNew = !state.active;
      return { type: 'register' as const, subscriptionId: pushSubscriptionId(input.endpoint), userId, endpoint: input.endpoint, keys: input.keys };
    },
    metadata,
  });
  return isNew;
}

export async function removePushSubscription(context: AppContext, siteId: string, userId: string, endpoint: string, metadata: EventMetadata): Promise<void> {
  await handleCommand(context, {
    siteId,
    streamId: pushStream(siteId, endpoint),
    decider: pushSubscriptionDecider,
    command: { type: 'remove', userId },
    metadata,
  });
}

export interface TestPushResult {
  sent: number;
  failed: number;
  removed: number;
}

export async function sendTestPush(
  deps: PushDeps,
  siteId: string,
  userId: string,
  content: { title: string; body: string },
  metadata: EventMetadata,
): Promise<TestPushResult> {
  if (!deps.sender.publicKey) throw new AppError('PUSH_NOT_CONFIGURED', 'Web push is not configured (no VAPID keys)');
  const subscriptions = await deps.context.database.withSite(siteId, (tx) => listUserPushSubscriptions(tx, siteId, userId));
  const payload = { kind: 'push.test', severity: 'info', title: content.title, body: content.body, deepLink: null, entityId: null, ts: new Date().toISOString() };
  const result: TestPushResult = { sent: 0, failed: 0, removed: 0 };
  await Promise.all(
    subscriptions.map(async (subscription) => {
      try {
        const outcome = await deps.sender.send({ endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } }, payload, {
          urgency: 'high',
        });
        if (outcome.ok) result.sent += 1;
        else result.failed += 1;
        if (outcome.gone) {
          await handleCommand(deps.context, {
            siteId,
            streamId: pushStream(siteId, subscription.endpoint),
            decider: pushSubscriptionDecider,
            command: { type: 'removeGone' },
            metadata,
          });
          result.removed += 1;
        }
      } catch (error) {
        deps.context.logger.warn({ err: error, siteId }, 'web push delivery failed');
        result.failed += 1;
      }
    }),
  );
  return result;
}
