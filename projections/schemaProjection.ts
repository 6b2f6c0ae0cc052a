// The content schema of each site (collections, collection_fields, collection_relations) and the
// expression indexes it asks for (item_field_indexes), kept in the append's transaction so a schema
// change is live at once. Indexes are only recorded here: the field index builder
// (src/runtime/fieldIndexBuilder.ts) builds and drops them concurrently, outside any
// transaction, so a schema change never blocks writes to `items`. Every schema event also moves the
// site's schema version and wakes schema caches on every instance (NOTIFY svc_schema, delivered at commit).
import { storedFieldsOf, type ContentField, type FieldType, type RelationDefinition } from '../domain/content/schemaModel.ts';
import type { EventType } from '../domain/shared/events.ts';
import type { Queryable } from '../infra/postgres/database.ts';
import { sql, type SqlFragment } from '../infra/postgres/sql.ts';
import { defineProjection, type EventHandler } from './projection.ts';

type IndexKind = 'text' | 'numeric' | 'boolean' | 'json';
/** A kind's index, or (`:desc`) its DESC NULLS LAST twin that serves `sort=-field` (src/query/compileSort.ts). */
type IndexVariant = IndexKind | `${IndexKind}:desc`;

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

const INDEX_KINDS: readonly IndexVariant[] = ['text', 'numeric', 'boolean', 'json', 'text:desc', 'numeric:desc'];

/** The indexes a field of `kind` wants: sorted kinds (text, numeric) one per nulls-last direction (migration 0491). */
function indexVariantsOf(kind: IndexKind): IndexVariant[] {
  return kind === 'text' || kind === 'numeric' ? [kind, `${kind}:desc`] : [kind];
}

/**
 * Held (session-wide, exclusively) by the field index builder while it runs DDL on an index and
 * records the outcome. A schema transaction that takes it shared knows the catalog's indexes stay as
 * they are until it commits (the builder waits for it, then reads the rows it wrote).
 */
export const FIELD_INDEX_DDL_LOCK = 7_340_002;

/** Transactions that hold FIELD_INDEX_DDL_LOCK shared (held until they end). */
const stableTransactions = new WeakSet<Queryable>();

/** Whether the catalog's field indexes can be trusted until this transaction ends: false while the builder runs DDL. */
async function catalogIsStable(tx: Queryable): Promise<boolean> {
  if (stableTransactions.has(tx)) return true;
  const [row] = await tx.query<{ stable: boolean }>(sql`SELECT pg_try_advisory_xact_lock_shared(${FIELD_INDEX_DDL_LOCK}) AS stable`);
  if (row?.stable) stableTransactions.add(tx);
  return row?.stable === true;
}

/** The catalog's index named by the SQL `name` (NULL when there is none). */
const indexOf = (name: SqlFragment) => sql`to_regclass('public.' || quote_ident(${name}))`;

/**
 * Records the index one field asks for: one index of the field's kind when the field is live and
 * indexed or stores relation ids, none otherwise. The field index builder does the work. A row's
 * state follows the catalog where it can be trusted (ready when a valid index of that name exists,
 * building otherwise; a row without an index is simply removed), so a rebuild of this projection
 * records the rows the incremental run left, and an index that is already there is not built again.
 * While the builder runs DDL the catalog may be about to change: rows then go to building or dropping
 * and the builder settles them.
 */
