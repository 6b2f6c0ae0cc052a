// /items/:collection — generic CRUD over a collection's items: list (filter, sort, fields, deep,
// aggregates), bulk create, PATCH/PUT with If-Match and ETag, soft delete with the dependents check,
// and resolve-dependents. Headers: X-Svc-Locale (translations), X-Svc-Draft (the item's draft),
// X-Svc-Release on reads (a release's preview, src/modules/releases/preview.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ItemBody, ItemSnapshot } from '../../../domain/content/itemDecider.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { guardItemRead, writtenItemFields } from '../../access/itemGuards.ts';
import { parseListQuery } from '../../query/index.ts';
import { commandCaller } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { checkItemId, createItemsBody, itemChangesBody, itemCommands, resolveDependentsBody } from './commands.ts';
import type { ItemWriteResult } from './itemStreams.ts';
import { draftOf, header, localeOf } from './contentHeaders.ts';
import { shapeSnapshot } from './itemRecords.ts';
import { getItemAsOf, listItemsAsOf, parseAsOf } from './historyAsOf.ts';
import { logHistoryReads, revealForRequest, sensitiveReadOf } from './historyItemRows.ts';
import { getDependents, getItem, listItems } from './queries.ts';
import { readCacheKey, type CachedRead, type ItemReadCacheRuntime } from './itemReadCache.ts';
import { releasePreviewSource } from '../releases/preview.ts';

export { MAX_BULK_ITEMS } from './commands.ts';

// Public at the route: requests without credentials act as the site's public role, and every handler
// asks src/access with the request's Access, which answers 401 to an anonymous request the public
// role does not cover.
const readRoute = { site: 'required' as const, access: 'public' as const, rateLimit: 'itemsRead' as const };
const writeRoute = { site: 'required' as const, access: 'public' as const, rateLimit: 'itemsWrite' as const };
const collectionParams = z.object({ collection: z.string() });
const itemParams = z.object({ collection: z.string(), id: z.string() });

/** If-Match: `3`, `"3"` or `W/"3"`; `*` means any version. */
export function expectedVersionOf(request: FastifyRequest): number | undefined {
  const value = header(request, 'if-match')?.trim();
  if (value === undefined || value === '' || value === '*') return undefined;
  const match = /^(?:W\/)?"?(\d{1,9})"?$/.exec(value);
  if (!match) throw new AppError('VALIDATION_FAILED', 'If-Match must be an item version such as "3"', { path: ['headers', 'if-match'] });
  return Number(match[1]);
}

function sendWithETag(reply: FastifyReply, status: number, version: number, data: unknown) {
  return reply.status(status).header('ETag', `"${version}"`).send({ data });
}

/** A read's answer serialized once (the read cache keeps it so). */
function sendJsonWithETag(reply: FastifyReply, { body, version }: CachedRead) {
  return reply.status(200).header('ETag', `"${version}"`).type('application/json; charset=utf-8').send(body);
}

