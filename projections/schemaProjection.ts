// The content schema of each site (collections, collection_fields, collection_relations) and the
// expression indexes it asks for, kept in the append's transaction so a schema change is live at
// once. Every schema event also moves the site's schema version and wakes schema caches on every
// instance (NOTIFY svc_schema, delivered at commit).
import { COLLECTION_EVENT_TYPES, FIELD_EVENT_TYPES } from '../domain/content/collectionDecider.ts';
import { RELATION_EVENT_TYPES } from '../domain/content/relationDecider.ts';
import { storedFieldsOf, type CollectionMeta, type ContentField, type FieldType, type RelationDefinition } from '../domain/content/schemaModel.ts';
import type { Queryable } from '../infra/postgres/database.ts';
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

type IndexKind = 'text' | 'numeric' | 'boolean' | 'json';

const NUMERIC: ReadonlySet<FieldType> = new Set(['integer', 'float', 'decimal', 'bigInteger']);
const JSON_TYPES: ReadonlySet<FieldType> = new Set(['json', 'geometry', 'files']);

/** The kind the query compiler reads a field as (src/query/fieldExpressions.ts valueKindOf); translatable fields are JSON maps. */
export function indexKindOf(field: ContentField): IndexKind {
  if (field.options.translatable === true || JSON_TYPES.has(field.type)) return 'json';
  if (NUMERIC.has(field.type)) return 'numeric';
  if (field.type === 'boolean') return 'boolean';
  return 'text';
}

/** Content fields whose name is a column are never stored in `data`: they need no index of their own. */
const COLUMN_FIELDS: ReadonlySet<string> = new Set(['status', 'sort']);

/**
 * Brings the index of one field to what the schema asks: one index of the field's kind when the field
 * is live and indexed or stores relation ids, none otherwise.
 */
async function syncFieldIndex(tx: Queryable, siteId: string, collection: string, fieldName: string): Promise<void> {
  if (COLUMN_FIELDS.has(fieldName)) return;
  const [row] = await tx.query<{ definition: ContentField; live: boolean }>(sql`
    SELECT f.definition, (c.deleted_at IS NULL) AS live
      FROM collection_fields f JOIN collections c ON c.site_id = f.site_id AND c.name = f.collection
     WHERE f.site_id = ${siteId} AND f.collection = ${collection} AND f.field = ${fieldName}`);
  let wanted = Boolean(row?.live && row.definition.indexed);
  if (row?.live && !wanted) {
    const relations = await tx.query<{ definition: RelationDefinition }>(sql`SELECT definition FROM collection_relations WHERE site_id = ${siteId}`);
    wanted = relations.some(({ definition }) =>
      storedFieldsOf(definition).some((stored) => stored.collection === collection && stored.field === fieldName),
    );
  }
  const kind = wanted && row ? indexKindOf(row.definition) : null;
  // Unchanged indexes stay as they are (IF NOT EXISTS): only a new kind or a dropped flag builds or drops.
  await tx.query(sql`SELECT svc_drop_item_field_index(${siteId}, ${collection}, ${fieldName}, ${kind}::text)`);
  if (kind) await tx.query(sql`SELECT svc_ensure_item_field_index(${siteId}, ${collection}, ${fieldName}, ${kind})`);
}

async function upsertRelation(tx: Queryable, siteId: string, relation: RelationDefinition, at: Date): Promise<void> {
  await tx.query(sql`
    INSERT INTO collection_relations (site_id, id, definition, created_at, updated_at)
    VALUES (${siteId}, ${relation.id}, ${JSON.stringify(relation)}::jsonb, ${at}, ${at})
    ON CONFLICT (site_id, id) DO UPDATE SET definition = excluded.definition, updated_at = excluded.updated_at`);
}