async function syncFieldIndex(tx: Queryable, siteId: string, collection: string, fieldName: string): Promise<void> {
  if (COLUMN_FIELDS.has(fieldName)) return;
  const name = sql`svc_item_field_index_name(${siteId}, ${collection}, ${fieldName}, k.kind)`;
  const sameField = sql`f.site_id = ${siteId} AND f.collection = ${collection} AND f.field = ${fieldName} AND f.kind = k.kind`;
  // `recorded`: a row of the field, or an index of it in the catalog, of any kind.
  const [row] = await tx.query<{ definition: ContentField | null; live: boolean | null; recorded: boolean }>(sql`
    SELECT f.definition, (c.deleted_at IS NULL) AS live,
           EXISTS (SELECT 1 FROM item_field_indexes x WHERE x.site_id = ${siteId} AND x.collection = ${collection} AND x.field = ${fieldName})
             OR EXISTS (SELECT 1 FROM unnest(${INDEX_KINDS}::text[]) AS k(kind) WHERE ${indexOf(name)} IS NOT NULL) AS recorded
      FROM (VALUES (1)) AS one (x)
      LEFT JOIN collection_fields f ON f.site_id = ${siteId} AND f.collection = ${collection} AND f.field = ${fieldName}
      LEFT JOIN collections c ON c.site_id = f.site_id AND c.name = f.collection`);
  const definition = row?.definition ?? null;
  let wanted = Boolean(row?.live && definition?.indexed);
  if (row?.live && !wanted) {
    const relations = await tx.query<{ definition: RelationDefinition }>(sql`SELECT definition FROM collection_relations WHERE site_id = ${siteId}`);
    wanted = relations.some(({ definition }) =>
      storedFieldsOf(definition).some((stored) => stored.collection === collection && stored.field === fieldName),
    );
  }
  const kinds = wanted && definition ? indexVariantsOf(indexKindOf(definition)) : [];
  // Nothing recorded and nothing wanted: nothing to write (a new field that asks for no index).
  if (!row?.recorded && kinds.length === 0) return;
  const stable = await catalogIsStable(tx);
  const unwanted = INDEX_KINDS.filter((other) => !kinds.includes(other));
  // Kinds no longer wanted: a row without an index goes; an index (or a row while the catalog may
  // be changing) is left to the builder to drop.
  if (row?.recorded) {
    tx.defer(sql`
      DELETE FROM item_field_indexes f USING unnest(${unwanted}::text[]) AS k(kind)
       WHERE ${sameField} AND ${stable}::boolean AND ${indexOf(name)} IS NULL`);
    tx.defer(sql`
      INSERT INTO item_field_indexes (site_id, collection, field, kind, state)
      SELECT ${siteId}, ${collection}, ${fieldName}, k.kind, 'dropping' FROM unnest(${unwanted}::text[]) AS k(kind)
       WHERE ${indexOf(name)} IS NOT NULL OR EXISTS (SELECT 1 FROM item_field_indexes f WHERE ${sameField})
      ON CONFLICT (site_id, collection, field, kind) DO UPDATE SET state = 'dropping', error = NULL`);
  }
  if (kinds.length === 0) return;
  // The wanted kinds: a row already asking for one stays as it is (its build may be under way).
  tx.defer(sql`
    INSERT INTO item_field_indexes (site_id, collection, field, kind, state)
    SELECT ${siteId}, ${collection}, ${fieldName}, k.kind,
           CASE WHEN ${stable}::boolean AND coalesce((SELECT indisvalid FROM pg_index WHERE indexrelid = ${indexOf(name)}), false)
                THEN 'ready' ELSE 'building' END
      FROM unnest(${kinds}::text[]) AS k(kind)
    ON CONFLICT (site_id, collection, field, kind) DO UPDATE SET state = excluded.state, error = NULL
     WHERE item_field_indexes.state = 'dropping'`);
}

async function upsertRelation(tx: Queryable, siteId: string, relation: RelationDefinition, at: Date): Promise<void> {
  await tx.query(sql`
    INSERT INTO collection_relations (site_id, id, definition, created_at, updated_at)
    VALUES (${siteId}, ${relation.id}, ${JSON.stringify(relation)}::jsonb, ${at}, ${at})
    ON CONFLICT (site_id, id) DO UPDATE SET definition = excluded.definition, updated_at = excluded.updated_at`);
}

/**
 * Every schema event moves the site's schema version and wakes schema caches, after its rows. Both
 * travel without a round trip of their own (the version with the next statement, the NOTIFY once
 * per site after the commit), so a transaction of many schema events (a config manifest's apply)
 * pays for its rows only.
 */
function changesSchema<Type extends EventType>(apply: EventHandler<Type>): EventHandler<Type> {
  return async (tx, event) => {
    await apply(tx, event);
    tx.defer(sql`
      INSERT INTO schema_versions (site_id, version) VALUES (${event.siteId}, ${event.position})
      ON CONFLICT (site_id) DO UPDATE SET version = GREATEST(schema_versions.version, excluded.version)`);
    tx.notifyAfterCommit('svc_schema', event.siteId);
  };
}

