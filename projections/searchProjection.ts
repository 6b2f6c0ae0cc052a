// The search index: one document per live item with the text of its string fields, title-like
// fields weighted above the rest, folded for accents by PostgreSQL (svc_fold_accents). Async: the
// projection daemon keeps it up to date. Schema events tell it field types (hashes, ids, dates and
// numbers are not indexed). Soft-deleted items leave the index; soft-deleted collections and items
// are also filtered at query time against the live read models (src/modules/search/queries.ts).
import type { ItemEventType } from '../domain/content/events.ts';
import { conversionMaxLength } from '../domain/content/fieldTypeChange.ts';
import type { ContentField } from '../domain/content/schemaModel.ts';
import { ITEM_EVENT_TYPES, STRUCTURAL_KEYS } from '../domain/content/versions/itemSnapshot.ts';
import { sealedIdOf } from '../domain/privacy/sealedReference.ts';
import type { StoredEvent } from '../domain/shared/events.ts';
import type { Queryable } from '../infra/postgres/database.ts';
import { prepared, sql } from '../infra/postgres/sql.ts';
import { defineProjection, sameHandler } from './projection.ts';

type ItemStoredEvent = StoredEvent<ItemEventType>;
type FieldStoredEvent = StoredEvent<'field.added' | 'field.updated' | 'field.removed'>;

/** Field types whose values are text a reader would search for; unknown fields count as text. */
const NOT_SEARCHABLE_TYPES: ReadonlySet<string> = new Set([
  'boolean', 'integer', 'float', 'decimal', 'bigInteger', 'dateTime', 'date', 'time', 'timestamp',
  'uuid', 'hash', 'color', 'geometry', 'files',
]);

/** Fields whose name says they title the item weigh more (weight A) than other text (weight B). */
const TITLE_LIKE = /(title|name|headline|heading|subject|label)$/i;

const MAX_FIELD_TEXT = 20_000;
const MAX_DEPTH = 6;

export interface IndexedText {
  text: string;
  weight: 'A' | 'B';
}

export type IndexedTexts = Record<string, IndexedText>;

function collectStrings(value: unknown, depth: number, into: string[]): void {
  if (typeof value === 'string') {
    if (value.trim() !== '') into.push(value);
  } else if (Array.isArray(value) && depth < MAX_DEPTH) {
    for (const element of value) collectStrings(element, depth + 1, into);
  } else if (value !== null && typeof value === 'object' && depth < MAX_DEPTH) {
    for (const key of Object.keys(value).sort()) collectStrings((value as Record<string, unknown>)[key], depth + 1, into);
  }
}

/** The searchable text of each content field of a snapshot, given the collection's field types. */
export function indexedTextsOf(snapshot: Record<string, unknown>, fieldTypes: ReadonlyMap<string, string>): IndexedTexts {
  const texts: IndexedTexts = {};
  for (const field of Object.keys(snapshot).sort()) {
    if (STRUCTURAL_KEYS.has(field)) continue;
    const type = fieldTypes.get(field);
    // No type: not a field of the collection at this point of the log, a value a removed field left
    // in the item (it may be a hash or a pii value that nothing logs any more).
    if (type === undefined || NOT_SEARCHABLE_TYPES.has(type)) continue;
    // pii/phi values are sealed away (docs/privacy.md): never indexed, so never searchable.
    if (sealedIdOf(snapshot[field]) !== null) continue;
    const strings: string[] = [];
    collectStrings(snapshot[field], 0, strings);
    if (strings.length === 0) continue;
    texts[field] = { text: strings.join('\n').slice(0, MAX_FIELD_TEXT), weight: TITLE_LIKE.test(field) ? 'A' : 'B' };
  }
  return texts;
}

function joinedText(texts: IndexedTexts, weight: 'A' | 'B'): string {
  return Object.keys(texts)
    .sort()
    .filter((field) => texts[field]!.weight === weight)
    .map((field) => texts[field]!.text)
    .join('\n');
}

/**
 * A collection's indexed fields, read once per transaction (a step applies hundreds of item events of
 * few collections); this projection's own field events drop the transaction's copy.
 */
const fieldTypesByTransaction = new WeakMap<Queryable, Map<string, Map<string, string>>>();

