// Pins of an item: list, read, create (pin a field to a revision), release.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError } from '../../../domain/shared/appError.ts';
import { guardItemHistory } from '../../access/itemGuards.ts';
import { commandCaller } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { itemCommands, pinBody } from './commands.ts';
import { logHistoryReads, maskStored, readOptionsFor, revealForRequest, sensitiveReadOf } from './historyItemRows.ts';
import { historyReadRoute, historyWriteRoute, itemParams, pinField } from './historyParams.ts';
import { listPins, requireLiveItem, type ItemPin } from './historyQueries.ts';

const pinParams = itemParams.extend({ field: pinField });

export async function pinRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  // Permissions of the item history (src/access/itemGuards.ts), for every route of this plugin.
  app.addHook('preHandler', guardItemHistory(context));
  /** Pins as the API shows them: hash fields of the pinned item masked, pii/phi reads logged. */
  const present = async (request: FastifyRequest, pins: ItemPin[]) => {
    const schema = await context.schemas.site(request.siteId);
    const options = readOptionsFor(schema.defaultLanguage);
    const opened = [];
    for (const pin of pins) {
      const collection = schema.collections.get(pin.target.collection);
      const [pinned] = await revealForRequest(context, request, collection, [{ itemId: pin.target.item, content: pin.pinned }]);
      opened.push({ ...pin, pinned: maskStored(collection, (pinned ?? null) as typeof pin.pinned, options) });
    }
    await logHistoryReads(
      context,
      request,
      opened.map((pin) => sensitiveReadOf(schema.collections.get(pin.target.collection), pin.target.item, [pin.pinned])),
    );
    return opened;
  };

  api.get('/items/:collection/:id/pins', { config: historyReadRoute, schema: { tags: ['items'], params: itemParams } }, async (request) => {
    const { collection, id } = request.params;
    await context.schemas.collection(request.siteId, collection);
    const pins = await context.database.withSite(request.siteId, async (tx) => {
      await requireLiveItem(tx, request.siteId, collection, id);
      return listPins(tx, { siteId: request.siteId, collection, itemId: id });
    });
    return { data: await present(request, pins), meta: { total: pins.length } };
  });

  api.get('/items/:collection/:id/pins/:field', { config: historyReadRoute, schema: { tags: ['items'], params: pinParams } }, async (request) => {
    const { collection, id, field } = request.params;
    await context.schemas.collection(request.siteId, collection);
    const [pin] = await context.database.withSite(request.siteId, (tx) => listPins(tx, { siteId: request.siteId, collection, itemId: id }, field));
    if (!pin) throw new AppError('NOT_FOUND', `The field "${field}" of this item is not pinned`);
    const [data] = await present(request, [pin]);
    return { data };
  });

  api.post(
    '/items/:collection/:id/pins',
    {
      config: historyWriteRoute,
      schema: { tags: ['items'], params: itemParams, body: pinBody },
    },
    async (request, reply) => {
      const pin = await context.commands.runValidated(itemCommands.pin, { ...request.body, ...request.params }, commandCaller(request));
      const [data] = await present(request, [pin]);
      return reply.status(201).send({ data });
    },
  );

  api.delete('/items/:collection/:id/pins', { config: historyWriteRoute, schema: { tags: ['items'], params: itemParams } }, async (request, reply) => {
    await context.commands.runValidated(itemCommands.releasePins, request.params, commandCaller(request));
    return reply.status(204).send();
  });

  api.delete('/items/:collection/:id/pins/:field', { config: historyWriteRoute, schema: { tags: ['items'], params: pinParams } }, async (request, reply) => {
    await context.commands.runValidated(itemCommands.releasePins, request.params, commandCaller(request));
    return reply.status(204).send();
  });
}
