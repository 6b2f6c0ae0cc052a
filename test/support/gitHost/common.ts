// What the GitHub and GitLab stand-ins of test/support/gitHostServers.ts share: the HTTP listener,
// token access, the request recorder, the failure injector, request parsing and pagination.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Reply {
  status: number;
  json?: unknown;
  text?: string;
  contentType?: string;
  headers?: Record<string, string>;
}
type Handler = (request: http.IncomingMessage, url: URL, body: string) => Reply | Promise<Reply>;

export async function listen(handler: Handler): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer(async (request, response) => {
    let reply: Reply;
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      reply = await handler(request, new URL(request.url ?? '/', 'http://localhost'), Buffer.concat(chunks).toString('utf8'));
    } catch (error) {
      reply = { status: 400, json: { message: `Invalid request: ${(error as Error).message}` } };
    }
    const headers: Record<string, string> = { ...reply.headers };
    let text = '';
    if (reply.text !== undefined) {
      text = reply.text;
      headers['content-type'] = reply.contentType ?? 'text/plain; charset=utf-8';
    } else if (reply.json !== undefined) {
      text = JSON.stringify(reply.json);
      headers['content-type'] = reply.contentType ?? 'application/json; charset=utf-8';
    }
    headers['content-length'] = String(Buffer.byteLength(text));
    response.writeHead(reply.status, headers).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** failNext(n, status): the next n API requests answer that status. */
export function createFailureInjector() {
  let remaining = 0;
  let status = 500;
  return {
    failNext(count: number, failureStatus: number) {
      remaining = count;
      status = failureStatus;
    },
    take(): number | null {
      if (remaining === 0) return null;
      remaining -= 1;
      return status;
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The raw path segments, each decoded (null when one is malformed). `/a/b%2Fc` → ['a', 'b/c']. */
export function segmentsOf(pathname: string): string[] | null {
  try {
    return pathname.split('/').slice(1).map(decodeURIComponent);
  } catch {
    return null;
  }
}

/** Query parameters and a JSON or form body, merged (the body wins). */
export function paramsOf(request: http.IncomingMessage, url: URL, body: string): Record<string, string> {
  const params: Record<string, string> = Object.fromEntries(url.searchParams);
  if (body.trim() === '') return params;
  const type = request.headers['content-type'] ?? '';
  if (type.includes('json') || (!type.includes('form') && body.trimStart().startsWith('{'))) {
    const parsed: unknown = JSON.parse(body);
    if (!isRecord(parsed)) throw new Error('the body is not a JSON object');
    for (const [key, value] of Object.entries(parsed)) if (value !== null && value !== undefined) params[key] = String(value);
  } else {
    for (const [key, value] of new URLSearchParams(body)) params[key] = value;
  }
  return params;
}

/** GitHub's timestamps have no milliseconds. */
export function githubTime(value: string): string {
  return new Date(value).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function gitBlobSha(text: string): string {
  const content = Buffer.from(text, 'utf8');
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/** Base64 in lines of 60 characters, each ended by a newline, as GitHub's contents API sends it. */
export function githubBase64(text: string): string {
  const encoded = Buffer.from(text, 'utf8').toString('base64');
  return (encoded.match(/.{1,60}/g) ?? []).map((line) => `${line}\n`).join('');
}

interface Page<T> {
  items: T[];
  page: number;
  perPage: number;
  total: number;
  totalPages: number;
}

export function paginate<T>(items: T[], url: URL, defaultPerPage: number): Page<T> {
  const asked = Number.parseInt(url.searchParams.get('per_page') ?? '', 10);
  const perPage = Number.isNaN(asked) || asked < 1 ? defaultPerPage : Math.min(asked, 100);
  const askedPage = Number.parseInt(url.searchParams.get('page') ?? '', 10);
  const page = Number.isNaN(askedPage) || askedPage < 1 ? 1 : askedPage;
  const totalPages = Math.max(1, Math.ceil(items.length / perPage));
  return { items: items.slice((page - 1) * perPage, page * perPage), page, perPage, total: items.length, totalPages };
}

/** `<url>; rel="next", …` with absolute URLs on the origin the client called. */
export function linkHeader(request: http.IncomingMessage, url: URL, page: Page<unknown>, rels: { rel: string; page: number }[]): string {
  return rels
    .map(({ rel, page: number }) => {
      const target = new URL(`${url.pathname}${url.search}`, `http://${request.headers.host ?? '127.0.0.1'}`);
      target.searchParams.set('page', String(number));
      target.searchParams.set('per_page', String(page.perPage));
      return `<${target.toString()}>; rel="${rel}"`;
    })
    .join(', ');
}

/** Tokens per repository, plus the ones issued through OAuth. */
export function createAccess() {
  const known = new Set<string>();
  const grants = new Map<string, Set<string>>();
  return {
    grant(repo: string, token: string) {
      known.add(token);
      let tokens = grants.get(repo);
      if (!tokens) grants.set(repo, (tokens = new Set()));
      tokens.add(token);
    },
    issue(token: string) {
      known.add(token);
    },
    revoke(token: string) {
      known.delete(token);
      for (const tokens of grants.values()) tokens.delete(token);
    },
    isKnown: (token: string) => known.has(token),
    canRead: (repo: string, token: string) => grants.get(repo)?.has(token) ?? false,
    /** Gives `to` the repositories of `from` (an OAuth refresh). */
    copy(from: string, to: string) {
      known.add(to);
      for (const tokens of grants.values()) if (tokens.has(from)) tokens.add(to);
    },
  };
}

/** One API request as the server saw it. The token is kept out of the record: see tokenOf(). */
export interface RecordedRequest {
  method: string;
  /** The path as sent (percent-encoding kept). */
  path: string;
  query: Record<string, string>;
  /** How the request authenticated, if it did. */
  auth: 'token' | 'bearer' | 'private-token' | null;
  status: number;
}

export function createRecorder() {
  const tokens = new WeakMap<RecordedRequest, string>();
  const requests: RecordedRequest[] = [];
  return {
    requests,
    record(request: http.IncomingMessage, url: URL, auth: RecordedRequest['auth'], token: string | null): RecordedRequest {
      const entry: RecordedRequest = { method: request.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), auth, status: 0 };
      if (token !== null) tokens.set(entry, token);
      requests.push(entry);
      return entry;
    },
    tokenOf: (entry: RecordedRequest) => tokens.get(entry) ?? null,
  };
}

export interface OAuthCode {
  token: string;
  clientId: string;
  clientSecret: string;
  redirectUri?: string;
  scope?: string;
  refreshToken?: string;
}
