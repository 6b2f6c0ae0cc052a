// The item read model: one row per item with its structural columns and its content fields in
// `data`, and the item's draft (X-Svc-Draft writes) beside it. Inline, so a write reads back at once.
// Bulk creates arrive together (applyBatch) and are written with one statement.
import { ITEM_EVENT_TYPES, type ItemBody, type ItemEventData, type ItemSnapshot } from '../domain/content/itemDecider.ts';
import { STRUCTURAL_KEY_SET } from '../domain/content/schemaModel.ts';
import type { StoredEvent } from '../domain/shared/events.ts';
import type { Queryable } from '../infra/postgres/database.ts';
import { prepared, sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

/** The columns of an `items` row, from an event. */
export interface ItemRowValues {
  site_id: string;
  collection: string;
  id: string;
  status: string | null;
  sort: number | null;
  created_at: string | null;
  updated_at: string | null;
  user_created: string | null;
  user_updated: string | null;
  deleted_at: string | null;
  version: number;
  data: Record<string, unknown>;
}

/** The content fields of a body or snapshot: everything but the structural keys. */
export function contentOf(body: Record<string, unknown>): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (!STRUCTURAL_KEY_SET.has(key)) content[key] = value;
  return content;
}

function rowOf(event: StoredEvent): ItemRowValues {
  const { collection, itemId, snapshot } = event.data as unknown as ItemEventData;
  const s: ItemSnapshot = snapshot;
  return {
    site_id: event.siteId,
    collection,
    id: itemId,
    status: s.status ?? null,
    sort: s.sort ?? null,
    created_at: s.createdAt ?? null,
    updated_at: s.updatedAt ?? null,
    user_created: s.userCreated ?? null,
    user_updated: s.userUpdated ?? null,
    deleted_at: s.deletedAt ?? null,
    version: event.streamPosition,
    data: contentOf(s),
  };
}

async function upsertRows(tx: Queryable, rows: ItemRowValues[]): Promise<void> {
  tx.defer(prepared(sql`
    INSERT INTO items (site_id, collection, id, status, sort, created_at, updated_at, user_created, user_updated, deleted_at, version, data)
    SELECT r.site_id, r.collection, r.id, r.status, r.sort, r.created_at, r.updated_at, r.user_created, r.user_updated, r.deleted_at, r.version, r.data
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(
        site_id text, collection text, id text, status text, sort integer, created_at timestamptz, updated_at timestamptz,
        user_created text, user_updated text, deleted_at timestamptz, version integer, data jsonb)
    ON CONFLICT (site_id, collection, id) DO UPDATE SET
      status = excluded.status, sort = excluded.sort, created_at = excluded.created_at, updated_at = excluded.updated_at,
      user_created = excluded.user_created, user_updated = excluded.user_updated, deleted_at = excluded.deleted_at,
      version = excluded.version, data = excluded.data`));
}

async function upsertDraft(tx: Queryable, event: StoredEvent, draft: ItemBody): Promise<void> {
  const { collection, itemId, snapshot } = event.data as unknown as ItemEventData;
  tx.defer(sql`
    INSERT INTO item_drafts (site_id, collection, id, data, status, sort, updated_at, user_updated)
    VALUES (${event.siteId}, ${collection}, ${itemId}, ${JSON.stringify(contentOf(draft))}::jsonb, ${(draft.status as string | null) ?? null},
            ${(draft.sort as number | null) ?? null}, ${event.recordedAt}, ${event.metadata.actor?.id ?? snapshot.userUpdated ?? null})
    ON CONFLICT (site_id, collection, id) DO UPDATE SET
      data = excluded.data, status = excluded.status, sort = excluded.sort, updated_at = excluded.updated_at, user_updated = excluded.user_updated`);
}

/** Item events written by the item commands carry these; anything else appended under an item type is skipped. */
function isItemEvent(event: StoredEvent): boolean {
  const data = event.data as Partial<ItemEventData> | undefined;
  return typeof data?.collection === 'string' && typeof data.itemId === 'string' && typeof data.snapshot === 'object' && data.snapshot !== null;
}

async function applyOne(tx: Queryable, event: StoredEvent): Promise<void> {
  if (!isItemEvent(event)) return;
  const data = event.data as unknown as ItemEventData;
  if (event.type === 'item.hard_deleted') {
    tx.defer(sql`DELETE FROM items WHERE site_id = ${event.siteId} AND collection = ${data.collection} AND id = ${data.itemId}`);
    tx.defer(sql`DELETE FROM item_drafts WHERE site_id = ${event.siteId} AND collection = ${data.collection} AND id = ${data.itemId}`);
    return;
  }
  await upsertRows(tx, [rowOf(event)]);
  // A draft is written when a draft write changed it (cause.draft); other events only carry it along.
  if (data.draft && data.cause?.draft === true) await upsertDraft(tx, event, data.draft);
}

export const itemsProjection = defineProjection({
  name: 'items',
  mode: 'inline',
  eventTypes: ITEM_EVENT_TYPES,
  tables: ['item_drafts', 'items'],
  apply: applyOne,
  async applyBatch(tx, events) {
    const simple = events.every((event) => event.type === 'item.created' && isItemEvent(event) && !(event.data as unknown as ItemEventData).draft);
    const ids = new Set(events.map((event) => `${(event.data as unknown as ItemEventData).collection}/${(event.data as unknown as ItemEventData).itemId}`));
    if (!simple || ids.size !== events.length) {
      for (const event of events) await applyOne(tx, event);
      return;
    }
    await upsertRows(tx, events.map(rowOf));
  },
});
