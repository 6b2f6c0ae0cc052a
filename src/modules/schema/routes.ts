// Schema admin (site administrators): /collections, /fields/:collection, /relations, and a
// collection's schema as one bundle (export, idempotent apply, diff).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  collectionCreateInput,
  collectionMetaInput,
  collectionName,
  collectionSchemaInput,
  fieldInput,
  fieldName,
  fieldPatchInput,
  relationInput,
  relationPatchInput,
} from '../../../domain/content/schemaInput.ts';
import { RELATION_ID_PATTERN } from '../../../domain/content/schemaModel.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { actorOf } from '../../auth/principal.ts';
import type { ServerDeps } from '../../server/app.ts';
import {
  addField,
  applyCollectionSchema,
  createCollection,
  createRelation,
  deleteCollection,
  deleteRelation,
  diffCollectionSchemas,
  removeField,
  updateCollection,
  updateField,
  updateRelation,
} from './handlers.ts';
import { exportCollectionSchema, getCollection, getField, getRelation, listCollections, listFields, listRelations } from './queries.ts';

const admin = { config: { site: 'required' as const, access: 'siteAdmin' as const } };
const collectionParams = z.object({ name: collectionName });
const fieldParams = z.object({ collection: collectionName, field: fieldName });
const relationParams = z.object({ id: z.string().regex(RELATION_ID_PATTERN) });

function metadataOf(request: FastifyRequest): EventMetadata {
  return { actor: actorOf(request.principal), requestId: request.id };
}

export async function schemaRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const read = <T>(siteId: string, work: Parameters<typeof context.database.withSite<T>>[1]) => context.database.withSite(siteId, work);

  // ---------- collections ----------
  api.get('/collections', { ...admin, schema: { tags: ['schema'] } }, async (request) => ({
    data: await read(request.siteId, (tx) => listCollections(tx, request.siteId)),
  }));

  api.post('/collections', { ...admin, schema: { tags: ['schema'], body: collectionCreateInput } }, async (request, reply) => {
    const collection = await createCollection(context, request.siteId, request.body, metadataOf(request));
    return reply.status(201).send({ data: collection });
  });

  api.post(
    '/collections/diff',
    { ...admin, schema: { tags: ['schema'], body: z.object({ collections: z.array(collectionSchemaInput).min(1).max(200) }).strict() } },
    async (request) => {
      const collections = await diffCollectionSchemas(context, request.siteId, request.body.collections);
      return { data: { collections, hasChanges: collections.some((collection) => collection.status !== 'unchanged') } };
    },
  );

  api.get('/collections/:name', { ...admin, schema: { tags: ['schema'], params: collectionParams } }, async (request) => ({
    data: await read(request.siteId, (tx) => getCollection(tx, request.siteId, request.params.name)),
  }));

  api.patch('/collections/:name', { ...admin, schema: { tags: ['schema'], params: collectionParams, body: collectionMetaInput } }, async (request) => ({
    data: await updateCollection(context, request.siteId, request.params.name, request.body, metadataOf(request)),
  }));

  api.delete('/collections/:name', { ...admin, schema: { tags: ['schema'], params: collectionParams } }, async (request, reply) => {
    await deleteCollection(context, request.siteId, request.params.name, metadataOf(request));
    return reply.status(204).send();
  });

  api.get('/collections/:name/schema', { ...admin, schema: { tags: ['schema'], params: collectionParams } }, async (request) => ({
    data: await read(request.siteId, (tx) => exportCollectionSchema(tx, request.siteId, request.params.name)),
  }));

  api.put(
    '/collections/:name/schema',
    { ...admin, schema: { tags: ['schema'], params: collectionParams, body: collectionSchemaInput } },
    async (request) => {
      const result = await applyCollectionSchema(context, request.siteId, request.params.name, request.body, metadataOf(request));
      const schema = await read(request.siteId, (tx) => exportCollectionSchema(tx, request.siteId, request.params.name));
      return { data: schema, meta: { applied: result.events > 0, events: result.events, diff: result.diff } };
    },
  );

  // ---------- fields ----------
  api.get('/fields/:collection', { ...admin, schema: { tags: ['schema'], params: z.object({ collection: collectionName }) } }, async (request) => ({
    data: await read(request.siteId, (tx) => listFields(tx, request.siteId, request.params.collection)),
  }));

  api.post(
    '/fields/:collection',
    { ...admin, schema: { tags: ['schema'], params: z.object({ collection: collectionName }), body: fieldInput } },
    async (request, reply) => {
      const field = await addField(context, request.siteId, request.params.collection, request.body, metadataOf(request));
      return reply.status(201).send({ data: field });
    },
  );

  api.get('/fields/:collection/:field', { ...admin, schema: { tags: ['schema'], params: fieldParams } }, async (request) => ({
    data: await read(request.siteId, (tx) => getField(tx, request.siteId, request.params.collection, request.params.field)),
  }));

  api.patch('/fields/:collection/:field', { ...admin, schema: { tags: ['schema'], params: fieldParams, body: fieldPatchInput } }, async (request) => ({
    data: await updateField(context, request.siteId, request.params.collection, request.params.field, request.body, metadataOf(request)),
  }));

  api.delete('/fields/:collection/:field', { ...admin, schema: { tags: ['schema'], params: fieldParams } }, async (request, reply) => {
    await removeField(context, request.siteId, request.params.collection, request.params.field, metadataOf(request));
    return reply.status(204).send();
  });

  // ---------- relations ----------
  api.get(
    '/relations',
    { ...admin, schema: { tags: ['schema'], querystring: z.object({ collection: collectionName.optional() }) } },
    async (request) => ({ data: await read(request.siteId, (tx) => listRelations(tx, request.siteId, request.query.collection ?? null)) }),
  );

  api.post('/relations', { ...admin, schema: { tags: ['schema'], body: relationInput } }, async (request, reply) => {
    const relation = await createRelation(context, request.siteId, request.body, metadataOf(request));
    return reply.status(201).send({ data: relation });
  });

  api.get('/relations/:id', { ...admin, schema: { tags: ['schema'], params: relationParams } }, async (request) => ({
    data: await read(request.siteId, (tx) => getRelation(tx, request.siteId, request.params.id)),
  }));

  api.patch('/relations/:id', { ...admin, schema: { tags: ['schema'], params: relationParams, body: relationPatchInput } }, async (request) => ({
    data: await updateRelation(context, request.siteId, request.params.id, request.body, metadataOf(request)),
  }));

  api.delete('/relations/:id', { ...admin, schema: { tags: ['schema'], params: relationParams } }, async (request, reply) => {
    await deleteRelation(context, request.siteId, request.params.id, metadataOf(request));
    return reply.status(204).send();
  });
}