export const schemaProjection = defineProjection({
  name: 'schema',
  mode: 'inline',
  eventTypes: [...COLLECTION_EVENT_TYPES, ...FIELD_EVENT_TYPES, ...RELATION_EVENT_TYPES],
  tables: ['collection_relations', 'collection_fields', 'collections', 'schema_versions'],
  async apply(tx, event) {
    const { siteId } = event;
    const at = event.recordedAt;
    switch (event.type) {
      case 'collection.created': {
        const data = event.data as { collection: string; meta: CollectionMeta };
        await tx.query(sql`
          INSERT INTO collections (site_id, name, meta, created_at, updated_at, deleted_at)
          VALUES (${siteId}, ${data.collection}, ${JSON.stringify(data.meta)}::jsonb, ${at}, ${at}, NULL)
          ON CONFLICT (site_id, name) DO UPDATE SET meta = excluded.meta, updated_at = excluded.updated_at, deleted_at = NULL`);
        break;
      }
      case 'collection.updated': {
        const data = event.data as { collection: string; meta: CollectionMeta };
        await tx.query(sql`
          UPDATE collections SET meta = ${JSON.stringify(data.meta)}::jsonb, updated_at = ${at}
           WHERE site_id = ${siteId} AND name = ${data.collection}`);
        break;
      }
      case 'collection.deleted': {
        const data = event.data as { collection: string };
        await tx.query(sql`UPDATE collections SET deleted_at = ${at}, updated_at = ${at} WHERE site_id = ${siteId} AND name = ${data.collection}`);
        const fields = await tx.query<{ field: string }>(sql`
          SELECT field FROM collection_fields WHERE site_id = ${siteId} AND collection = ${data.collection} ORDER BY field`);
        for (const { field } of fields) await syncFieldIndex(tx, siteId, data.collection, field);
        break;
      }
      case 'field.added':
      case 'field.updated': {
        const data = event.data as { collection: string; field: ContentField };
        await tx.query(sql`
          INSERT INTO collection_fields (site_id, collection, field, definition, position, created_at, updated_at)
          VALUES (${siteId}, ${data.collection}, ${data.field.field}, ${JSON.stringify(data.field)}::jsonb, ${event.position}, ${at}, ${at})
          ON CONFLICT (site_id, collection, field) DO UPDATE SET definition = excluded.definition, updated_at = excluded.updated_at`);
        await syncFieldIndex(tx, siteId, data.collection, data.field.field);
        break;
      }
      case 'field.removed': {
        const data = event.data as { collection: string; field: string };
        await tx.query(sql`DELETE FROM collection_fields WHERE site_id = ${siteId} AND collection = ${data.collection} AND field = ${data.field}`);
        await syncFieldIndex(tx, siteId, data.collection, data.field);
        break;
      }
      case 'relation.created':
      case 'relation.updated': {
        const data = event.data as { relationId: string; relation: RelationDefinition };
        const [previous] = await tx.query<{ definition: RelationDefinition }>(
          sql`SELECT definition FROM collection_relations WHERE site_id = ${siteId} AND id = ${data.relationId}`,
        );
        await upsertRelation(tx, siteId, data.relation, at);
        const touched = [...(previous ? storedFieldsOf(previous.definition) : []), ...storedFieldsOf(data.relation)];
        for (const key of new Set(touched.map((stored) => `${stored.collection}\u0000${stored.field}`))) {
          const [collection = '', field = ''] = key.split('\u0000');
          await syncFieldIndex(tx, siteId, collection, field);
        }
        break;
      }
      case 'relation.deleted': {
        const data = event.data as { relationId: string; relation: RelationDefinition };
        await tx.query(sql`DELETE FROM collection_relations WHERE site_id = ${siteId} AND id = ${data.relationId}`);
        for (const stored of storedFieldsOf(data.relation)) await syncFieldIndex(tx, siteId, stored.collection, stored.field);
        break;
      }
      default:
        return;
    }
    await tx.query(sql`
      INSERT INTO schema_versions (site_id, version) VALUES (${siteId}, ${event.position})
      ON CONFLICT (site_id) DO UPDATE SET version = GREATEST(schema_versions.version, excluded.version)`);
    await tx.query(sql`SELECT pg_notify('svc_schema', ${siteId})`);
  },
});
