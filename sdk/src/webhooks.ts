// Verifies a change-feed webhook delivery (docs/change-feed.md, "Webhook delivery"):
// `X-Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. Web Crypto, so
// it runs in Node 22 and in browsers and edge runtimes alike.

export interface VerifyOptions {
  /** How old (or how far ahead) the signature's time may be, in seconds (default 300): older deliveries are refused as replays. */
  toleranceSeconds?: number;
  /** The time to check against, in Unix seconds (default now). */
  nowSeconds?: number;
}

const encoder = new TextEncoder();

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let index = 0; index < bytes.length; index += 1) bytes[index] = Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  return bytes;
}

/**
 * True when `header` signs `rawBody` (the body exactly as received, before any JSON parsing) with
 * `secret` at a time within the tolerance. Compared in constant time by Web Crypto's verify.
 */
export async function verifyWebhookSignature(rawBody: string | Uint8Array, header: string | null | undefined, secret: string, options: VerifyOptions = {}): Promise<boolean> {
  if (!header) return false;
  const parts = new Map(header.split(',').map((part) => part.trim().split('=', 2) as [string, string]));
  const timestamp = Number(parts.get('t'));
  const given = parts.get('v1');
  if (!Number.isInteger(timestamp) || !given || !/^[0-9a-f]{64}$/.test(given)) return false;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) return false;
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const prefix = encoder.encode(`${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  const key = await globalThis.crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  return globalThis.crypto.subtle.verify('HMAC', key, hexBytes(given), signed);
}
