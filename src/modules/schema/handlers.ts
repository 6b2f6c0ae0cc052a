// Schema commands: collections, fields and relations, and applying a whole collection schema. Each
// runs in one site transaction (rules that span aggregates read the schema read models in it), and
// drops this instance's cached schema of the site; other instances hear the svc_schema NOTIFY.
import { randomUUID } from 'node:crypto';
import {
  collectionDecider,
  diffCollectionSchema,
  type CollectionSchemaDiff,
  type CollectionState,
} from '../../../domain/content/collectionDecider.ts';
import { checkRelationAgainstSchema, patchRelation, relationDecider, type RelationCommand, type SchemaView } from '../../../domain/content/relationDecider.ts';
import { diffRelations, resolveBundleRelations, type RelationDiff } from '../../../domain/content/schemaDiff.ts';
import {
  bundlesOfDiff,
  patchContentField,
  toCollectionMeta,
  toContentField,
  toRelationDefinition,
  type CollectionCreateInput,
  type CollectionDiffInput,
  type CollectionMetaInput,
  type CollectionSchemaInput,
  type FieldInput,
  type FieldPatchInput,
  type RelationInput,
  type RelationPatchInput,
} from '../../../domain/content/schemaInput.ts';
import { aliasFieldsOf, REFERENCE_FIELD_TYPES, storedFieldsOf, type ContentField, type RelationDefinition } from '../../../domain/content/schemaModel.ts';
import type { ConversionCounts } from '../../../domain/content/fieldTypeChange.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { checkTypeChange, fieldHoldsOrHeldValues } from './fieldTypeChanges.ts';
import { getCollection, getField, getRelation, type CollectionView, type FieldView, type RelationView } from './queries.ts';
import { readSiteSchema, type SiteSchema } from '../../schema/siteSchema.ts';

export function collectionStreamId(siteId: string, collection: string): string {
  return streamId(siteId, 'collection', collection);
}

export function relationStreamId(siteId: string, relationId: string): string {
  return streamId(siteId, 'relation', relationId);
}

/** The lock writers of the collection's stream queue on (the command handler's `lock`), taken before the first read. */
async function lockCollectionStream(tx: Queryable, siteId: string, collection: string): Promise<void> {
  await tx.query(sql`SELECT pg_advisory_xact_lock(hashtextextended(${collectionStreamId(siteId, collection)}, 0))`);
}

/** One site transaction (retried on a concurrent change), then this instance forgets the site's schema. */
async function schemaTransaction<T>(context: AppContext, siteId: string, work: (tx: Queryable) => Promise<T>): Promise<T> {
  try {
    return await inSiteTransaction(context, siteId, work);
  } finally {
    context.schemas.invalidate(siteId);
  }
}

function schemaViewOf(schema: SiteSchema): SchemaView {
  return { fieldsOf: (collection) => schema.collections.get(collection)?.fields, relations: schema.relations };
}

async function runCollectionCommand(
  context: AppContext,
  tx: Queryable,
  siteId: string,
  collection: string,
  command: Parameters<typeof collectionDecider.decide>[0],
  metadata: EventMetadata,
) {
  return handleCommandIn(tx, context.projections, {
    siteId,
    streamId: collectionStreamId(siteId, collection),
    decider: collectionDecider,
    command,
    metadata,
  });
}

async function runRelationCommand(
  context: AppContext,
  tx: Queryable,
  siteId: string,
  relationId: string,
  command: Parameters<typeof relationDecider.decide>[0],
  metadata: EventMetadata,
) {
  return handleCommandIn(tx, context.projections, {
    siteId,
    streamId: relationStreamId(siteId, relationId),
    decider: relationDecider,
    command,
    metadata,
  });
}

export async function createCollection(context: AppContext, siteId: string, input: CollectionCreateInput, metadata: EventMetadata): Promise<CollectionView> {
  return schemaTransaction(context, siteId, async (tx) => {
    await runCollectionCommand(
      context,
      tx,
      siteId,
      input.name,
      { type: 'createCollection', collection: input.name, meta: toCollectionMeta(input), fields: (input.fields ?? []).map(toContentField) },
      metadata,
    );
    return getCollection(tx, siteId, input.name);
  });
}

export async function updateCollection(
  context: AppContext,
  siteId: string,
  name: string,
  meta: CollectionMetaInput,
  metadata: EventMetadata,
): Promise<CollectionView> {
  return schemaTransaction(context, siteId, async (tx) => {
    await runCollectionCommand(context, tx, siteId, name, { type: 'updateCollection', collection: name, meta }, metadata);
    return getCollection(tx, siteId, name);
  });
}

