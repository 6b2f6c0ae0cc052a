// A site's content schema as the item code uses it: per collection its declared fields, to-many
// aliases, the field map the query language compiles against (with relations), the references a
// delete must check, and which fields are sensitive, required, translatable or hashed.
import {
  aliasFieldsOf,
  orderedField,
  orderedMeta,
  orderedRelation,
  referencesOf,
  type CollectionMeta,
  type ContentField,
  type ItemReference,
  type RelationDefinition,
  type Sensitivity,
} from '../../domain/content/schemaModel.ts';
import { AppError } from '../../domain/shared/appError.ts';
import type { Queryable } from '../../infra/postgres/database.ts';
import { sql } from '../../infra/postgres/sql.ts';
import type { AnyItemReference, FieldDefinition as QueryField, FieldMap, FieldRelation, ResolveFields } from '../query/index.ts';

export interface CollectionSchema {
  name: string;
  meta: CollectionMeta;
  /** Declared fields in declaration order. */
  fields: ReadonlyMap<string, ContentField>;
  /** To-many alias fields (o2m, m2m, m2a sides): read as related items, never written. */
  aliasFields: ReadonlySet<string>;
  /** What src/query compiles filters, sorts and selections against (translatable fields read as JSON maps; see SiteSchema.fieldsIn). */
  queryFields: FieldMap;
  /** Relations that touch this collection. */
  relations: readonly RelationDefinition[];
  /** Where other items store ids of this collection's items: what deleting one must check. */
  references: readonly ItemReference[];
  sensitiveFields: ReadonlyMap<string, Sensitivity>;
  requiredFields: readonly string[];
  translatableFields: ReadonlySet<string>;
  hashFields: ReadonlySet<string>;
}

export interface SiteSchema {
  siteId: string;
  /** Log position of the site's last schema event (0 when none). */
  version: number;
  /** `sites.default_language`: the fallback of X-Svc-Locale reads. */
  defaultLanguage: string;
  collections: ReadonlyMap<string, CollectionSchema>;
  relations: readonly RelationDefinition[];
  resolveFields: ResolveFields;
  /**
   * The field maps a reader's filters, sorts and aggregates compile against: with a locale
   * (X-Svc-Locale) translatable fields compare as that language's value, else the default
   * language's, as reads show them; without one they are the stored `{ lang: value }` maps.
   */
  fieldsIn(locale: string | null): ResolveFields;
}

/** A live collection of the schema, or 404 NOT_FOUND. */
export function collectionOf(schema: SiteSchema, name: string): CollectionSchema {
  const collection = schema.collections.get(name);
  if (!collection) throw new AppError('NOT_FOUND', `Collection "${name}" not found`);
  return collection;
}

/** The declared fields of a collection; none for a collection that does not exist. */
export function declaredFields(schema: SiteSchema, name: string): ReadonlyMap<string, unknown> {
  return schema.collections.get(name)?.fields ?? new Map();
}

interface SchemaRows {
  collections: { name: string; meta: CollectionMeta }[];
  fields: { collection: string; definition: ContentField }[];
  relations: { definition: RelationDefinition }[];
  site: { default_language: string; version: number | null } | undefined;
}

/** Reads a site's live schema from the schema read models (inside the caller's transaction). */
export async function readSiteSchema(tx: Queryable, siteId: string): Promise<SiteSchema> {
  const rows: SchemaRows = {
    collections: await tx.query(sql`SELECT name, meta FROM collections WHERE site_id = ${siteId} AND deleted_at IS NULL ORDER BY name`),
    fields: await tx.query(sql`
      SELECT f.collection, f.definition FROM collection_fields f
        JOIN collections c ON c.site_id = f.site_id AND c.name = f.collection AND c.deleted_at IS NULL
       WHERE f.site_id = ${siteId} ORDER BY f.collection, f.position, f.field`),
    relations: await tx.query(sql`SELECT definition FROM collection_relations WHERE site_id = ${siteId} ORDER BY id`),
    site: (
      await tx.query<{ default_language: string; version: number | null }>(sql`
        SELECT s.default_language, (SELECT version FROM schema_versions v WHERE v.site_id = ${siteId}) AS version
          FROM sites s WHERE s.id = ${siteId}`)
    )[0],
  };
  return buildSiteSchema(siteId, rows);
}

