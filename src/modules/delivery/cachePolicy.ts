// The caching table of public delivery (docs/delivery.md "Caching"): what each answer says to
// browsers and shared caches, the weak ETag of a site's content fingerprint (opaque), and If-None-Match.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createSiteTokens } from '../../../infra/crypto/siteTokens.ts';
import type { Config } from '../../config/config.ts';

export const NO_STORE = 'no-store';
export const PRIVATE = 'private, no-store';

/** The body of every miss, real or not (an invalid site id or slug answers the same). */
export const MISS_BODY = { errors: [{ code: 'NOT_FOUND', message: 'Not found', path: [], extensions: {} }] };

export function publicCacheControl(config: Pick<Config, 'SVC_DELIVER_SMAXAGE' | 'SVC_DELIVER_SWR'>): string {
  // SVC_DELIVER_SMAXAGE=0 turns shared caching off: caches must revalidate (the ETag still saves the body).
  if (config.SVC_DELIVER_SMAXAGE === 0) return 'public, no-cache';
  return `public, s-maxage=${config.SVC_DELIVER_SMAXAGE}, stale-while-revalidate=${config.SVC_DELIVER_SWR}`;
}

/**
 * The weak ETag of a site's content fingerprint: a digest keyed per site (infra/crypto/siteTokens.ts),
 * so it changes exactly when the fingerprint does and is the same on every instance sharing
 * SVC_SECRET, but holds no transaction id or log position, which would count other sites' writes.
 */
export function createEtags(deploymentSecret: string): (siteId: string, fingerprint: string) => string {
  const tokens = createSiteTokens(deploymentSecret, 'delivery-etag');
  return (siteId, fingerprint) => `W/"${tokens.digest(siteId, fingerprint)}"`;
}

const opaque = (tag: string) => tag.trim().replace(/^W\//, '');

/** If-None-Match holds `etag` (weak comparison, as RFC 9110 asks for GET), or `*`. */
export function isNotModified(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (!header) return false;
  const wanted = opaque(etag);
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === wanted);
}

/** Anonymous: no Authorization header. Any Authorization makes the answer private. */
export const isAnonymous = (request: FastifyRequest) => request.headers.authorization === undefined;

export function sendMiss(reply: FastifyReply) {
  return reply.status(404).header('cache-control', NO_STORE).send(MISS_BODY);
}