async function fieldTypesOf(tx: Queryable, siteId: string, collection: string): Promise<Map<string, string>> {
  let known = fieldTypesByTransaction.get(tx);
  if (!known) fieldTypesByTransaction.set(tx, (known = new Map()));
  const key = `${siteId}\u0000${collection}`;
  const cached = known.get(key);
  if (cached) return cached;
  const rows = await tx.query<{ field: string; type: string }>(
    sql`SELECT field, type FROM search_fields WHERE site_id = ${siteId} AND collection = ${collection}`,
  );
  const types = new Map(rows.map((row) => [row.field, row.type]));
  known.set(key, types);
  return types;
}

interface SearchDocument {
  collection: string;
  id: string;
  texts: IndexedTexts;
}

/**
 * Writes documents of one site (at most one per item) in one statement. PostgreSQL turns the joined
 * title-like text (weight A) and the rest (weight B), sent as parameters, into the stored tsvector
 * with the expression of the generated column it replaces (migrations 0151, 0306), so documents
 * stored before and after rank alike; the joined text itself is not stored (`texts` holds it per
 * field). A document whose texts did not change (an edit of a number, a status, a field that is not
 * indexed) is left as it is: no tsvector is computed and no row version is written, which also
 * spares the GIN index its entries. The row is a function of the texts alone, so skipping it keeps
 * a rebuild's rows the same.
 */
function writeDocuments(tx: Queryable, siteId: string, documents: readonly SearchDocument[]): void {
  if (documents.length === 0) return;
  const rows = documents.map((document) => ({
    collection: document.collection,
    id: document.id,
    title: joinedText(document.texts, 'A'),
    body: joinedText(document.texts, 'B'),
    texts: document.texts,
  }));
  tx.defer(prepared(sql`
    INSERT INTO search_documents (site_id, collection, id, document, texts)
    SELECT ${siteId}, r.collection, r.id,
           setweight(to_tsvector('simple'::regconfig, svc_fold_accents(r.title)), 'A') ||
           setweight(to_tsvector('simple'::regconfig, svc_fold_accents(r.body)), 'B'),
           r.texts
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(collection text, id text, title text, body text, texts jsonb)
     -- A scalar subquery, not NOT EXISTS: it stays one primary-key probe per row, where an anti join
     -- may be planned as a hash of every document of the site.
     WHERE r.texts IS DISTINCT FROM (
       SELECT d.texts FROM search_documents d WHERE d.site_id = ${siteId} AND d.collection = r.collection AND d.id = r.id)
    ON CONFLICT (site_id, collection, id) DO UPDATE SET document = excluded.document, texts = excluded.texts`));
}

/** Removes documents of one site in one statement. */
function removeDocuments(tx: Queryable, siteId: string, keys: readonly { collection: string; id: string }[]): void {
  if (keys.length === 0) return;
  tx.defer(prepared(sql`
    DELETE FROM search_documents d
     USING jsonb_to_recordset(${JSON.stringify(keys)}::jsonb) AS r(collection text, id text)
     WHERE d.site_id = ${siteId} AND d.collection = r.collection AND d.id = r.id`));
}

/**
 * Indexes item events of one site. A document is a function of the item's last event alone (a live
 * snapshot replaces it, a deletion removes it), so only each item's last event is written, all
 * upserts in one statement and all removals in another.
 */
async function indexItemEvents(tx: Queryable, events: readonly ItemStoredEvent[]): Promise<void> {
  const last = new Map<string, ItemStoredEvent>();
  for (const event of events) {
    const key = `${event.data.collection}\u0000${event.data.itemId}`;
    last.delete(key);
    last.set(key, event);
  }
  const siteId = events[0]!.siteId;
  const documents: SearchDocument[] = [];
  const removed: { collection: string; id: string }[] = [];
  for (const event of last.values()) {
    const data = event.data;
    const live = event.type !== 'item.deleted' && event.type !== 'item.hard_deleted' && !data.snapshot.deletedAt;
    if (!live) {
      removed.push({ collection: data.collection, id: data.itemId });
      continue;
    }
    const texts = indexedTextsOf(data.snapshot, await fieldTypesOf(tx, siteId, data.collection));
    documents.push({ collection: data.collection, id: data.itemId, texts });
  }
  writeDocuments(tx, siteId, documents);
  removeDocuments(tx, siteId, removed);
}