function buildSiteSchema(siteId: string, rows: SchemaRows): SiteSchema {
  const declared = new Map<string, Map<string, ContentField>>(rows.collections.map((row) => [row.name, new Map()]));
  for (const { collection, definition } of rows.fields) declared.get(collection)?.set(definition.field, orderedField(definition));
  const live = (name: string | null) => name === null || declared.has(name);
  const relations = rows.relations
    .map((row) => orderedRelation(row.definition))
    .filter((relation) => [relation.collection, relation.relatedCollection, relation.junctionCollection, ...(relation.allowedCollections ?? [])].every(live));

  const queryFields = new Map<string, Map<string, QueryField>>();
  for (const [collection, fields] of declared) {
    const map = new Map<string, QueryField>();
    for (const field of fields.values()) {
      map.set(field.field, { field: field.field, type: field.options.translatable === true ? 'json' : field.type, ...(field.sensitivity ? { sealed: true } : {}) });
    }
    queryFields.set(collection, map);
  }
  const linkStored = (collection: string, field: string, relatedCollection: string) => {
    const map = queryFields.get(collection);
    const current = map?.get(field);
    if (map && current) map.set(field, { ...current, relation: { kind: 'm2o', relatedCollection } });
  };
  const linkAnyItem = (collection: string, field: string, anyItem: AnyItemReference) => {
    const map = queryFields.get(collection);
    const current = map?.get(field);
    if (map && current) map.set(field, { ...current, anyItem });
  };
  const addAlias = (collection: string, field: string, relation: FieldRelation) => {
    queryFields.get(collection)?.set(field, { field, type: 'string', relation });
  };
  for (const relation of relations) {
    switch (relation.kind) {
      case 'm2o':
        linkStored(relation.collection, relation.field, relation.relatedCollection!);
        if (relation.relatedField) {
          addAlias(relation.relatedCollection!, relation.relatedField, { kind: 'o2m', relatedCollection: relation.collection, relatedField: relation.field });
        }
        break;
      case 'o2m':
        linkStored(relation.relatedCollection!, relation.relatedField!, relation.collection);
        addAlias(relation.collection, relation.field, { kind: 'o2m', relatedCollection: relation.relatedCollection!, relatedField: relation.relatedField! });
        break;
      case 'm2m':
        linkStored(relation.junctionCollection!, relation.junctionField!, relation.collection);
        linkStored(relation.junctionCollection!, relation.junctionRelatedField!, relation.relatedCollection!);
        addAlias(relation.collection, relation.field, { kind: 'm2m', relatedCollection: relation.junctionCollection!, relatedField: relation.junctionField! });
        if (relation.relatedField) {
          addAlias(relation.relatedCollection!, relation.relatedField, {
            kind: 'm2m',
            relatedCollection: relation.junctionCollection!,
            relatedField: relation.junctionRelatedField!,
          });
        }
        break;
      case 'm2a':
        linkStored(relation.junctionCollection!, relation.junctionField!, relation.collection);
        linkAnyItem(relation.junctionCollection!, relation.junctionItemField!, {
          collectionField: relation.junctionCollectionField!,
          allowedCollections: relation.allowedCollections ?? [],
        });
        addAlias(relation.collection, relation.field, { kind: 'm2a', relatedCollection: relation.junctionCollection!, relatedField: relation.junctionField! });
        break;
    }
  }

  const collections = new Map<string, CollectionSchema>();
  for (const row of rows.collections) {
    const fields = declared.get(row.name)!;
    const touching = relations.filter((relation) =>
      [relation.collection, relation.relatedCollection, relation.junctionCollection, ...(relation.allowedCollections ?? [])].includes(row.name),
    );
    const aliases = new Set(relations.flatMap(aliasFieldsOf).filter((alias) => alias.collection === row.name).map((alias) => alias.field));
    const list = [...fields.values()];
    collections.set(row.name, {
      name: row.name,
      meta: orderedMeta(row.meta),
      fields,
      aliasFields: aliases,
      queryFields: queryFields.get(row.name)!,
      relations: touching,
      references: relations.flatMap(referencesOf).filter((reference) => reference.targetCollection === row.name),
      sensitiveFields: new Map(list.filter((field) => field.sensitivity).map((field) => [field.field, field.sensitivity!])),
      requiredFields: list.filter((field) => field.required).map((field) => field.field),
      translatableFields: new Set(list.filter((field) => field.options.translatable === true).map((field) => field.field)),
      hashFields: new Set(list.filter((field) => field.type === 'hash').map((field) => field.field)),
    });
  }
  const defaultLanguage = rows.site?.default_language ?? 'en';
  const resolveFields: ResolveFields = (collection) => collections.get(collection)?.queryFields;
  const byLocale = new Map<string, ResolveFields>();
  return {
    siteId,
    version: rows.site?.version ?? 0,
    defaultLanguage,
    collections,
    relations,
    resolveFields,
    fieldsIn(locale) {
      if (locale === null) return resolveFields;
      let resolve = byLocale.get(locale);
      if (!resolve) {
        // Locales are checked language codes; a schema lives until the next schema change.
        if (byLocale.size >= MAX_CACHED_LOCALES) byLocale.clear();
        resolve = localizedFields(collections, locale === defaultLanguage ? [locale] : [locale, defaultLanguage]);
        byLocale.set(locale, resolve);
      }
      return resolve;
    },
  };
}

const MAX_CACHED_LOCALES = 64;

function localizedFields(collections: ReadonlyMap<string, CollectionSchema>, languages: readonly string[]): ResolveFields {
  const maps = new Map<string, FieldMap>();
  for (const [name, collection] of collections) {
    if (collection.translatableFields.size === 0) {
      maps.set(name, collection.queryFields);
      continue;
    }
    const map = new Map(collection.queryFields);
    for (const field of collection.translatableFields) {
      const declared = collection.fields.get(field);
      const current = map.get(field);
      if (declared && current) map.set(field, { ...current, type: declared.type, languages });
    }
    maps.set(name, map);
  }
  return (collection) => maps.get(collection);
}
