// Web push: the `web-push` library encrypts the payload (aes128gcm) and signs the VAPID
// Authorization header; the request itself goes through the SSRF-guarded outbound HTTP client.
import webpush from 'web-push';
import type { OutboundHttp } from '../http/outboundHttp.ts';

export interface VapidDetails {
  publicKey: string;
  privateKey: string;
  subject: string;
}

export interface PushTarget {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface PushResult {
  status: number;
  /** The push service says the subscription no longer exists (404/410): forget it. */
  gone: boolean;
  ok: boolean;
}

export interface WebPushSender {
  readonly publicKey: string | null;
  send(target: PushTarget, payload: unknown, options?: { ttlSeconds?: number; urgency?: 'very-low' | 'low' | 'normal' | 'high' }): Promise<PushResult>;
}

/** Throws when the keys or subject are not usable (checked once at start). */
export function assertVapidDetails(vapid: VapidDetails): void {
  webpush.getVapidHeaders('https://push.example.invalid', vapid.subject, vapid.publicKey, vapid.privateKey, 'aes128gcm');
}

export function createWebPushSender(options: { vapid: VapidDetails | null; http: OutboundHttp; timeoutMs: number }): WebPushSender {
  const { vapid, http } = options;
  return {
    publicKey: vapid?.publicKey ?? null,
    async send(target, payload, sendOptions = {}) {
      if (!vapid) throw new Error('web push is not configured');
      const details = webpush.generateRequestDetails(target, JSON.stringify(payload), {
        vapidDetails: vapid,
        contentEncoding: 'aes128gcm',
        TTL: sendOptions.ttlSeconds ?? 86_400,
        urgency: sendOptions.urgency ?? 'normal',
      });
      const response = await http.send({
        url: details.endpoint,
        method: 'POST',
        headers: details.headers,
        body: details.body,
        timeoutMs: options.timeoutMs,
      });
      const ok = response.status >= 200 && response.status < 300;
      return { status: response.status, ok, gone: response.status === 404 || response.status === 410 };
    },
  };
}
