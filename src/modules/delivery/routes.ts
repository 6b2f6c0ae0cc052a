// Public delivery (docs/delivery.md): pages with their referenced items, public item lists, menus and
// llms.txt, read as the public role with no Authorization needed, under the caching table: anonymous
// answers are public with a weak ETag of the site's content fingerprint (If-None-Match → 304), come
// from the response cache while the fingerprint holds, and carry surrogate keys; an Authorization
// header makes them private; misses (and invalid site ids or slugs) are one 404 body, no-store.
// POST /utils/cache/purge drops cached answers and tombstones by tag or key (site administrators).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PAGE_SLUG_PATTERN, MAX_SLUG_LENGTH } from '../../../domain/delivery/page.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { SITE_ID_PATTERN } from '../../../domain/sites/site.ts';
import { accessFor } from '../../access/access.ts';
import { parseListQuery } from '../../query/index.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { createEtags, isAnonymous, isNotModified, NO_STORE, PRIVATE, publicCacheControl, sendMiss } from './cachePolicy.ts';
import type { DeliveryRuntime } from './deliveryRuntime.ts';
import { hydratePage, llmsText, publicList, publicMenu, type Built, type PublicReader } from './hydrate.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';
const COLLECTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MENU_KEY = /^[a-z0-9]+(?:[_-][a-z0-9]+)*$/;

const isSlug = (slug: string) => slug.length <= MAX_SLUG_LENGTH && PAGE_SLUG_PATTERN.test(slug);

