// GET /items/:collection/:id/revisions and POST /items/:collection/:id/revert.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError } from '../../../domain/shared/appError.ts';
import { guardItemHistory } from '../../access/itemGuards.ts';
import { commandCaller } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { logHistoryReads, maskStored, readOptionsFor, revealForRequest, sensitiveReadOf } from './historyItemRows.ts';
import { itemCommands, revertItemBody } from './commands.ts';
import { historyReadRoute, historyWriteRoute, itemParams, pageQuery } from './historyParams.ts';
import { findLiveItem, listRevisions } from './historyQueries.ts';
import { shapeSnapshot } from './itemRecords.ts';

export async function revisionRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  // Permissions of the item history (src/access/itemGuards.ts), for every route of this plugin.
  app.addHook('preHandler', guardItemHistory(context));

  api.get(
    '/items/:collection/:id/revisions',
    { config: historyReadRoute, schema: { tags: ['items'], params: itemParams, querystring: pageQuery } },
    async (request) => {
      const { collection: name, id } = request.params;
      const { limit, page } = request.query;
      const collection = await context.schemas.collection(request.siteId, name);
      const options = readOptionsFor((await context.schemas.site(request.siteId)).defaultLanguage);
      const result = await context.database.withSite(request.siteId, async (tx) => {
        const listed = await listRevisions(tx, { siteId: request.siteId, collection: name, itemId: id }, { limit, page });
        if (listed.total === 0 && !(await findLiveItem(tx, request.siteId, name, id))) {
          throw new AppError('RECORD_NOT_FOUND', `Item "${id}" of "${name}" not found`);
        }
        return listed;
      });
      const opened = await revealForRequest(
        context,
        request,
        collection,
        result.revisions.flatMap((revision) => [revision.data, revision.delta, revision.draft].map((content) => ({ itemId: id, content }))),
      );
      const data = result.revisions.map((revision, index) => ({
        ...revision,
        data: maskStored(collection, opened[index * 3] as typeof revision.data, options),
        delta: maskStored(collection, opened[index * 3 + 1] as typeof revision.delta, options),
        draft: maskStored(collection, opened[index * 3 + 2] as typeof revision.draft, options),
      }));
      await logHistoryReads(context, request, [sensitiveReadOf(collection, id, data.flatMap((revision) => [revision.data, revision.delta, revision.draft]))]);
      return { data, meta: { total: result.total, page, limit } };
    },
  );

  api.post(
    '/items/:collection/:id/revert',
    {
      config: historyWriteRoute,
      schema: { tags: ['items'], params: itemParams, body: revertItemBody },
    },
    async (request) => {
      const { id } = request.params;
      const reverted = await context.commands.runValidated(itemCommands.revert, { ...request.params, ...request.body }, commandCaller(request));
      const options = readOptionsFor((await context.schemas.site(request.siteId)).defaultLanguage);
      const [snapshot] = await revealForRequest(context, request, reverted.collection, [{ itemId: id, content: reverted.snapshot }]);
      const data = shapeSnapshot(snapshot as typeof reverted.snapshot, reverted.collection, options);
      await logHistoryReads(context, request, [sensitiveReadOf(reverted.collection, id, [data])]);
      return { data };
    },
  );
}
