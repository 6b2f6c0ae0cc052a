// How a stored item reads through the API: structural columns and content fields side by side
// (the column wins a name clash), only the selected fields, hash fields masked, translatable
// fields in the requested language (falling back to the site's default).
import { HASH_MASK } from '../../../domain/content/fieldValues.ts';
import type { ItemSnapshot } from '../../../domain/content/itemDecider.ts';
import type { CollectionSchema } from '../../schema/siteSchema.ts';

/** An `items` row (or a row of a table with the same columns) as the read queries select it. */
export interface ItemRow {
  id: string;
  status: string | null;
  sort: number | null;
  created_at: string | null;
  updated_at: string | null;
  user_created: string | null;
  user_updated: string | null;
  version: number;
  data: Record<string, unknown>;
}

export interface ReadOptions {
  /** X-Svc-Locale: translatable fields show this language's value. */
  locale: string | null;
  defaultLanguage: string;
  /** Fields the reader may see (permissions); null: every field. */
  visibleFields: ReadonlySet<string> | null;
}

const STRUCTURAL_FROM_ROW: Record<string, (row: ItemRow) => unknown> = {
  id: (row) => row.id,
  status: (row) => row.status,
  sort: (row) => row.sort,
  createdAt: (row) => row.created_at,
  updatedAt: (row) => row.updated_at,
  userCreated: (row) => row.user_created,
  userUpdated: (row) => row.user_updated,
};

export function isStructural(name: string): boolean {
  return name in STRUCTURAL_FROM_ROW;
}

/** The value a reader sees for a stored content value. */
export function readValue(collection: CollectionSchema, name: string, stored: unknown, options: ReadOptions): unknown {
  if (stored === undefined || stored === null) return null;
  if (collection.hashFields.has(name)) return HASH_MASK;
  if (options.locale !== null && collection.translatableFields.has(name) && typeof stored === 'object' && !Array.isArray(stored)) {
    const languages = stored as Record<string, unknown>;
    return languages[options.locale] ?? languages[options.defaultLanguage] ?? null;
  }
  return stored;
}

/** The selected fields of a row, in selection order. Relations are filled in later by the loader. */
export function shapeRow(row: ItemRow, fields: readonly string[], collection: CollectionSchema, options: ReadOptions): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const name of fields) {
    if (options.visibleFields && name !== 'id' && !options.visibleFields.has(name)) continue;
    const structural = STRUCTURAL_FROM_ROW[name];
    item[name] = structural ? structural(row) : readValue(collection, name, row.data[name], options);
  }
  return item;
}

/** A snapshot (what a write returns) read like a stored row with every field selected. */
export function shapeSnapshot(snapshot: ItemSnapshot, collection: CollectionSchema, options: ReadOptions): Record<string, unknown> {
  const item: Record<string, unknown> = {
    id: snapshot.id,
    status: snapshot.status,
    sort: snapshot.sort,
    createdAt: snapshot.createdAt,
    updatedAt: snapshot.updatedAt,
    userCreated: snapshot.userCreated,
    userUpdated: snapshot.userUpdated,
  };
  for (const name of collection.fields.keys()) {
    if (isStructural(name)) continue;
    if (options.visibleFields && !options.visibleFields.has(name)) continue;
    item[name] = readValue(collection, name, snapshot[name], options);
  }
  if (options.visibleFields) {
    for (const name of Object.keys(STRUCTURAL_FROM_ROW)) if (name !== 'id' && !options.visibleFields.has(name)) delete item[name];
  }
  return item;
}