/**
 * Soft delete: the collection's relations go with it, except that an m2a relation which merely
 * allows it as a target (among others) only drops it from `allowedCollections`, as Directus does:
 * the relation's other targets stay readable. Its items and history stay in the log.
 */
export async function deleteCollection(context: AppContext, siteId: string, name: string, metadata: EventMetadata): Promise<void> {
  await schemaTransaction(context, siteId, async (tx) => {
    const schema = await readSiteSchema(tx, siteId);
    const collection = schema.collections.get(name);
    if (!collection) throw new AppError('NOT_FOUND', `Collection "${name}" not found`);
    for (const relation of collection.relations) {
      const remaining = (relation.allowedCollections ?? []).filter((allowed) => allowed !== name);
      const onlyTarget = relation.kind === 'm2a' && relation.collection !== name && relation.junctionCollection !== name;
      const command: RelationCommand =
        onlyTarget && remaining.length > 0
          ? { type: 'updateRelation', relationId: relation.id, patch: { allowedCollections: remaining } }
          : { type: 'deleteRelation', relationId: relation.id };
      await runRelationCommand(context, tx, siteId, relation.id, command, metadata);
    }
    await runCollectionCommand(context, tx, siteId, name, { type: 'deleteCollection', collection: name }, metadata);
  });
}

function relationUsing(schema: SiteSchema, collection: string, field: string): RelationDefinition | undefined {
  return schema.relations.find((relation) =>
    [...storedFieldsOf(relation), ...aliasFieldsOf(relation)].some((used) => used.collection === collection && used.field === field),
  );
}

export async function addField(context: AppContext, siteId: string, collection: string, input: FieldInput, metadata: EventMetadata): Promise<FieldView> {
  return schemaTransaction(context, siteId, async (tx) => {
    const schema = await readSiteSchema(tx, siteId);
    if (schema.collections.get(collection)?.aliasFields.has(input.field)) {
      throw new AppError('CONFLICT', `"${input.field}" is the alias of a relation on "${collection}"`, { path: ['body', 'field'] });
    }
    await runCollectionCommand(context, tx, siteId, collection, { type: 'addField', collection, field: toContentField(input) }, metadata);
    return getField(tx, siteId, collection, input.field);
  });
}

/** Which part of a field's declaration changes how its values are stored, if any: its type or its translatable option. */
function reshapedBy(current: ContentField, next: ContentField): 'type' | 'options' | null {
  if (next.type !== current.type) return 'type';
  return (next.options.translatable === true) !== (current.options.translatable === true) ? 'options' : null;
}

/**
 * 409 when an item holds a value in the field or ever held one: live, soft-deleted (a revert can
 * bring it back) or in its history (time travel reads past values with today's declaration, and a
 * text under a number's cast would fail). What a type change over values does instead: checkTypeChange.
 */
async function refuseReshapeOverValues(tx: Queryable, siteId: string, collection: string, field: string, path: (string | number)[]): Promise<void> {
  if (await fieldHoldsOrHeldValues(tx, siteId, collection, field)) {
    throw new AppError('CONFLICT', `Items of "${collection}" hold or held values in "${field}"; its type or translatable option cannot change`, { path });
  }
}

export interface FieldUpdateResult {
  field: FieldView;
  /** A type change's conversion of the items' values (null when the type did not change). */
  conversion: ConversionCounts | null;
}

/**
 * A field's properties, or its type: a type change over values is destructive (allowDestructive), and
 * the items' values are converted by the read models as they fold it (docs/content.md). The change
 * holds the collection stream's lock from its first read, so the counts it answers are the ones applied.
 */
export async function updateField(
  context: AppContext,
  siteId: string,
  collection: string,
  field: string,
  patch: FieldPatchInput,
  metadata: EventMetadata,
  options: { allowDestructive: boolean } = { allowDestructive: false },
): Promise<FieldUpdateResult> {
  return schemaTransaction(context, siteId, async (tx) => {
    await lockCollectionStream(tx, siteId, collection);
    const schema = await readSiteSchema(tx, siteId);
    const current = schema.collections.get(collection)?.fields.get(field);
    let conversion: ConversionCounts | null = null;
    if (current) {
      const next = patchContentField(current, patch);
      const relation = relationUsing(schema, collection, field);
      if (relation && storedFieldsOf(relation).some((stored) => stored.collection === collection && stored.field === field)) {
        if (!REFERENCE_FIELD_TYPES.has(next.type) || next.options.translatable === true) {
          throw new AppError('VALIDATION_FAILED', `"${field}" holds ids for relation "${relation.id}": it must stay a uuid or string field`, {
            path: ['body', 'type'],
          });
        }
      }
      const reshaped = reshapedBy(current, next);
      if (reshaped === 'type') {
        conversion = await checkTypeChange(tx, siteId, schema, collection, { current, next, allowDestructive: options.allowDestructive, path: ['body', 'type'] });
      } else if (reshaped) {
        await refuseReshapeOverValues(tx, siteId, collection, field, ['body', reshaped]);
      }
    }
    await runCollectionCommand(context, tx, siteId, collection, { type: 'updateField', collection, field, patch }, metadata);
    return { field: await getField(tx, siteId, collection, field), conversion };
  });
}

