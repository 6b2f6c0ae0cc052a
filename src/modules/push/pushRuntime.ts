// The web push area's parts on one server, started by its manifest (src/modules/index.ts) and stopped
// with the context: the VAPID keys, the outbound HTTP client that checks endpoints and sends, and the
// sender. The subscribe and test commands close over it (commands.ts, `pushSenderCommands`).
import { createOutboundHttp, type OutboundHttp } from '../../../infra/http/outboundHttp.ts';
import { assertVapidDetails, createWebPushSender, type VapidDetails, type WebPushSender } from '../../../infra/webpush/webPushSender.ts';
import type { AppContext } from '../../runtime/context.ts';

export interface PushRuntime {
  /** Null when SVC_VAPID_PUBLIC_KEY and SVC_VAPID_PRIVATE_KEY are not both set: push is not configured. */
  vapid: VapidDetails | null;
  /** SVC_WEBHOOK_ALLOW_PRIVATE: endpoints over plain HTTP and at private addresses are accepted (development). */
  allowPrivate: boolean;
  http: OutboundHttp;
  sender: WebPushSender;
  close(): void;
}

export function startPushRuntime(context: Pick<AppContext, 'config' | 'version'>): PushRuntime {
  const { config } = context;
  const vapid: VapidDetails | null =
    config.SVC_VAPID_PUBLIC_KEY && config.SVC_VAPID_PRIVATE_KEY
      ? { publicKey: config.SVC_VAPID_PUBLIC_KEY, privateKey: config.SVC_VAPID_PRIVATE_KEY, subject: config.SVC_VAPID_SUBJECT }
      : null;
  if (vapid) assertVapidDetails(vapid);
  const http = createOutboundHttp({ allowPrivate: config.SVC_WEBHOOK_ALLOW_PRIVATE, userAgent: `svc-push/${context.version}` });
  return {
    vapid,
    allowPrivate: config.SVC_WEBHOOK_ALLOW_PRIVATE,
    http,
    sender: createWebPushSender({ vapid, http, timeoutMs: config.SVC_WEBHOOK_TIMEOUT_MS }),
    close: () => http.close(),
  };
}
