// Named versions (drafts) of an item: list, create, read, edit, delete, compare with main, promote.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sameValue } from '../../../domain/content/versions/versionDecider.ts';
import { guardItemHistory } from '../../access/itemGuards.ts';
import { commandCaller } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import type { CollectionSchema } from '../../schema/siteSchema.ts';
import { logHistoryReads, maskStored, presentItemRow, readOptionsFor, revealForRequest, sensitiveReadOf } from './historyItemRows.ts';
import { createVersionBody, itemCommands, updateVersionBody } from './commands.ts';
import { historyReadRoute, historyWriteRoute, itemParams, versionParams } from './historyParams.ts';
import { listVersions, requireLiveItem, requireVersion, type ItemVersion } from './historyQueries.ts';
import { shapeSnapshot } from './itemRecords.ts';

export async function versionRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  // Permissions of the item history (src/access/itemGuards.ts), for every route of this plugin.
  app.addHook('preHandler', guardItemHistory(context));
  const optionsOf = async (siteId: string) => readOptionsFor((await context.schemas.site(siteId)).defaultLanguage);
  /** Versions as the API shows them: hash fields of their data masked, pii/phi reads logged. */
  const present = async (request: FastifyRequest, collection: CollectionSchema, versions: ItemVersion[]) => {
    const options = await optionsOf(request.siteId);
    const opened = await revealForRequest(context, request, collection, versions.map((version) => ({ itemId: version.item, content: version.data })));
    await logHistoryReads(context, request, versions.map((version, index) => sensitiveReadOf(collection, version.item, [opened[index]])));
    return versions.map((version, index) => ({ ...version, data: maskStored(collection, opened[index] as typeof version.data, options) }));
  };
  api.get('/items/:collection/:id/versions', { config: historyReadRoute, schema: { tags: ['items'], params: itemParams } }, async (request) => {
    const { collection: name, id } = request.params;
    const collection = await context.schemas.collection(request.siteId, name);
    const key = { siteId: request.siteId, collection: name, itemId: id };
    const versions = await context.database.withSite(request.siteId, async (tx) => {
      await requireLiveItem(tx, request.siteId, name, id);
      return listVersions(tx, key);
    });
    const data = await present(request, collection, versions);
    return { data, meta: { total: data.length } };
  });

  api.post(
    '/items/:collection/:id/versions',
    {
      config: historyWriteRoute,
      schema: { tags: ['items'], params: itemParams, body: createVersionBody },
    },
    async (request, reply) => {
      const version = await context.commands.runValidated(itemCommands.createVersion, { ...request.body, ...request.params }, commandCaller(request));
      const schema = await context.schemas.collection(request.siteId, request.params.collection);
      const [data] = await present(request, schema, [version]);
      return reply.status(201).send({ data });
    },
  );

  api.get('/items/:collection/:id/versions/:key', { config: historyReadRoute, schema: { tags: ['items'], params: versionParams } }, async (request) => {
    const { collection: name, id, key: versionKeyParam } = request.params;
    const collection = await context.schemas.collection(request.siteId, name);
    const key = { siteId: request.siteId, collection: name, itemId: id };
    const version = await context.database.withSite(request.siteId, (tx) => requireVersion(tx, key, versionKeyParam));
    const [data] = await present(request, collection, [version]);
    return { data };
  });

  api.patch(
    '/items/:collection/:id/versions/:key',
    {
      config: historyWriteRoute,
      schema: {
        tags: ['items'],
        params: versionParams,
        body: updateVersionBody,
      },
    },
    async (request) => {
      const version = await context.commands.runValidated(itemCommands.updateVersion, { ...request.params, changes: request.body }, commandCaller(request));
      const [data] = await present(request, await context.schemas.collection(request.siteId, request.params.collection), [version]);
      return { data };
    },
  );

  api.delete('/items/:collection/:id/versions/:key', { config: historyWriteRoute, schema: { tags: ['items'], params: versionParams } }, async (request, reply) => {
    await context.commands.runValidated(itemCommands.deleteVersion, request.params, commandCaller(request));
    return reply.status(204).send();
  });

  api.get(
    '/items/:collection/:id/versions/:key/compare',
    { config: historyReadRoute, schema: { tags: ['items'], params: versionParams } },
    async (request) => {
      const { collection: name, id, key: versionKeyParam } = request.params;
      const collection = await context.schemas.collection(request.siteId, name);
      const options = await optionsOf(request.siteId);
      const key = { siteId: request.siteId, collection: name, itemId: id };
      const stored = await context.database.withSite(request.siteId, async (tx) => ({
        version: await requireVersion(tx, key, versionKeyParam),
        main: await requireLiveItem(tx, request.siteId, name, id),
      }));
      // Sealed pii/phi values are compared, and shown, as this reader reads them.
      const [mainData, versionData] = await revealForRequest(context, request, collection, [
        { itemId: id, content: stored.main.data },
        { itemId: id, content: stored.version.data },
      ]);
      const main = { ...stored.main, data: mainData as typeof stored.main.data };
      const version = { ...stored.version, data: versionData as typeof stored.version.data };
      const changes: Record<string, unknown> = {};
      for (const field of [...new Set([...Object.keys(version.data), ...Object.keys(main.data)])].sort()) {
        if (!sameValue(version.data[field], main.data[field])) changes[field] = version.data[field] ?? null;
      }
      await logHistoryReads(context, request, [sensitiveReadOf(collection, id, [main.data, version.data])]);
      return {
        data: {
          main: presentItemRow(collection, main, options),
          version: { ...maskStored(collection, version.data, options), id, key: version.key, name: version.name, mainChanged: version.mainChanged },
          changes: maskStored(collection, changes, options),
        },
      };
    },
  );

  api.post(
    '/items/:collection/:id/versions/:key/promote',
    { config: historyWriteRoute, schema: { tags: ['items'], params: versionParams } },
    async (request) => {
      const { id } = request.params;
      const promotion = await context.commands.runValidated(itemCommands.promote, request.params, commandCaller(request));
      const [snapshot] = await revealForRequest(context, request, promotion.collection, [{ itemId: id, content: promotion.snapshot }]);
      const data = shapeSnapshot(snapshot as typeof promotion.snapshot, promotion.collection, await optionsOf(request.siteId));
      await logHistoryReads(context, request, [sensitiveReadOf(promotion.collection, id, [data])]);
      return { data, meta: { mainDiverged: promotion.mainDiverged, revisionId: promotion.revisionId } };
    },
  );
}