export async function removeField(context: AppContext, siteId: string, collection: string, field: string, metadata: EventMetadata): Promise<void> {
  await schemaTransaction(context, siteId, async (tx) => {
    const schema = await readSiteSchema(tx, siteId);
    const relation = relationUsing(schema, collection, field);
    if (relation) throw new AppError('CONFLICT', `Field "${field}" is used by relation "${relation.id}"; delete the relation first`);
    await runCollectionCommand(context, tx, siteId, collection, { type: 'removeField', collection, field }, metadata);
  });
}

export async function createRelation(context: AppContext, siteId: string, input: RelationInput, metadata: EventMetadata): Promise<RelationView> {
  const relation = toRelationDefinition(input, input.id ?? randomUUID());
  return schemaTransaction(context, siteId, async (tx) => {
    checkRelationAgainstSchema(relation, schemaViewOf(await readSiteSchema(tx, siteId)));
    await runRelationCommand(context, tx, siteId, relation.id, { type: 'createRelation', relation }, metadata);
    return getRelation(tx, siteId, relation.id);
  });
}

export async function updateRelation(
  context: AppContext,
  siteId: string,
  relationId: string,
  patch: RelationPatchInput,
  metadata: EventMetadata,
): Promise<RelationView> {
  return schemaTransaction(context, siteId, async (tx) => {
    const current = await getRelation(tx, siteId, relationId);
    const { createdAt: _created, updatedAt: _updated, ...definition } = current;
    checkRelationAgainstSchema(patchRelation(definition, patch), schemaViewOf(await readSiteSchema(tx, siteId)));
    await runRelationCommand(context, tx, siteId, relationId, { type: 'updateRelation', relationId, patch }, metadata);
    return getRelation(tx, siteId, relationId);
  });
}

export async function deleteRelation(context: AppContext, siteId: string, relationId: string, metadata: EventMetadata): Promise<void> {
  await schemaTransaction(context, siteId, async (tx) => {
    await runRelationCommand(context, tx, siteId, relationId, { type: 'deleteRelation', relationId }, metadata);
  });
}

// ---------- whole-collection schemas ----------

export interface CollectionDiffView extends CollectionSchemaDiff {
  collection: string;
  relations: RelationDiff;
}

export interface ApplyResult {
  collection: string;
  /** Events the apply appended (0: the schema was already exactly this). */
  events: number;
  diff: CollectionDiffView;
  /** Per field whose type changed over values: what the conversion kept and what it set to null. */
  conversions: Record<string, ConversionCounts>;
}

/** The state of a collection for a diff, from the live site schema (absent when not live; removed fields play no part). */
function collectionStateOf(schema: SiteSchema, name: string): CollectionState {
  const collection = schema.collections.get(name);
  if (!collection) return collectionDecider.initialState();
  return { lifecycle: 'active', meta: collection.meta, fields: collection.fields, removed: new Map() };
}

function declaredOn(schema: SiteSchema, name: string): RelationDefinition[] {
  return schema.relations.filter((relation) => relation.collection === name);
}

function bundleChecks(name: string, bundle: CollectionSchemaInput, path: (string | number)[]): void {
  if (bundle.collection !== undefined && bundle.collection !== name) {
    throw new AppError('VALIDATION_FAILED', `The bundle is for "${bundle.collection}", not "${name}"`, { path: [...path, 'collection'] });
  }
  bundle.relations?.forEach((relation, index) => {
    if (relation.collection !== name) {
      throw new AppError('VALIDATION_FAILED', `A bundle of "${name}" declares only relations of "${name}"`, {
        path: [...path, 'relations', index, 'collection'],
      });
    }
  });
}

