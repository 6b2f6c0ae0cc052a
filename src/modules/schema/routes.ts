// Schema admin (site administrators): /collections, /fields/:collection, /relations, and a
// collection's schema as one bundle (export, idempotent apply, diff).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  collectionCreateInput,
  collectionDiffInput,
  collectionMetaInput,
  collectionName,
  collectionSchemaInput,
  fieldInput,
  fieldName,
  fieldPatchInput,
  relationInput,
  relationPatchInput,
} from '../../../domain/content/schemaInput.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { assertCanSeeCollection, canSeeCollection, canSeeField, canSeeRelation } from '../../access/schemaAccess.ts';
import { commandCaller } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { relationId, schemaCommands } from './commands.ts';
import { diffCollectionSchemas } from './handlers.ts';
import {
  exportCollectionSchema,
  fieldIndexStatuses,
  getCollection,
  getField,
  getRelation,
  listCollections,
  listFields,
  listRelations,
} from './queries.ts';

const admin = { config: { site: 'required' as const, access: 'siteAdmin' as const } };
// Reads are open to signed-in principals, narrowed by their permissions (src/access/schemaAccess.ts).
const reader = { config: { site: 'required' as const, access: 'bearer' as const } };
const collectionParams = z.object({ name: collectionName });
const fieldParams = z.object({ collection: collectionName, field: fieldName });
const relationParams = z.object({ id: relationId });
const destructiveQuery = z.object({ allowDestructive: z.enum(['true', 'false']).optional().transform((value) => value === 'true') });