/** `runtime` is the area's fingerprints and response cache (deliveryRuntime.ts, started by its manifest). */
export async function deliveryRoutes(app: FastifyInstance, { context, sites }: ServerDeps, { fingerprints, cache }: DeliveryRuntime): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { config } = context;
  const etagOf = createEtags(config.SVC_SECRET);
  const route = {
    site: 'none' as const,
    access: 'public' as const,
    rateLimit: { name: 'deliver', limit: config.SVC_DELIVER_RATE_LIMIT, per: 'ip' as const },
    // A malformed site id or slug is a 404 like a miss (spec "Delivery"), NUL included.
    checksOwnPath: true,
  };
  // Refusals (the rate limit's 429, a bad query's 400) are never stored by a shared cache.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode >= 400) reply.header('cache-control', NO_STORE);
    return payload;
  });

  async function readerOf(siteId: string): Promise<PublicReader> {
    return { siteId, access: await accessFor(context, siteId, { kind: 'anonymous' }) };
  }

  /**
   * Answers by the caching table: a live site or a miss; a cached answer, or `build` (null: a miss),
   * cached for anonymous callers; 304 when an answer (never a miss) has the ETag asked for. `slug`
   * marks a page read (tombstones); `cacheable` false builds every time (a search: its index is async).
   */
  async function deliver(
    request: FastifyRequest,
    reply: FastifyReply,
    siteId: string | null,
    contentType: string,
    build: (reader: PublicReader) => Promise<Built | null>,
    options: { slug?: string; cacheable?: boolean } = {},
  ) {
    if (!siteId || !SITE_ID_PATTERN.test(siteId)) return sendMiss(reply);
    const site = await fingerprints.get(siteId);
    if (!site.live) return sendMiss(reply);
    const anonymous = isAnonymous(request);
    // While writes of the site are in flight nothing is cached or revalidated (its fingerprint never repeats).
    const cacheable = anonymous && site.settled && options.cacheable !== false;
    const { slug } = options;
    if (cacheable && slug !== undefined && (await cache.isMiss(siteId, slug, site.fingerprint))) return sendMiss(reply);
    const key = `${siteId}:${request.url}`;
    let answer = cacheable ? await cache.get(siteId, key, site.fingerprint) : null;
    if (!answer) {
      const built = await build(await readerOf(siteId));
      if (!built) {
        if (cacheable && slug !== undefined) await cache.rememberMiss(siteId, slug, site.fingerprint);
        return sendMiss(reply);
      }
      answer = { contentType, body: typeof built.body === 'string' ? built.body : JSON.stringify(built.body), tags: built.tags, fingerprint: site.fingerprint };
      if (cacheable) await cache.set(siteId, key, answer);
    }
    if (!anonymous) return reply.status(200).header('cache-control', PRIVATE).header('content-type', answer.contentType).send(answer.body);
    const etag = etagOf(siteId, site.fingerprint);
    reply
      .header('cache-control', publicCacheControl(config))
      .header('etag', etag)
      .header('vary', 'X-Svc-Site')
      .header('surrogate-key', answer.tags.join(' '))
      .header('cache-tag', answer.tags.join(','));
    if (isNotModified(request, etag)) return reply.status(304).send();
    return reply.status(200).header('content-type', answer.contentType).send(answer.body);
  }

  /** The site of a short-form route: X-Svc-Site, or the host; null when there is none (a miss). */
  async function headerSite(request: FastifyRequest): Promise<string | null> {
    try {
      return await sites.resolve(request);
    } catch (error) {
      if (error instanceof AppError && error.status < 500) return null;
      throw error;
    }
  }

  const hasSiteHint = (request: FastifyRequest) => request.headers['x-svc-site'] !== undefined;

  // /deliver/page/<site>/<slug> and /deliver/page/<slug>: without X-Svc-Site the first segment is the
  // site; with it the whole path is the slug, unless it starts with that very site's id.
  api.get('/deliver/page/*', { config: route, schema: { tags: ['delivery'] } }, async (request, reply) => {
    const rest = (request.params as { '*': string })['*'];
    let siteId: string | null;
    let slug: string;
    const slash = rest.indexOf('/');
    if (hasSiteHint(request) || slash < 0) {
      siteId = await headerSite(request);
      slug = siteId !== null && rest.startsWith(`${siteId}/`) ? rest.slice(siteId.length + 1) : rest;
    } else {
      siteId = rest.slice(0, slash);
      slug = rest.slice(slash + 1);
    }
    if (!isSlug(slug)) return sendMiss(reply);
    return deliver(request, reply, siteId, JSON_TYPE, (reader) => hydratePage(context, reader, slug), { slug });
  });

  api.get('/deliver/items/:collection', { config: route, schema: { tags: ['delivery'], params: z.object({ collection: z.string() }) } }, async (request, reply) => {
    const { collection } = request.params;
    if (!COLLECTION_NAME.test(collection)) return sendMiss(reply);
    const siteId = await headerSite(request);
    const query = parseListQuery(request.query as Record<string, unknown>);
    // A search reads the asynchronous search index, which a fingerprint does not follow: never cached.
    return deliver(request, reply, siteId, JSON_TYPE, (reader) => publicList(context, reader, collection, query), { cacheable: query.search === null });
  });

  api.get('/deliver/menu/:key', { config: route, schema: { tags: ['delivery'], params: z.object({ key: z.string() }) } }, async (request, reply) => {
    const { key } = request.params;
    if (key.length > 100 || !MENU_KEY.test(key)) return sendMiss(reply);
    return deliver(request, reply, await headerSite(request), JSON_TYPE, (reader) => publicMenu(context, reader.siteId, key));
  });

  api.get('/deliver/llms.txt/:site_id', { config: route, schema: { tags: ['delivery'], params: z.object({ site_id: z.string() }) } }, async (request, reply) => {
    // Links are relative to this service (never built from the Host header, which a client chooses).
    return deliver(request, reply, request.params.site_id, TEXT_TYPE, (reader) => llmsText(context, reader, '/api/v1'));
  });

  const tagList = z.array(z.string().min(1).max(500)).max(500).optional();
  api.post(
    '/utils/cache/purge',
    { config: { site: 'required', access: 'siteAdmin' }, schema: { tags: ['delivery'], body: z.object({ tags: tagList, keys: tagList }).strict() } },
    async (request) => {
      const tags = request.body.tags ?? [];
      const keys = request.body.keys ?? [];
      // Every tag and key names the site: one that does not refuses the whole purge.
      for (const [field, values] of [['tags', tags], ['keys', keys]] as const) {
        const bad = values.findIndex((value) => !value.includes(request.siteId));
        if (bad >= 0) throw new AppError('VALIDATION_FAILED', `Each of ${field} must include the site id "${request.siteId}"`, { path: ['body', field, bad] });
      }
      await cache.purge(request.siteId, { tags, keys });
      return { data: { tags, keys } };
    },
  );
}
