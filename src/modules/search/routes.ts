// GET /search: full-text search across a site's items, one collection or all of them.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { COLLECTION_NAME_PATTERN } from '../../../domain/content/schemaModel.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { guardSearch } from '../../access/itemGuards.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { localeOf } from '../items/contentHeaders.ts';
import { logHistoryReads, revealerFor } from '../items/historyItemRows.ts';
import { queryWords } from './highlights.ts';
import { searchItems } from './queries.ts';

const querystring = z.object({
  q: z.string().trim().min(1, 'q must not be empty').max(500),
  collection: z.string().regex(COLLECTION_NAME_PATTERN, 'not a collection name').optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  page: z.coerce.number().int().min(1).default(1),
});

export async function searchRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/search',
    { config: { site: 'required', access: 'bearer', rateLimit: 'itemsRead' }, schema: { tags: ['search'], querystring } },
    async (request) => {
      const { q, collection, limit, page } = request.query;
      const locale = localeOf(request);
      if (queryWords(q).length === 0) {
        throw new AppError('VALIDATION_FAILED', 'q has no word to search for', { path: ['query', 'q'] });
      }
      if (collection !== undefined) await context.schemas.collection(request.siteId, collection);
      const permitted = await guardSearch(context, request, collection ?? null);
      const schema = await context.schemas.site(request.siteId);
      const revealer = await revealerFor(context, request);
      const result = await context.database.withSite(request.siteId, (tx) =>
        searchItems(tx, schema, { q, collection: collection ?? null, limit, page, permitted, locale }, revealer),
      );
      await logHistoryReads(context, request, result.sensitive);
      return { data: result.hits, meta: { total: result.total, page, limit } };
    },
  );
}