export async function schemaRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const read = <T>(siteId: string, work: Parameters<typeof context.database.withSite<T>>[1]) => context.database.withSite(siteId, work);

  // ---------- collections ----------
  api.get('/collections', { ...reader, schema: { tags: ['schema'] } }, async (request) => {
    const access = await request.access();
    const collections = await read(request.siteId, (tx) => listCollections(tx, request.siteId));
    return { data: collections.filter((collection) => canSeeCollection(access, collection.name)) };
  });

  api.post('/collections', { ...admin, schema: { tags: ['schema'], body: collectionCreateInput } }, async (request, reply) => {
    const collection = await context.commands.runValidated(schemaCommands.createCollection, request.body, commandCaller(request));
    return reply.status(201).send({ data: collection });
  });

  api.post(
    '/collections/diff',
    { ...admin, schema: { tags: ['schema'], body: collectionDiffInput } },
    async (request) => {
      const collections = await diffCollectionSchemas(context, request.siteId, request.body);
      return { data: { collections, hasChanges: collections.some((collection) => collection.status !== 'unchanged') } };
    },
  );

  api.get('/collections/:name', { ...reader, schema: { tags: ['schema'], params: collectionParams } }, async (request) => {
    assertCanSeeCollection(await request.access(), request.params.name);
    return { data: await read(request.siteId, (tx) => getCollection(tx, request.siteId, request.params.name)) };
  });

  api.patch('/collections/:name', { ...admin, schema: { tags: ['schema'], params: collectionParams, body: collectionMetaInput } }, async (request) => ({
    data: await context.commands.runValidated(schemaCommands.updateCollection, { name: request.params.name, changes: request.body }, commandCaller(request)),
  }));

  api.delete('/collections/:name', { ...admin, schema: { tags: ['schema'], params: collectionParams } }, async (request, reply) => {
    await context.commands.runValidated(schemaCommands.deleteCollection, request.params, commandCaller(request));
    return reply.status(204).send();
  });

  api.get('/collections/:name/schema', { ...admin, schema: { tags: ['schema'], params: collectionParams } }, async (request) => ({
    data: await read(request.siteId, (tx) => exportCollectionSchema(tx, request.siteId, request.params.name)),
  }));

  // A field's type change over values needs ?allowDestructive=true, as PATCH /fields does; the answer's
  // meta.conversions counts what each changed field converted (docs/content.md).
  api.put(
    '/collections/:name/schema',
    { ...admin, schema: { tags: ['schema'], params: collectionParams, querystring: destructiveQuery, body: collectionSchemaInput } },
    async (request) => {
      const { schema, ...meta } = await context.commands.runValidated(
        schemaCommands.applyCollection,
        { name: request.params.name, bundle: request.body, allowDestructive: request.query.allowDestructive },
        commandCaller(request),
      );
      return { data: schema, meta };
    },
  );

  // ---------- fields ----------
  api.get('/fields/:collection', { ...reader, schema: { tags: ['schema'], params: z.object({ collection: collectionName }) } }, async (request) => {
    const access = await request.access();
    assertCanSeeCollection(access, request.params.collection);
    const { collection } = request.params;
    const fields = await read(request.siteId, (tx) => listFields(tx, request.siteId, collection));
    const data = fields.filter((field) => canSeeField(access, collection, field.field));
    // Index states are for administrators (a failed build's error can quote an item's value).
    if (!access.admin) return { data };
    const indexes = await read(request.siteId, (tx) => fieldIndexStatuses(tx, request.siteId, collection));
    return { data, meta: { indexStatus: Object.fromEntries(data.map((field) => [field.field, indexes.get(field.field) ?? null])) } };
  });

  api.post(
    '/fields/:collection',
    { ...admin, schema: { tags: ['schema'], params: z.object({ collection: collectionName }), body: fieldInput } },
    async (request, reply) => {
      const field = await context.commands.runValidated(
        schemaCommands.createField,
        { collection: request.params.collection, definition: request.body },
        commandCaller(request),
      );
      return reply.status(201).send({ data: field });
    },
  );

  api.get('/fields/:collection/:field', { ...reader, schema: { tags: ['schema'], params: fieldParams } }, async (request) => {
    const access = await request.access();
    assertCanSeeCollection(access, request.params.collection);
    if (!canSeeField(access, request.params.collection, request.params.field)) {
      throw new AppError('NOT_FOUND', `Field "${request.params.field}" of "${request.params.collection}" not found`);
    }
    const { collection, field } = request.params;
    const data = await read(request.siteId, (tx) => getField(tx, request.siteId, collection, field));
    if (!access.admin) return { data };
    const indexes = await read(request.siteId, (tx) => fieldIndexStatuses(tx, request.siteId, collection, field));
    return { data, meta: { indexStatus: indexes.get(field) ?? null } };
  });

  // A type change over values needs ?allowDestructive=true; its answer counts what was converted (docs/content.md).
  api.patch(
    '/fields/:collection/:field',
    { ...admin, schema: { tags: ['schema'], params: fieldParams, querystring: destructiveQuery, body: fieldPatchInput } },
    async (request) => {
      const input = { ...request.params, changes: request.body, allowDestructive: request.query.allowDestructive };
      const { field, conversion } = await context.commands.runValidated(schemaCommands.updateField, input, commandCaller(request));
      return conversion ? { data: field, meta: conversion } : { data: field };
    },
  );

  api.delete('/fields/:collection/:field', { ...admin, schema: { tags: ['schema'], params: fieldParams } }, async (request, reply) => {
    await context.commands.runValidated(schemaCommands.deleteField, request.params, commandCaller(request));
    return reply.status(204).send();
  });

  // ---------- relations ----------
  api.get(
    '/relations',
    { ...reader, schema: { tags: ['schema'], querystring: z.object({ collection: collectionName.optional() }) } },
    async (request) => {
      const access = await request.access();
      const relations = await read(request.siteId, (tx) => listRelations(tx, request.siteId, request.query.collection ?? null));
      return { data: relations.filter((relation) => canSeeRelation(access, relation)) };
    },
  );

  api.post('/relations', { ...admin, schema: { tags: ['schema'], body: relationInput } }, async (request, reply) => {
    const relation = await context.commands.runValidated(schemaCommands.createRelation, request.body, commandCaller(request));
    return reply.status(201).send({ data: relation });
  });

  api.get('/relations/:id', { ...reader, schema: { tags: ['schema'], params: relationParams } }, async (request) => {
    const access = await request.access();
    const relation = await read(request.siteId, (tx) => getRelation(tx, request.siteId, request.params.id));
    if (!canSeeRelation(access, relation)) throw new AppError('NOT_FOUND', `Relation "${request.params.id}" not found`);
    return { data: relation };
  });

  api.patch('/relations/:id', { ...admin, schema: { tags: ['schema'], params: relationParams, body: relationPatchInput } }, async (request) => ({
    data: await context.commands.runValidated(schemaCommands.updateRelation, { id: request.params.id, changes: request.body }, commandCaller(request)),
  }));

  api.delete('/relations/:id', { ...admin, schema: { tags: ['schema'], params: relationParams } }, async (request, reply) => {
    await context.commands.runValidated(schemaCommands.deleteRelation, request.params, commandCaller(request));
    return reply.status(204).send();
  });
}
