// CORS (docs/security.md, "Browsers and CORS"): which web pages may call the API from a browser.
// @fastify/cors writes the headers; this file decides, per request, what the request's Origin gets:
//
// - the public delivery routes (/deliver/...): `*`, never with credentials (public content);
// - an origin in SVC_CORS_ORIGINS, or in the `corsOrigins` setting of the site the request is for:
//   the origin itself, with credentials (`Access-Control-Allow-Credentials: true`);
// - otherwise, with SVC_CORS_ORIGINS=*: `*`, without credentials;
// - otherwise nothing: no CORS header, and the browser keeps the answer from the page. The request
//   itself is served as it would be without an Origin.
//
// A preflight carries no X-Svc-Site (browsers send no custom header on it). Its site is the one its
// Host names (a subdomain of SVC_SITE_DOMAIN or a site's registered domain) when it names one;
// otherwise the preflight is allowed when any site lists the origin (the index of migration 0441).
// That only lets the browser send the actual request, which names its site and is checked against
// that site's own list: an origin another site lists gets no CORS header on it.
//
// Both lookups are cached per instance, bounded (the Origin and the site are the client's to choose)
// and dropped on the site's next committed event (src/runtime/siteChanges.ts): a changed setting
// holds on the very next request here, and on other instances when the NOTIFY arrives.
import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { AppError } from '../../domain/shared/appError.ts';
import { sql } from '../../infra/postgres/sql.ts';
import { originProblem } from '../config/config.ts';
import { CORS_ORIGINS_KEY } from '../modules/settings/catalogue.ts';
import { readEffectiveSetting } from '../modules/settings/settingsStore.ts';
import type { AppContext } from '../runtime/context.ts';
import { watchSiteChanges } from '../runtime/siteChanges.ts';
import type { SiteResolver } from './siteResolution.ts';

/** Request headers a page may send: the spec's own (Common conventions, Authentication) and the standard ones the API reads. */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'X-Request-Id',
  'X-Svc-Site',
  'X-Svc-Draft',
  'X-Svc-Locale',
  'X-Svc-API-Version',
  'X-Svc-Refresh',
  'X-Svc-Release',
  'If-Match',
  'If-None-Match',
];
/** Response headers a page may read besides the safelisted ones: versions, request ids, rate limits, retiring routes. */
export const CORS_EXPOSED_HEADERS = [
  'ETag',
  'X-Request-Id',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Deprecation',
  'Sunset',
  'Link',
  'Allow',
  'Content-Disposition',
];
const API_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const DELIVERY_METHODS = ['GET', 'HEAD'];
/** How long a browser keeps a preflight's answer (seconds). */
export const CORS_MAX_AGE_SECONDS = 600;
const DELIVERY_PREFIX = '/api/v1/deliver/';

/** Sites whose lists are remembered, and origins whose "does any site list it" is remembered. */
export const CORS_CACHE_SIZE = 10_000;
/** A safety net for a change notification lost while a listener reconnects. */
const CACHE_MS = 10_000;
/** Longer than any origin a browser sends; a longer Origin header is no one's. */
const MAX_ORIGIN_LENGTH = 2_000;

/** What a request's origin gets: its own origin with credentials, `*` without them, or no CORS header. */
export type CorsGrant = 'credentialed' | 'anyOrigin' | null;

export interface CorsPolicy {
  grantFor(request: FastifyRequest): Promise<CorsGrant>;
  /** How many site lists and origin answers are remembered (at most twice CORS_CACHE_SIZE). */
  cached(): number;
  close(): void;
}

export interface CorsPolicyOptions {
  sites: SiteResolver;
  /** Called before a lookup of the origin index reaches the database; throws to refuse it (the per-IP lookup limit). */
  beforeLookup?: (request: FastifyRequest) => Promise<void>;
}

type RequestSite = { kind: 'site'; siteId: string } | { kind: 'unknown' } | { kind: 'none' };

