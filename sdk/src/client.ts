// The client: every REST operation of the service, typed from its OpenAPI document (openapi-fetch over
// the types openapi-typescript generates), sent with the site and the credential, refreshed once on an
// expired session, repeated after 429 and 503 where repeating is safe, and any answer of 400 or more
// thrown as a SvcError. No logging: a token never leaves the client except in its own requests.
import createFetchClient, { type Client } from 'openapi-fetch';
import { errorOf } from './errors.ts';
import type { paths } from './generated/openapi.ts';
import { createFeed, type Feed } from './feed.ts';
import { createGraphql, type Graphql } from './graphql.ts';
import { itemsResource, type ItemsResource } from './items.ts';
import { createRealtime, type Realtime } from './realtime.ts';
import { retryDelay, type RetryOptions } from './retry.ts';

/** A session's tokens, as login and refresh hand them out. */
export interface SessionTokens {
  token: string;
  /** The rotating refresh token; null in cookie mode (the browser holds it in an httpOnly cookie). */
  refreshToken: string | null;
  /** The access token's lifetime as the service states it. */
  expires: number;
}

export interface SignedInUser {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  avatar: string | null;
}

export interface SvcClientOptions {
  /** The service's origin, e.g. `https://cms.example.com` (the API's paths start with `/api/v1`). */
  baseUrl: string;
  /** The site (tenant) every request acts in: the `X-Svc-Site` header. */
  site?: string;
  /** An API key (`svk_…`): long-lived server access; never refreshed. */
  apiKey?: string;
  /** A session you already hold (Node: tokens stored by `onTokenRefresh` in an earlier run). */
  session?: { token: string; refreshToken?: string | null };
  /**
   * Where the refresh token lives: `cookie` (the httpOnly cookie the service sets; requests carry
   * credentials and refreshes the `X-Svc-Refresh` header) or `token` (kept by the client, sent in the
   * body). Default: `cookie` in a browser, `token` elsewhere.
   */
  refresh?: 'cookie' | 'token';
  /** Called after every login and refresh with the new tokens, e.g. to store them. */
  onTokenRefresh?: (tokens: SessionTokens) => void | Promise<void>;
  retry?: RetryOptions;
  /** The fetch to send with (default: the global one). */
  fetch?: typeof fetch;
  /** The WebSocket class for realtime (default: the global one, in Node 22 and browsers). */
  WebSocket?: new (url: string) => WebSocket;
}

export interface SvcAuth {
  /** Signs in with email and password; later requests carry the session. */
  login(email: string, password: string): Promise<{ user: SignedInUser; tokens: SessionTokens }>;
  /** Rotates the refresh token for a new access token (done by itself when the service answers TOKEN_EXPIRED). */
  refresh(): Promise<SessionTokens>;
  /** Revokes the session's refresh token family; later requests go without credentials. */
  logout(): Promise<void>;
  /** The access token requests carry now (null with an API key or no session). */
  readonly token: string | null;
}

/** An item of a collection the client has no types for. */
export interface UntypedItem {
  id: string;
  [field: string]: unknown;
}

/**
 * Collections by name, each its item type: a site's `SiteCollections` (`svc types`), or any collection
 * untyped. An interface has no index signature, so this is any object type.
 */
export type CollectionTypes = object;

export interface SvcClient<Collections extends CollectionTypes = Record<string, UntypedItem>> {
  /**
   * Every REST operation, typed: `client.api.GET('/api/v1/items/{collection}', { params: { path: { collection: 'articles' } } })`.
   * An answer of 400 or more rejects with a SvcError; a success resolves `{ data, response }`.
   */
  readonly api: Client<paths>;
  readonly auth: SvcAuth;
  /** The site requests act in; change it to switch sites. */
  site: string | null;
  readonly baseUrl: string;
  /** Sends a request of the API through the client's pipeline (site, credential, refresh, retries, errors). */
  fetch(request: Request): Promise<Response>;
  /** The items of one collection, typed by the client's collection types: `client.items('articles').list({ fields: ['title'] })`. */
  items<Name extends keyof Collections & string>(collection: Name): ItemsResource<Collections[Name]>;
  /** Signals of item changes over WebSocket, reconnecting by itself. */
  readonly realtime: Realtime;
  /** A change-feed consumer that acknowledges only what its handler finished. */
  readonly feed: Feed;
  /** A GraphQL query or mutation; errors are thrown as SvcError. */
  readonly graphql: Graphql;
}