async function applySchemaEvent(tx: Queryable, event: FieldStoredEvent): Promise<void> {
  const siteId = event.siteId;
  fieldTypesByTransaction.delete(tx);
  if (event.type === 'field.removed') {
    const { collection, field } = event.data;
    tx.defer(sql`DELETE FROM search_fields WHERE site_id = ${siteId} AND collection = ${collection} AND field = ${field}`);
    const documents = await tx.query<{ id: string; texts: IndexedTexts }>(sql`
      SELECT id, texts FROM search_documents
       WHERE site_id = ${siteId} AND collection = ${collection} AND texts ? ${field}`);
    writeDocuments(
      tx,
      siteId,
      documents.map((document) => {
        const { [field]: _removed, ...texts } = document.texts;
        return { collection, id: document.id, texts };
      }),
    );
    return;
  }
  const { collection, field } = event.data;
  tx.defer(sql`
    INSERT INTO search_fields (site_id, collection, field, type) VALUES (${siteId}, ${collection}, ${field.field}, ${field.type})
    ON CONFLICT (site_id, collection, field) DO UPDATE SET type = excluded.type`);
  if (event.type === 'field.updated' && event.data.typeChange) await convertIndexedTexts(tx, siteId, collection, field, event.data.typeChange.from);
}

/** Types whose indexed text is the stored value itself: a type change can convert the text as the items projection converts the value. */
const PLAIN_TEXT_TYPES: ReadonlySet<string> = new Set(['string', 'text', 'code', 'slug', 'csv']);

/**
 * A field's type changed. Its texts leave the documents when the new type is not searchable, or when
 * its value does not convert; a plain text converts as the value does (svc_convert_field_value). A
 * field that becomes searchable (a number turned text) enters each document with the item's next write:
 * this read model keeps no values of fields it does not index.
 */
async function convertIndexedTexts(tx: Queryable, siteId: string, collection: string, field: ContentField, from: string): Promise<void> {
  const name = field.field;
  if (!NOT_SEARCHABLE_TYPES.has(field.type) && !PLAIN_TEXT_TYPES.has(from)) return;
  const documents = await tx.query<{ id: string; texts: IndexedTexts }>(sql`
    SELECT id, texts FROM search_documents WHERE site_id = ${siteId} AND collection = ${collection} AND texts ? ${name}`);
  if (documents.length === 0) return;
  const convertible = !NOT_SEARCHABLE_TYPES.has(field.type);
  const converted = convertible
    ? await tx.query<{ id: string; text: string | null }>(sql`
        SELECT d.id, svc_convert_field_value(to_jsonb(d.text), ${field.type}, ${conversionMaxLength(field)}::integer) #>> '{}' AS text
          FROM jsonb_to_recordset(${JSON.stringify(documents.map((document) => ({ id: document.id, text: document.texts[name]!.text })))}::jsonb)
            AS d(id text, text text)`)
    : [];
  const textOf = new Map(converted.map((row) => [row.id, row.text]));
  writeDocuments(
    tx,
    siteId,
    documents.map((document) => {
      const { [name]: before, ...texts } = document.texts;
      const text = textOf.get(document.id) ?? null;
      return { collection, id: document.id, texts: text === null || text.trim() === '' ? texts : { ...texts, [name]: { ...before!, text } } };
    }),
  );
}

const SCHEMA_EVENT_TYPES = ['field.added', 'field.updated', 'field.removed'] as const;

/** Events of one site in log order: runs of item events are indexed together, schema events one by one. */
async function applyEvents(tx: Queryable, events: readonly (ItemStoredEvent | FieldStoredEvent)[]): Promise<void> {
  let items: ItemStoredEvent[] = [];
  for (const event of events) {
    if (!isFieldEvent(event)) {
      items.push(event);
      continue;
    }
    if (items.length > 0) await indexItemEvents(tx, items);
    items = [];
    await applySchemaEvent(tx, event);
  }
  if (items.length > 0) await indexItemEvents(tx, items);
}

function isFieldEvent(event: ItemStoredEvent | FieldStoredEvent): event is FieldStoredEvent {
  return event.type === 'field.added' || event.type === 'field.updated' || event.type === 'field.removed';
}

export const searchProjection = defineProjection({
  name: 'search',
  mode: 'async',
  // Tokenizing and the GIN index make it the costliest async read model by far: about four times
  // the change feed per batch of created items, which costs about twice the audit log.
  cost: 4,
  tables: ['search_documents', 'search_fields'],
  handlers: {
    ...sameHandler(ITEM_EVENT_TYPES, (tx, event) => indexItemEvents(tx, [event])),
    ...sameHandler(SCHEMA_EVENT_TYPES, applySchemaEvent),
  },
  applyBatch: applyEvents,
});