/** `itemReads` is the area's read cache (itemReadCache.ts, started by its manifest). */
export async function itemsRoutes(app: FastifyInstance, { context }: ServerDeps, itemReads: ItemReadCacheRuntime): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  /**
   * Written items as reads show them (hashes masked, the request's language; a draft write shows the
   * draft). Their pii/phi fields that the body did not carry (a PATCH of `name` answers with `email`
   * too) are a read of them, logged like any other.
   */
  async function shapeWritten(request: FastifyRequest, collection: string, results: { result: ItemWriteResult; body: Record<string, unknown> }[], draft: boolean) {
    const schema = await context.schemas.site(request.siteId);
    const collectionSchema = schema.collections.get(collection);
    if (!collectionSchema) throw new AppError('NOT_FOUND', `Collection "${collection}" not found`);
    const visibleFields = await writtenItemFields(request, collection);
    const snapshots = results.map(({ result }): ItemSnapshot => (draft && result.draft ? draftSnapshot(result.snapshot, result.draft) : result.snapshot));
    const opened = await revealForRequest(context, request, collectionSchema, snapshots.map((snapshot) => ({ itemId: snapshot.id, content: snapshot })));
    const items = opened.map((snapshot) =>
      shapeSnapshot(snapshot as ItemSnapshot, collectionSchema, { locale: localeOf(request), defaultLanguage: schema.defaultLanguage, visibleFields }),
    );
    if (collectionSchema.sensitiveFields.size > 0) {
      const unsent = (item: Record<string, unknown>, body: Record<string, unknown>) => Object.fromEntries(Object.entries(item).filter(([key]) => !(key in body)));
      await logHistoryReads(context, request, items.map((item, index) => sensitiveReadOf(collectionSchema, results[index]!.result.snapshot.id, [unsent(item, results[index]!.body)])));
    }
    return items;
  }

  api.get('/items/:collection', { config: readRoute, schema: { tags: ['items'], params: collectionParams } }, async (request) => {
    const query = parseListQuery(request.query as Record<string, unknown>);
    const locale = localeOf(request);
    // Release preview (docs/publishing.md): the same list over the items as the release would leave them.
    const preview = await releasePreviewSource(context, request);
    const input = {
      siteId: request.siteId,
      collection: request.params.collection,
      query,
      restrictions: await guardItemRead(context, request, request.params.collection, { ...query, locale }),
      principal: request.principal,
      locale,
      draft: draftOf(request),
      metadata: request.metadata,
      ...(preview ? { source: preview } : {}),
    };
    // Time travel (history module, docs/history.md): the same list over the items as they stood at asOf.
    const { asOf } = request.query as Record<string, unknown>;
    const result = asOf !== undefined ? await listItemsAsOf(context, input, parseAsOf(asOf)) : await listItems(context, input);
    return result.meta ? { data: result.data, meta: result.meta } : { data: result.data };
  });

  api.post(
    '/items/:collection',
    {
      config: writeRoute,
      schema: {
        tags: ['items'],
        params: collectionParams,
        body: createItemsBody,
      },
    },
    async (request, reply) => {
      const bulk = Array.isArray(request.body);
      const bodies = (bulk ? request.body : [request.body]) as Record<string, unknown>[];
      // The body was parsed with the command's own schema (createItemsBody): not parsed again.
      const results = await context.commands.runValidated(
        itemCommands.createItems,
        { collection: request.params.collection, items: request.body, locale: localeOf(request) },
        commandCaller(request),
      );
      const items = await shapeWritten(request, request.params.collection, results.map((result, index) => ({ result, body: bodies[index]! })), false);
      if (bulk) return reply.status(201).send({ data: items });
      return sendWithETag(reply, 201, results[0]!.version, items[0]);
    },
  );

  api.get('/items/:collection/:id', { config: readRoute, schema: { tags: ['items'], params: itemParams } }, async (request, reply) => {
    checkItemId(request.params.id);
    const query = parseListQuery(request.query as Record<string, unknown>);
    const locale = localeOf(request);
    const preview = await releasePreviewSource(context, request);
    const input = {
      siteId: request.siteId,
      collection: request.params.collection,
      id: request.params.id,
      query: { fields: query.fields, deep: query.deep },
      restrictions: await guardItemRead(context, request, request.params.collection, { filter: null, sort: [], deep: query.deep, locale }),
      principal: request.principal,
      locale,
      draft: draftOf(request),
      metadata: request.metadata,
      ...(preview ? { source: preview } : {}),
    };
    // Time travel (history module, docs/history.md): the item as it stood at asOf.
    const { asOf } = request.query as Record<string, unknown>;
    if (asOf !== undefined) {
      const { item, version } = await getItemAsOf(context, input, parseAsOf(asOf));
      return sendWithETag(reply, 200, version, item);
    }
    // The read cache (itemReadCache.ts), after every check of the read: a hit skips only the database.
    const cached = preview || input.draft ? null : await readCacheOf(request, input, query);
    if (cached?.answer) return sendJsonWithETag(reply, cached.answer);
    const store = cached?.cache.begin(request.siteId);
    const { item, version } = await getItem(context, input);
    if (!cached || !store) return sendWithETag(reply, 200, version, item);
    const answer = { body: JSON.stringify({ data: item }), version };
    store(cached.key, cached.basis, answer);
    return sendJsonWithETag(reply, answer);
  });

  /** The read cache's key for a read by id and what it holds under it; null when the read is not one it keeps. */
  async function readCacheOf(
    request: FastifyRequest,
    { collection: collectionName, id, locale }: { collection: string; id: string; locale: string | null },
    query: { fields: string[] | null; deep: Record<string, unknown> },
  ) {
    const cache = itemReads.cache;
    if (!cache) return null;
    const schema = await context.schemas.site(request.siteId);
    const collection = schema.collections.get(collectionName);
    if (!collection) return null;
    const access = await request.access();
    const key = readCacheKey({ access, collection, id, fields: query.fields, deep: query.deep, locale });
    if (key === null) return null;
    const basis = { grants: access.grants, schema };
    return { cache, key, basis, answer: cache.get(request.siteId, key, basis) };
  }

  for (const method of ['patch', 'put'] as const) {
    api[method](
      '/items/:collection/:id',
      { config: writeRoute, schema: { tags: ['items'], params: itemParams, body: itemChangesBody } },
      async (request, reply) => {
        checkItemId(request.params.id);
        const expectedVersion = expectedVersionOf(request);
        const draft = draftOf(request);
        const mode = method === 'patch' ? 'patch' : 'replace';
        const result = await context.commands.runValidated(
          itemCommands.updateItem,
          {
            collection: request.params.collection,
            id: request.params.id,
            changes: request.body,
            mode,
            draft,
            locale: localeOf(request),
            ...(expectedVersion !== undefined ? { expectedVersion } : {}),
          },
          commandCaller(request),
        );
        const [item] = await shapeWritten(request, request.params.collection, [{ result, body: request.body }], draft);
        return sendWithETag(reply, 200, result.version, item);
      },
    );
  }

  api.delete('/items/:collection/:id', { config: writeRoute, schema: { tags: ['items'], params: itemParams } }, async (request, reply) => {
    checkItemId(request.params.id);
    const expectedVersion = expectedVersionOf(request);
    await context.commands.runValidated(
      itemCommands.deleteItem,
      { collection: request.params.collection, id: request.params.id, ...(expectedVersion !== undefined ? { expectedVersion } : {}) },
      commandCaller(request),
    );
    return reply.status(204).send();
  });

  api.get('/items/:collection/:id/dependents', { config: readRoute, schema: { tags: ['items'], params: itemParams } }, async (request) => {
    checkItemId(request.params.id);
    return { data: await getDependents(context, await request.access(), request.params.collection, request.params.id) };
  });

  api.post(
    '/items/:collection/:id/resolve-dependents',
    {
      config: writeRoute,
      schema: {
        tags: ['items'],
        params: itemParams,
        body: resolveDependentsBody,
      },
    },
    async (request) => {
      checkItemId(request.params.id);
      const input = { ...request.body, collection: request.params.collection, id: request.params.id };
      return { data: await context.commands.runValidated(itemCommands.resolveItemDependents, input, commandCaller(request)) };
    },
  );
}

/** The draft read as an item: the item's structural keys with the draft's status, sort and content. */
function draftSnapshot(snapshot: ItemSnapshot, draft: ItemBody): ItemSnapshot {
  return {
    id: snapshot.id,
    createdAt: snapshot.createdAt,
    updatedAt: snapshot.updatedAt,
    userCreated: snapshot.userCreated,
    userUpdated: snapshot.userUpdated,
    deletedAt: snapshot.deletedAt,
    ...draft,
    status: (draft.status as string | null) ?? null,
    sort: (draft.sort as number | null) ?? null,
  };
}