const upsertCollection = changesSchema<'collection.created'>(async (tx, { siteId, data, recordedAt: at }) => {
  await tx.query(sql`
    INSERT INTO collections (site_id, name, meta, created_at, updated_at, deleted_at)
    VALUES (${siteId}, ${data.collection}, ${JSON.stringify(data.meta)}::jsonb, ${at}, ${at}, NULL)
    ON CONFLICT (site_id, name) DO UPDATE SET meta = excluded.meta, updated_at = excluded.updated_at, deleted_at = NULL`);
});

const upsertField = changesSchema<'field.added' | 'field.updated'>(async (tx, event) => {
  const { siteId, data, recordedAt: at } = event;
  await tx.query(sql`
    INSERT INTO collection_fields (site_id, collection, field, definition, position, created_at, updated_at)
    VALUES (${siteId}, ${data.collection}, ${data.field.field}, ${JSON.stringify(data.field)}::jsonb, ${event.position}, ${at}, ${at})
    ON CONFLICT (site_id, collection, field) DO UPDATE SET definition = excluded.definition, updated_at = excluded.updated_at`);
  await syncFieldIndex(tx, siteId, data.collection, data.field.field);
});

const upsertRelationEvent = changesSchema<'relation.created' | 'relation.updated'>(async (tx, { siteId, data, recordedAt: at }) => {
  const [previous] = await tx.query<{ definition: RelationDefinition }>(
    sql`SELECT definition FROM collection_relations WHERE site_id = ${siteId} AND id = ${data.relationId}`,
  );
  await upsertRelation(tx, siteId, data.relation, at);
  const touched = [...(previous ? storedFieldsOf(previous.definition) : []), ...storedFieldsOf(data.relation)];
  for (const key of new Set(touched.map((stored) => `${stored.collection}\u0000${stored.field}`))) {
    const [collection = '', field = ''] = key.split('\u0000');
    await syncFieldIndex(tx, siteId, collection, field);
  }
});

export const schemaProjection = defineProjection({
  name: 'schema',
  mode: 'inline',
  tables: ['item_field_indexes', 'collection_relations', 'collection_fields', 'collections', 'schema_versions'],
  maintainers: [
    {
      table: 'item_field_indexes',
      writer: 'src/runtime/fieldIndexBuilder.ts',
      why:
        'builds and drops the indexes this projection records, outside any transaction (CREATE/DROP INDEX CONCURRENTLY), and ' +
        'records how that went: state building → ready or failed, dropping rows removed once their index is gone. The rows ' +
        'this projection writes say which index is wanted; the builder only settles their state against the catalog.',
    },
  ],
  handlers: {
    'collection.created': upsertCollection,
    'collection.updated': changesSchema(async (tx, { siteId, data, recordedAt: at }) => {
      await tx.query(sql`
        UPDATE collections SET meta = ${JSON.stringify(data.meta)}::jsonb, updated_at = ${at}
         WHERE site_id = ${siteId} AND name = ${data.collection}`);
    }),
    'collection.deleted': changesSchema(async (tx, { siteId, data, recordedAt: at }) => {
      await tx.query(sql`UPDATE collections SET deleted_at = ${at}, updated_at = ${at} WHERE site_id = ${siteId} AND name = ${data.collection}`);
      const fields = await tx.query<{ field: string }>(sql`
        SELECT field FROM collection_fields WHERE site_id = ${siteId} AND collection = ${data.collection} ORDER BY field`);
      for (const { field } of fields) await syncFieldIndex(tx, siteId, data.collection, field);
    }),
    'field.added': upsertField,
    'field.updated': upsertField,
    'field.removed': changesSchema(async (tx, { siteId, data }) => {
      await tx.query(sql`DELETE FROM collection_fields WHERE site_id = ${siteId} AND collection = ${data.collection} AND field = ${data.field}`);
      await syncFieldIndex(tx, siteId, data.collection, data.field);
    }),
    'relation.created': upsertRelationEvent,
    'relation.updated': upsertRelationEvent,
    'relation.deleted': changesSchema(async (tx, { siteId, data }) => {
      await tx.query(sql`DELETE FROM collection_relations WHERE site_id = ${siteId} AND id = ${data.relationId}`);
      for (const stored of storedFieldsOf(data.relation)) await syncFieldIndex(tx, siteId, stored.collection, stored.field);
    }),
  },
});