export function createCorsPolicy(context: Pick<AppContext, 'database' | 'config' | 'notifier'>, options: CorsPolicyOptions): CorsPolicy {
  const environment = context.config.SVC_CORS_ORIGINS;
  const siteLists = new LRUCache<string, ReadonlySet<string>>({ max: CORS_CACHE_SIZE, ttl: CACHE_MS });
  const listedAnywhere = new LRUCache<string, boolean>({ max: CORS_CACHE_SIZE, ttl: CACHE_MS });
  // Any site's change may add or remove an origin of the index: its answers all go.
  let indexGeneration = 0;
  const changes = watchSiteChanges(context, (siteId) => {
    siteLists.delete(siteId);
    // clear() walks the cache's whole capacity: on every commit of every site that was 2 % of an
    // update's CPU, with nothing to drop in nearly all of them.
    if (listedAnywhere.size > 0) listedAnywhere.clear();
    indexGeneration += 1;
  });
  const beforeLookup = options.beforeLookup ?? (async () => {});

  async function siteOrigins(siteId: string): Promise<ReadonlySet<string>> {
    const cached = siteLists.get(siteId);
    if (cached) return cached;
    const generation = changes.generation(siteId);
    const value = await context.database.withSiteReads(siteId, (tx) => readEffectiveSetting(tx, siteId, CORS_ORIGINS_KEY));
    const origins = new Set(Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : []);
    // A read that overlapped a change of the site is answered but not remembered.
    if (changes.generation(siteId) === generation) siteLists.set(siteId, origins);
    return origins;
  }

  async function listedByAnySite(request: FastifyRequest, origin: string): Promise<boolean> {
    const cached = listedAnywhere.get(origin);
    if (cached !== undefined) return cached;
    await beforeLookup(request);
    const generation = indexGeneration;
    const [row] = await context.database.query<{ listed: boolean }>(sql`SELECT svc_cors_origin_listed(${origin}) AS listed`);
    const listed = row?.listed === true;
    if (indexGeneration === generation) listedAnywhere.set(origin, listed);
    return listed;
  }

  /** The site the request names (X-Svc-Site or its Host), one it names that does not exist, or none. */
  async function siteOf(request: FastifyRequest): Promise<RequestSite> {
    try {
      return { kind: 'site', siteId: await options.sites.resolve(request) };
    } catch (error) {
      // A missing or unknown site, or the lookup limit: the request's own hooks answer it.
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      return request.headers['x-svc-site'] === undefined ? { kind: 'none' } : { kind: 'unknown' };
    }
  }

  async function listed(request: FastifyRequest, origin: string): Promise<boolean> {
    if (environment.origins.has(origin)) return true;
    // Only an origin as browsers send it can be on a list: anything else costs no lookup.
    if (origin.length > MAX_ORIGIN_LENGTH || originProblem(origin) !== null) return false;
    const site = await siteOf(request);
    if (site.kind === 'site') return (await siteOrigins(site.siteId)).has(origin);
    if (site.kind === 'none') {
      try {
        return await listedByAnySite(request, origin);
      } catch (error) {
        if (error instanceof AppError && error.status < 500) return false;
        throw error;
      }
    }
    return false;
  }

  return {
    async grantFor(request) {
      const origin = request.headers.origin;
      if (origin === undefined) return null;
      if (isDeliveryPath(request)) return 'anyOrigin';
      if (await listed(request, origin)) return 'credentialed';
      return environment.anyOrigin ? 'anyOrigin' : null;
    },
    cached: () => siteLists.size + listedAnywhere.size,
    close: () => changes.close(),
  };
}

function isDeliveryPath(request: FastifyRequest): boolean {
  return request.url.startsWith(DELIVERY_PREFIX);
}

/** The @fastify/cors options of a request: the headers its grant gives, or none (`origin: false`). */
export async function corsOptionsFor(policy: CorsPolicy, request: FastifyRequest): Promise<FastifyCorsOptions> {
  const grant = await policy.grantFor(request);
  if (grant === null) return { origin: false };
  const common = {
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: CORS_MAX_AGE_SECONDS,
    // An OPTIONS with an Origin is answered as a preflight even without Access-Control-Request-Method.
    strictPreflight: false,
  };
  if (grant === 'anyOrigin') return { ...common, origin: '*', credentials: false, methods: isDeliveryPath(request) ? DELIVERY_METHODS : API_METHODS };
  return { ...common, origin: request.headers.origin!, credentials: true, methods: API_METHODS };
}

/**
 * Registers @fastify/cors on the whole server. Its onRequest hook runs where this is called: before
 * the hooks that may refuse a request (authentication, rate limits), so that their refusals carry the
 * CORS headers and the page can read them; its OPTIONS route answers allowed preflights. A preflight
 * it does not allow goes to the not-found handler, which answers an OPTIONS on a served path with 204
 * and Allow, and no CORS header (src/server/errorHandler.ts).
 */
export async function registerCors(app: FastifyInstance, policy: CorsPolicy): Promise<void> {
  await app.register(fastifyCors, { hook: 'onRequest', delegator: (request: FastifyRequest) => corsOptionsFor(policy, request) });
}