function diffOf(schema: SiteSchema, name: string, bundle: CollectionSchemaInput, relations: RelationDefinition[]): CollectionDiffView {
  const fields = bundle.fields.map(toContentField);
  const diff = diffCollectionSchema(collectionStateOf(schema, name), { meta: bundle.meta ?? null, fields });
  const relationDiff = diffRelations(declaredOn(schema, name), relations);
  const relationsChanged = relationDiff.added.length + relationDiff.updated.length + relationDiff.removed.length > 0;
  return { collection: name, ...diff, status: diff.status === 'unchanged' && relationsChanged ? 'update' : diff.status, relations: relationDiff };
}

/**
 * Brings a collection to exactly the bundle: its meta (when given), its fields, and the relations
 * declared on it. Diff-aware: only differences become events, so applying twice appends nothing. A
 * field's type change is checked as PATCH /fields checks it (checkTypeChange: allowDestructive, the
 * counts), under the collection stream's lock from the first read, as updateField holds it.
 */
export async function applyCollectionSchema(
  context: AppContext,
  siteId: string,
  name: string,
  bundle: CollectionSchemaInput,
  metadata: EventMetadata,
  options: { allowDestructive: boolean } = { allowDestructive: false },
): Promise<ApplyResult> {
  bundleChecks(name, bundle, ['body']);
  return schemaTransaction(context, siteId, async (tx) => {
    await lockCollectionStream(tx, siteId, name);
    const before = await readSiteSchema(tx, siteId);
    const relations = resolveBundleRelations(bundle.relations ?? [], declaredOn(before, name), randomUUID);
    const diff = diffOf(before, name, bundle, relations);
    const declared = before.collections.get(name)?.fields;
    const conversions: Record<string, ConversionCounts> = {};
    for (const [index, input] of bundle.fields.entries()) {
      const current = declared?.get(input.field);
      if (!current) continue;
      const next = toContentField(input);
      const reshaped = reshapedBy(current, next);
      const path = ['body', 'fields', index, reshaped ?? 'type'];
      if (reshaped === 'type') {
        const counts = await checkTypeChange(tx, siteId, before, name, { current, next, allowDestructive: options.allowDestructive, path });
        if (counts.converted + counts.nulled > 0) conversions[input.field] = counts;
      } else if (reshaped) {
        await refuseReshapeOverValues(tx, siteId, name, input.field, path);
      }
    }
    let events = 0;
    for (const relationId of diff.relations.removed) {
      events += (await runRelationCommand(context, tx, siteId, relationId, { type: 'deleteRelation', relationId }, metadata)).events.length;
    }
    const afterRemovals = await readSiteSchema(tx, siteId);
    for (const field of diff.fields.removed) {
      const relation = relationUsing(afterRemovals, name, field);
      if (relation) throw new AppError('CONFLICT', `Field "${field}" is used by relation "${relation.id}" of another collection`);
    }
    const applied = await runCollectionCommand(
      context,
      tx,
      siteId,
      name,
      { type: 'applySchema', collection: name, meta: bundle.meta ?? null, fields: bundle.fields.map(toContentField) },
      metadata,
    );
    events += applied.events.length;
    for (const [index, relation] of relations.entries()) {
      if (!diff.relations.added.includes(relation) && !diff.relations.updated.some((change) => change.id === relation.id)) continue;
      try {
        checkRelationAgainstSchema(relation, schemaViewOf(await readSiteSchema(tx, siteId)));
      } catch (error) {
        if (error instanceof AppError) throw error.at(['body', 'relations', index, ...error.path.slice(1)]);
        throw error;
      }
      events += (await runRelationCommand(context, tx, siteId, relation.id, { type: 'replaceRelation', relation }, metadata)).events.length;
    }
    return { collection: name, events, diff, conversions };
  });
}

/** What applying each bundle of the body (a set, or one collection's export) would change, without changing anything. */
export async function diffCollectionSchemas(context: AppContext, siteId: string, body: CollectionDiffInput): Promise<CollectionDiffView[]> {
  const located = bundlesOfDiff(body);
  for (const { bundle, path } of located) {
    if (!bundle.collection) throw new AppError('VALIDATION_FAILED', 'Each bundle names its collection', { path: ['body', ...path, 'collection'] });
    bundleChecks(bundle.collection, bundle, ['body', ...path]);
  }
  const schema = await context.database.withSite(siteId, (tx) => readSiteSchema(tx, siteId));
  return located.map(({ bundle }) => {
    const name = bundle.collection!;
    const relations = resolveBundleRelations(bundle.relations ?? [], declaredOn(schema, name), () => '(new)');
    return diffOf(schema, name, bundle, relations);
  });
}