/** Sign-in, refresh and sign-out carry no bearer: the service reads their credential from the body or cookie. */
const SESSION_PATHS = /\/api\/v1\/auth\/(login|refresh|logout)$/;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The error code of a 401, read from a copy of the answer. */
async function codeOf(response: Response): Promise<string | null> {
  try {
    const body = (await response.clone().json()) as { errors?: { code?: unknown }[] };
    const code = body.errors?.[0]?.code;
    return typeof code === 'string' ? code : null;
  } catch {
    return null;
  }
}

export function createSvcClient<Collections extends CollectionTypes = Record<string, UntypedItem>>(options: SvcClientOptions): SvcClient<Collections> {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const baseFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const refreshMode = options.refresh ?? (typeof document === 'undefined' ? 'token' : 'cookie');
  const retry = { retries: options.retry?.retries ?? 3, maxDelayMs: options.retry?.maxDelayMs ?? 10_000 };
  const session: { token: string | null; refreshToken: string | null } = {
    token: options.session?.token ?? null,
    refreshToken: options.session?.refreshToken ?? null,
  };
  let refreshing: Promise<SessionTokens> | null = null;

  const canRefresh = () => options.apiKey === undefined && session.token !== null && (refreshMode === 'cookie' || session.refreshToken !== null);

  /** Sets what every request carries, unless the caller set it on this one. */
  function prepare(original: Request, requestId: string): Request {
    const request = original.clone();
    if (client.site !== null && !request.headers.has('x-svc-site')) request.headers.set('x-svc-site', client.site);
    const credential = options.apiKey ?? session.token;
    const sessionCall = SESSION_PATHS.test(new URL(request.url).pathname);
    if (credential !== null && !sessionCall && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${credential}`);
    request.headers.set('x-request-id', requestId);
    return request;
  }

  async function send(original: Request): Promise<Response> {
    const requestId = original.headers.get('x-request-id') ?? globalThis.crypto.randomUUID();
    const sentAuthorization = original.headers.has('authorization');
    let refreshed = false;
    for (let attempt = 1; ; attempt += 1) {
      const response = await baseFetch(prepare(original, requestId));
      if (response.status === 401 && !refreshed && !sentAuthorization && canRefresh() && (await codeOf(response)) === 'TOKEN_EXPIRED') {
        refreshed = true;
        await auth.refresh();
        attempt -= 1;
        continue;
      }
      const delay = retryDelay(original, response, attempt, retry);
      if (delay === null) {
        if (response.status >= 400) throw await errorOf(response, requestId);
        return response;
      }
      await response.body?.cancel();
      await sleep(delay);
    }
  }

  const api = createFetchClient<paths>({
    baseUrl,
    fetch: send,
    ...(refreshMode === 'cookie' ? { credentials: 'include' as const } : {}),
  });

  async function signedIn(data: { token: string; expires: number; refreshToken: string; user: SignedInUser }): Promise<SessionTokens> {
    session.token = data.token;
    session.refreshToken = refreshMode === 'token' ? data.refreshToken : null;
    const tokens = { token: data.token, refreshToken: session.refreshToken, expires: data.expires };
    await options.onTokenRefresh?.(tokens);
    return tokens;
  }

  /** The refresh and logout body and headers: the stored token, or the cookie with its CSRF brake header. */
  function refreshCall() {
    return refreshMode === 'token'
      ? { body: { refreshToken: session.refreshToken ?? '' } }
      : { body: null, headers: { 'x-svc-refresh': '1' } };
  }

  const auth: SvcAuth = {
    async login(email, password) {
      const { data } = await api.POST('/api/v1/auth/login', { body: { email, password } });
      const tokens = await signedIn(data!.data);
      return { user: data!.data.user, tokens };
    },
    refresh() {
      // One refresh at a time: requests that expire together wait for the same new token.
      refreshing ??= (async () => {
        try {
          const { data } = await api.POST('/api/v1/auth/refresh', refreshCall());
          return await signedIn(data!.data);
        } finally {
          refreshing = null;
        }
      })();
      return refreshing;
    },
    async logout() {
      try {
        await api.POST('/api/v1/auth/logout', refreshCall());
      } finally {
        session.token = null;
        session.refreshToken = null;
      }
    },
    get token() {
      return options.apiKey === undefined ? session.token : null;
    },
  };

  const client: SvcClient<Collections> = {
    api,
    auth,
    site: options.site ?? null,
    baseUrl,
    fetch: send,
    items: (collection) => itemsResource(api, collection),
    realtime: createRealtime(api, baseUrl, options.WebSocket),
    feed: createFeed(api),
    graphql: createGraphql(send, baseUrl),
  };
  return client;
}
