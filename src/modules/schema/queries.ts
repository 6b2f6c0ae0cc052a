// Reads of the schema read models: collections, fields, relations, and a collection's schema bundle.
import { orderedField, orderedMeta, orderedRelation, type CollectionMeta, type ContentField, type RelationDefinition } from '../../../domain/content/schemaModel.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';

export type CollectionView = { name: string } & CollectionMeta & { createdAt: string; updatedAt: string };
export type FieldView = { collection: string } & ContentField;
export type RelationView = RelationDefinition & { createdAt: string; updatedAt: string };

/** What GET /collections/:name/schema exports and PUT applies. */
export interface CollectionSchemaBundle {
  collection: string;
  meta: CollectionMeta;
  fields: ContentField[];
  relations: RelationDefinition[];
}

interface CollectionRow {
  name: string;
  meta: CollectionMeta;
  created_at: Date;
  updated_at: Date;
}

function collectionView(row: CollectionRow): CollectionView {
  return { name: row.name, ...orderedMeta(row.meta), createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString() };
}

function collectionNotFound(name: string): AppError {
  return new AppError('NOT_FOUND', `Collection "${name}" not found`);
}

export async function listCollections(tx: Queryable, siteId: string): Promise<CollectionView[]> {
  const rows = await tx.query<CollectionRow>(
    sql`SELECT name, meta, created_at, updated_at FROM collections WHERE site_id = ${siteId} AND deleted_at IS NULL ORDER BY name`,
  );
  return rows.map(collectionView);
}

export async function getCollection(tx: Queryable, siteId: string, name: string): Promise<CollectionView> {
  const [row] = await tx.query<CollectionRow>(
    sql`SELECT name, meta, created_at, updated_at FROM collections WHERE site_id = ${siteId} AND name = ${name} AND deleted_at IS NULL`,
  );
  if (!row) throw collectionNotFound(name);
  return collectionView(row);
}

export async function listFields(tx: Queryable, siteId: string, collection: string): Promise<FieldView[]> {
  await getCollection(tx, siteId, collection);
  const rows = await tx.query<{ definition: ContentField }>(sql`
    SELECT definition FROM collection_fields WHERE site_id = ${siteId} AND collection = ${collection} ORDER BY position, field`);
  return rows.map((row) => ({ collection, ...orderedField(row.definition) }));
}

export async function getField(tx: Queryable, siteId: string, collection: string, field: string): Promise<FieldView> {
  await getCollection(tx, siteId, collection);
  const [row] = await tx.query<{ definition: ContentField }>(
    sql`SELECT definition FROM collection_fields WHERE site_id = ${siteId} AND collection = ${collection} AND field = ${field}`,
  );
  if (!row) throw new AppError('NOT_FOUND', `Field "${field}" of "${collection}" not found`);
  return { collection, ...orderedField(row.definition) };
}

/**
 * Where the expression index of a field stands (item_field_indexes): `building` (asked for, not yet
 * usable), `ready`, `failed` (with the database's error; tried again later) or `dropping` (no longer
 * wanted, being dropped).
 */
export interface FieldIndexStatus {
  state: 'building' | 'ready' | 'failed' | 'dropping';
  error: string | null;
  index: string;
}

/**
 * The index status of each field of a collection that has an index (or of one field). A field whose
 * kind changed has two rows while the old index drops: the wanted one is shown.
 */
export async function fieldIndexStatuses(tx: Queryable, siteId: string, collection: string, field: string | null = null): Promise<Map<string, FieldIndexStatus>> {
  const rows = await tx.query<{ field: string; state: FieldIndexStatus['state']; error: string | null; index_name: string }>(sql`
    SELECT field, state, error, index_name FROM item_field_indexes
     WHERE site_id = ${siteId} AND collection = ${collection} AND (${field}::text IS NULL OR field = ${field})
     ORDER BY field, (state = 'dropping') DESC, (state = 'ready') DESC, kind LIKE '%:desc' DESC, kind`);
  // Ordered so that, per field, a wanted row comes last and wins: of a field's two wanted rows (its
  // kind and the descending twin), one not ready yet, else the plain kind's.
  return new Map(rows.map((row) => [row.field, { state: row.state, error: row.error, index: row.index_name }]));
}

interface RelationRow {
  definition: RelationDefinition;
  created_at: Date;
  updated_at: Date;
}

function relationView(row: RelationRow): RelationView {
  return { ...orderedRelation(row.definition), createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString() };
}

/** Relations of the site; with `collection`, those that touch it. */
export async function listRelations(tx: Queryable, siteId: string, collection: string | null = null): Promise<RelationView[]> {
  const rows = await tx.query<RelationRow>(sql`SELECT definition, created_at, updated_at FROM collection_relations WHERE site_id = ${siteId} ORDER BY id`);
  const views = rows.map(relationView);
  if (collection === null) return views;
  return views.filter((relation) =>
    [relation.collection, relation.relatedCollection, relation.junctionCollection, ...(relation.allowedCollections ?? [])].includes(collection),
  );
}

export async function getRelation(tx: Queryable, siteId: string, relationId: string): Promise<RelationView> {
  const [row] = await tx.query<RelationRow>(
    sql`SELECT definition, created_at, updated_at FROM collection_relations WHERE site_id = ${siteId} AND id = ${relationId}`,
  );
  if (!row) throw new AppError('NOT_FOUND', `Relation "${relationId}" not found`);
  return relationView(row);
}

/** The collection's meta, fields and the relations declared on it (`relation.collection` is this collection). */
export async function exportCollectionSchema(tx: Queryable, siteId: string, name: string): Promise<CollectionSchemaBundle> {
  const [row] = await tx.query<CollectionRow>(
    sql`SELECT name, meta, created_at, updated_at FROM collections WHERE site_id = ${siteId} AND name = ${name} AND deleted_at IS NULL`,
  );
  if (!row) throw collectionNotFound(name);
  const fields = await tx.query<{ definition: ContentField }>(sql`
    SELECT definition FROM collection_fields WHERE site_id = ${siteId} AND collection = ${name} ORDER BY position, field`);
  const relations = await tx.query<{ definition: RelationDefinition }>(sql`
    SELECT definition FROM collection_relations WHERE site_id = ${siteId} AND definition->>'collection' = ${name} ORDER BY id`);
  return {
    collection: name,
    meta: orderedMeta(row.meta),
    fields: fields.map((field) => orderedField(field.definition)),
    relations: relations.map((relation) => orderedRelation(relation.definition)),
  };
}
