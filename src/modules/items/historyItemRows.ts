// How history records read through the API: like the content module's items (hash fields masked,
// structural keys beside content fields), using its shaping functions.
import { STRUCTURAL_KEY_SET } from '../../../domain/content/schemaModel.ts';
import type { SensitiveRead } from '../../../domain/content/sensitiveReads.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { Access } from '../../access/access.ts';
import { itemReadPermissions } from '../../access/itemAccess.ts';
import type { AppContext } from '../../runtime/context.ts';
import { MASKED } from '../../../domain/privacy/sealedReference.ts';
import { createRevealer, mayDecryptFor, type RevealApp, type Revealer, type RevealRecord } from '../encryption/reveal.ts';
import type { CollectionSchema } from '../../schema/siteSchema.ts';
import { readValue, shapeRow, type ItemRow, type ReadOptions } from './itemRecords.ts';
import { logSensitiveReads } from './sensitiveReads.ts';

/** A stored `items` / `item_history` row as selected with `SELECT *` (timestamps as Date). */
export interface StoredItemRow {
  site_id: string;
  collection: string;
  id: string;
  status: string | null;
  sort: number | null;
  created_at: Date | null;
  updated_at: Date | null;
  user_created: string | null;
  user_updated: string | null;
  deleted_at: Date | null;
  version: number;
  data: Record<string, unknown>;
}

const STRUCTURAL_FIELDS = ['id', 'status', 'sort', 'createdAt', 'updatedAt', 'userCreated', 'userUpdated'];

export function readOptionsFor(defaultLanguage: string): ReadOptions {
  return { locale: null, defaultLanguage, visibleFields: null };
}

/** Every field of an item row, read as GET /items/:collection/:id shows it. */
export function presentItemRow(collection: CollectionSchema, row: StoredItemRow, options: ReadOptions): Record<string, unknown> {
  const itemRow: ItemRow = {
    id: row.id,
    status: row.status,
    sort: row.sort,
    created_at: row.created_at?.toISOString() ?? null,
    updated_at: row.updated_at?.toISOString() ?? null,
    user_created: row.user_created,
    user_updated: row.user_updated,
    version: row.version,
    data: row.data,
  };
  const contentFields = [...collection.fields.keys()].filter((name) => !STRUCTURAL_FIELDS.includes(name) && !collection.aliasFields.has(name));
  return shapeRow(itemRow, [...STRUCTURAL_FIELDS, ...contentFields], collection, options);
}

/**
 * A stored record of an item (a snapshot, a delta, a draft, a version's data) with hash fields
 * masked; keys are kept as stored, so fields since removed from the collection still show.
 */
export function maskStored(collection: CollectionSchema | undefined, record: Record<string, unknown> | null, options: ReadOptions): Record<string, unknown> | null {
  if (record === null || !collection) return record;
  const masked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    // A removed field's past values are left out: it may have been a hash or a pii field, which
    // nothing would mask or log any more (the log keeps them for audit).
    if (!STRUCTURAL_KEY_SET.has(key) && !collection.fields.has(key)) continue;
    masked[key] = collection.hashFields.has(key) && value !== null && value !== undefined ? readValue(collection, key, value, { ...options, locale: null }) : value;
  }
  return masked;
}

/** A pii/phi value the reader saw: present, not null, not masked (a masked field reveals nothing). */
export function isShownValue(value: unknown): boolean {
  return value !== undefined && value !== null && value !== MASKED;
}

/**
 * The pii/phi fields of `collection` that `records` (what a response returns of one item) show with
 * a value: logged like any item read (item.sensitive_read), or null when there are none.
 */
export function sensitiveReadOf(
  collection: CollectionSchema | undefined,
  itemId: string,
  records: readonly (Record<string, unknown> | null | undefined)[],
): SensitiveRead | null {
  if (!collection || collection.sensitiveFields.size === 0) return null;
  const fields: SensitiveRead['fields'] = [];
  for (const [field, sensitivity] of collection.sensitiveFields) {
    if (records.some((record) => isShownValue(record?.[field]))) fields.push({ field, sensitivity });
  }
  return fields.length > 0 ? { collection: collection.name, itemId, fields } : null;
}

/** The request a history read reveals values for: its reader decrypts where `read_decrypted` allows. */
export interface RevealingRequest {
  siteId: string;
  metadata: EventMetadata;
  access(): Promise<Access>;
}

/**
 * Stored records of items of `collection` (snapshots, deltas, drafts, versions' data, item rows'
 * data) with their sealed pii/phi values opened, or masked for this reader (src/modules/encryption).
 */
export async function revealForRequest(
  context: RevealApp,
  request: RevealingRequest,
  collection: CollectionSchema | undefined,
  records: readonly RevealRecord[],
): Promise<(Record<string, unknown> | null | undefined)[]> {
  if (!collection || collection.sensitiveFields.size === 0) return records.map((record) => record.content);
  const revealer = await revealerFor(context, request);
  return context.database.withSiteReads(request.siteId, (tx) => revealer.reveal(tx, collection, records));
}

/** The revealer of a request's reader: values where `read_decrypted` allows, masks elsewhere. */
export async function revealerFor(context: RevealApp, request: RevealingRequest): Promise<Revealer> {
  return createRevealer(context, request.siteId, mayDecryptFor(itemReadPermissions(await request.access())), request.metadata);
}

/** Logs the sensitive reads of one response (none: nothing is written). */
export async function logHistoryReads(
  context: Pick<AppContext, 'database' | 'projections'>,
  request: { siteId: string; metadata: EventMetadata },
  reads: readonly (SensitiveRead | null)[],
): Promise<void> {
  const present = reads.filter((read): read is SensitiveRead => read !== null);
  if (present.length === 0) return;
  await logSensitiveReads(context, request.siteId, present, request.metadata);
}
