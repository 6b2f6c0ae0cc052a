// /presets (docs/presets.md): view presets and bookmarks of collections, for a user, a role chain or
// everyone. Any signed-in principal; what each may see and manage follows the preset's scope.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import { isSiteAdmin } from '../../auth/principal.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { commandCaller, pageMeta, pageMetaSchema, uuidOr404 } from '../../server/routeKit.ts';
import { presetCommands } from './commands.ts';
import { viewerOf } from './presetScope.ts';
import { findEffectivePreset, findPreset, listAllPresets, listVisibleBookmarks, listVisiblePresets, presetVisibleTo } from './queries.ts';
import { appliedPresetSchema, collectionQuery, createPresetBody, listPresetsQuery, presetSchema, updatePresetBody } from './schemas.ts';

const signedIn = { site: 'required' as const, access: 'bearer' as const };
const tags = ['presets'];
const idParams = z.object({ id: z.string() });

export async function presetsRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/presets',
    { config: signedIn, schema: { tags, querystring: listPresetsQuery, response: { 200: z.object({ data: z.array(presetSchema), meta: pageMetaSchema }) } } },
    async (request) => {
      const { siteId, principal, query } = request;
      const result = await context.database.withSite(siteId, (tx) =>
        isSiteAdmin(principal) ? listAllPresets(tx, siteId, query) : listVisiblePresets(tx, siteId, viewerOf(principal), query),
      );
      return { data: result.presets, meta: pageMeta(result.total, query) };
    },
  );

  api.get(
    '/presets/effective',
    { config: signedIn, schema: { tags, querystring: collectionQuery, response: { 200: z.object({ data: appliedPresetSchema.nullable() }) } } },
    async (request) => ({
      data: await context.database.withSite(request.siteId, (tx) => findEffectivePreset(tx, request.siteId, viewerOf(request.principal), request.query.collection)),
    }),
  );

  api.get(
    '/presets/bookmarks',
    { config: signedIn, schema: { tags, querystring: collectionQuery, response: { 200: z.object({ data: z.array(appliedPresetSchema) }) } } },
    async (request) => ({
      data: await context.database.withSite(request.siteId, (tx) => listVisibleBookmarks(tx, request.siteId, viewerOf(request.principal), request.query.collection)),
    }),
  );

  api.post('/presets', { config: signedIn, schema: { tags, body: createPresetBody, response: { 201: z.object({ data: presetSchema }) } } }, async (request, reply) =>
    reply.status(201).send({ data: await context.commands.runValidated(presetCommands.create, request.body, commandCaller(request)) }),
  );

  api.get('/presets/:id', { config: signedIn, schema: { tags, params: idParams, response: { 200: z.object({ data: presetSchema }) } } }, async (request) => {
    const id = uuidOr404(request.params.id, 'Preset');
    const { siteId, principal } = request;
    const preset = await context.database.withSite(siteId, async (tx) => {
      const found = await findPreset(tx, siteId, id);
      if (!found) throw errors.notFound('Preset not found');
      if (!isSiteAdmin(principal) && !(await presetVisibleTo(tx, siteId, viewerOf(principal), id))) throw errors.forbidden('This preset is not yours, your roles’ or global');
      return found;
    });
    return { data: preset };
  });

  api.patch(
    '/presets/:id',
    { config: signedIn, schema: { tags, params: idParams, body: updatePresetBody, response: { 200: z.object({ data: presetSchema }) } } },
    async (request) => ({
      data: await context.commands.runValidated(presetCommands.update, { ...request.body, id: request.params.id }, commandCaller(request)),
    }),
  );

  api.delete('/presets/:id', { config: signedIn, schema: { tags, params: idParams } }, async (request, reply) => {
    await context.commands.runValidated(presetCommands.delete, { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });
}
