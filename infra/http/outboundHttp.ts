// Outbound HTTP on a user's behalf (webhooks, web push) with an SSRF guard: the URL's host is
// checked as written and every address DNS gives for it is checked again at connect time (the
// connection goes to the address that was checked, so a rebinding answer cannot slip in).
// Redirects are never followed: a 3xx is returned as is.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { isBlockedAddress, isBlockedHostname } from './addressPolicy.ts';

export type OutboundErrorCode = 'INVALID_URL' | 'BLOCKED_ADDRESS' | 'TIMEOUT' | 'NETWORK';

export class OutboundRequestError extends Error {
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundRequestError';
  }
}

export interface OutboundRequest {
  url: string;
  method?: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer | null;
  timeoutMs: number;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The response body as text, cut at 64 KiB. */
  body: string;
}

export interface OutboundHttp {
  send(request: OutboundRequest): Promise<OutboundResponse>;
  /** Throws OutboundRequestError when `url` may not be called (scheme, host as written, DNS answers). */
  checkUrl(url: string): Promise<void>;
  close(): void;
}

const MAX_RESPONSE_BYTES = 64 * 1024;

function parseUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundRequestError('INVALID_URL', 'Not a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new OutboundRequestError('INVALID_URL', 'Only http and https URLs are allowed');
  if (parsed.username || parsed.password) throw new OutboundRequestError('INVALID_URL', 'URLs with credentials are not allowed');
  return parsed;
}

function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

function blocked(what: string): OutboundRequestError {
  return new OutboundRequestError('BLOCKED_ADDRESS', `${what} is a loopback, private, link-local or metadata address`);
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

function systemResolver(hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });
}

/** A `lookup` for net.connect that refuses a host any of whose addresses is blocked. */
const guardedLookup = (resolveAll: Resolver) => (hostname: string, options: { all?: boolean; family?: number | string }, callback: (...args: unknown[]) => void): void => {
  resolveAll(hostname).then(
    (addresses) => {
      const refused = addresses.find((entry) => isBlockedAddress(entry.address));
      if (refused || addresses.length === 0) {
        callback(blocked(`${hostname} (${refused?.address ?? 'no address'})`));
        return;
      }
      const family = options.family === 6 || options.family === 'IPv6' ? 6 : options.family === 4 || options.family === 'IPv4' ? 4 : 0;
      const usable = family === 0 ? addresses : addresses.filter((entry) => entry.family === family);
      if (usable.length === 0) {
        callback(new OutboundRequestError('NETWORK', `${hostname} has no IPv${family} address`));
        return;
      }
      if (options.all) callback(null, usable);
      else callback(null, usable[0]!.address, usable[0]!.family);
    },
    (error: unknown) => callback(error),
  );
};

export function createOutboundHttp(options: { allowPrivate: boolean; userAgent?: string; resolve?: Resolver }): OutboundHttp {
  const resolveAll = options.resolve ?? systemResolver;
  const agentOptions = { keepAlive: true, maxSockets: 64, maxFreeSockets: 16 };
  const guard = options.allowPrivate ? {} : { lookup: guardedLookup(resolveAll) as unknown as typeof dnsLookup };
  const agents = { http: new http.Agent({ ...agentOptions, ...guard }), https: new https.Agent({ ...agentOptions, ...guard }) };

  function checkLiteral(url: URL): void {
    if (options.allowPrivate) return;
    const host = bareHost(url.hostname);
    if (isIP(host) !== 0) {
      if (isBlockedAddress(host)) throw blocked(host);
    } else if (isBlockedHostname(host)) {
      throw blocked(host);
    }
  }

  return {
    async checkUrl(url) {
      const parsed = parseUrl(url);
      checkLiteral(parsed);
      const host = bareHost(parsed.hostname);
      if (options.allowPrivate || isIP(host) !== 0) return;
      let addresses: LookupAddress[];
      try {
        addresses = await resolveAll(host);
      } catch {
        return; // not resolvable now: the delivery will fail and say so; nothing private can be reached
      }
      const refused = addresses.find((entry) => isBlockedAddress(entry.address));
      if (refused) throw blocked(`${host} (${refused.address})`);
    },

    async send(request) {
      const url = parseUrl(request.url);
      checkLiteral(url);
      const transport = url.protocol === 'https:' ? https : http;
      const body = request.body ?? null;
      return new Promise<OutboundResponse>((resolve, reject) => {
        let settled = false;
        const finish = (error: Error | null, response?: OutboundResponse) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          if (error) reject(error);
          else resolve(response!);
        };
        const outgoing = transport.request(
          url,
          {
            method: request.method ?? 'POST',
            ...guard,
            agent: url.protocol === 'https:' ? agents.https : agents.http,
            headers: {
              'user-agent': options.userAgent ?? 'svc-webhooks',
              ...(body !== null ? { 'content-length': Buffer.byteLength(body) } : {}),
              ...request.headers,
            },
          },
          (incoming) => {
            const chunks: Buffer[] = [];
            let size = 0;
            incoming.on('data', (chunk: Buffer) => {
              if (size < MAX_RESPONSE_BYTES) chunks.push(chunk);
              size += chunk.length;
            });
            incoming.on('end', () =>
              finish(null, {
                status: incoming.statusCode ?? 0,
                headers: incoming.headers,
                body: Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8'),
              }),
            );
            incoming.on('error', (error) => finish(new OutboundRequestError('NETWORK', error.message)));
          },
        );
        const timer = setTimeout(() => {
          finish(new OutboundRequestError('TIMEOUT', `No response within ${request.timeoutMs} ms`));
          outgoing.destroy();
        }, request.timeoutMs);
        outgoing.on('error', (error) => {
          finish(error instanceof OutboundRequestError ? error : new OutboundRequestError('NETWORK', error.message));
        });
        outgoing.end(body ?? undefined);
      });
    },

    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
