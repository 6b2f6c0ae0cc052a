// The item read model: one row per item with its structural columns and its content fields in
// `data`, and the item's draft (X-Svc-Draft writes) beside it. Inline, so a write reads back at once.
// Bulk creates arrive together (applyBatch) and are written with one statement.
//
// It also keeps the temporal read model behind `?asOf=`: the current version of an item is its
// `items` row, valid from `valid_from` (the time of the event that made it); every earlier version is
// an `item_history` row valid over [valid_from, valid_to). Each later event of the item moves the row
// it replaces into `item_history` in the statement that replaces it, so "the item at t" is the
// history row whose range holds t, or the live row when t is at or after its `valid_from`
// (src/modules/items/historyAsOf.ts). A hard delete moves the row and leaves none; a field's type
// change moves each row it converts, the converted row valid from the change (same version).
import type { ItemEventType } from '../domain/content/events.ts';
import { conversionMaxLength } from '../domain/content/fieldTypeChange.ts';
import type { ItemBody } from '../domain/content/itemDecider.ts';
import { STRUCTURAL_KEY_SET } from '../domain/content/schemaModel.ts';
import type { StoredEvent } from '../domain/shared/events.ts';
import type { Queryable } from '../infra/postgres/database.ts';
import { prepared, raw, sql, type SqlFragment } from '../infra/postgres/sql.ts';
import { defineProjection, sameHandler } from './projection.ts';

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
  /** When this version began: the recorded time of the event that made it. */
  valid_from: string;
}

/** The content fields of a body or snapshot: everything but the structural keys. */
export function contentOf(body: Record<string, unknown>): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (!STRUCTURAL_KEY_SET.has(key)) content[key] = value;
  return content;
}

type ItemStoredEvent = StoredEvent<ItemEventType>;

function rowOf(event: ItemStoredEvent): ItemRowValues {
  const { collection, itemId, snapshot: s } = event.data;
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
    valid_from: event.recordedAt.toISOString(),
  };
}

const ROW_COLUMNS = sql`site_id text, collection text, id text, status text, sort integer, created_at timestamptz, updated_at timestamptz,
  user_created text, user_updated text, deleted_at timestamptz, version integer, data jsonb, valid_from timestamptz`;

const HISTORY_COLUMNS = ['site_id', 'collection', 'id', 'status', 'sort', 'created_at', 'updated_at', 'user_created', 'user_updated', 'deleted_at', 'version', 'data', 'valid_from'];

/**
 * The `item_history` row of an `items` row (named `alias`) that stops being current at `closedAt`:
 * never closed before it began, even if two appends' clocks disagree.
 */
function historyRowOf(alias: string, closedAt: SqlFragment): SqlFragment {
  return sql`${raw(HISTORY_COLUMNS.map((column) => `${alias}.${column}`).join(', '))}, GREATEST(${raw(alias)}.valid_from, ${closedAt})`;
}

const INTO_HISTORY = raw(`item_history (${HISTORY_COLUMNS.join(', ')}, valid_to)`);
/** The replaced row (`old`) closed when the new one (`r`) begins: the same text for every update. */
const REPLACED_ROW = historyRowOf('old', sql`r.valid_from`);

/** New items (a create starts a new stream: the item decider refuses to create over any history). */
async function insertRows(tx: Queryable, rows: ItemRowValues[]): Promise<void> {
  tx.defer(prepared(sql`
    INSERT INTO items (site_id, collection, id, status, sort, created_at, updated_at, user_created, user_updated, deleted_at, version, data, valid_from)
    SELECT r.site_id, r.collection, r.id, r.status, r.sort, r.created_at, r.updated_at, r.user_created, r.user_updated, r.deleted_at, r.version, r.data, r.valid_from
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(${ROW_COLUMNS})`));
}

/**
 * A later version of an existing item: the row it replaces moves into `item_history`, in the same
 * statement (its CTEs read the row as it was before the UPDATE). A plain UPDATE, not an upsert, so
 * the item-count triggers for inserts never run for it.
 */
async function replaceRow(tx: Queryable, row: ItemRowValues): Promise<void> {
  tx.defer(prepared(sql`
    WITH r AS (SELECT * FROM jsonb_to_record(${JSON.stringify(row)}::jsonb) AS r(${ROW_COLUMNS})),
    closed AS (
      INSERT INTO ${INTO_HISTORY}
      SELECT ${REPLACED_ROW}
        FROM items old JOIN r ON old.site_id = r.site_id AND old.collection = r.collection AND old.id = r.id
      ON CONFLICT (site_id, collection, id, version, valid_from) DO NOTHING)
    UPDATE items i SET
      status = r.status, sort = r.sort, created_at = r.created_at, updated_at = r.updated_at, user_created = r.user_created,
      user_updated = r.user_updated, deleted_at = r.deleted_at, version = r.version, data = r.data, valid_from = r.valid_from
      FROM r WHERE i.site_id = r.site_id AND i.collection = r.collection AND i.id = r.id`));
}

async function upsertDraft(tx: Queryable, event: ItemStoredEvent, draft: ItemBody): Promise<void> {
  const { collection, itemId, snapshot } = event.data;
  tx.defer(sql`
    INSERT INTO item_drafts (site_id, collection, id, data, status, sort, updated_at, user_updated)
    VALUES (${event.siteId}, ${collection}, ${itemId}, ${JSON.stringify(contentOf(draft))}::jsonb, ${(draft.status as string | null) ?? null},
            ${(draft.sort as number | null) ?? null}, ${event.recordedAt}, ${event.metadata.actor?.id ?? snapshot.userUpdated ?? null})
    ON CONFLICT (site_id, collection, id) DO UPDATE SET
      data = excluded.data, status = excluded.status, sort = excluded.sort, updated_at = excluded.updated_at, user_updated = excluded.user_updated`);
}

/** Item events after which the item still exists (live or soft-deleted). */
const ITEM_WRITES = ['item.created', 'item.updated', 'item.deleted', 'item.restored', 'item.reverted', 'item.promoted'] as const;

/** The item after the event: its row, and its draft when a draft write changed it (cause.draft); other events only carry the draft along. */
async function writeItem(tx: Queryable, event: ItemStoredEvent): Promise<void> {
  if (event.type === 'item.created') await insertRows(tx, [rowOf(event)]);
  else await replaceRow(tx, rowOf(event));
  const { draft, cause } = event.data;
  if (draft && cause?.draft === true) await upsertDraft(tx, event, draft);
}

async function removeItem(tx: Queryable, event: StoredEvent<'item.hard_deleted'>): Promise<void> {
  const { collection, itemId } = event.data;
  tx.defer(sql`
    WITH gone AS (DELETE FROM items WHERE site_id = ${event.siteId} AND collection = ${collection} AND id = ${itemId} RETURNING *)
    INSERT INTO ${INTO_HISTORY} SELECT ${historyRowOf('gone', sql`${event.recordedAt}::timestamptz`)} FROM gone
    ON CONFLICT (site_id, collection, id, version, valid_from) DO NOTHING`);
  tx.defer(sql`DELETE FROM item_drafts WHERE site_id = ${event.siteId} AND collection = ${collection} AND id = ${itemId}`);
}

/**
 * A field's type changed: its values in the items and their drafts become the new type's values, or
 * null where they do not parse (svc_convert_field_value, infra/postgres/functions/), in one set-based UPDATE per
 * table: no item is read into the application. Other field updates change no value. Time travel
 * keeps the old value before the change: each item row the change converts moves into
 * `item_history`, closed at the change, and its converted row is valid from then on (a row begun at
 * that very moment, or later on a clock that disagrees, is converted where it is).
 */
async function convertFieldValues(tx: Queryable, event: StoredEvent<'field.updated'>): Promise<void> {
  const { collection, field, typeChange } = event.data;
  if (!typeChange) return;
  const name = field.field;
  const at = sql`${event.recordedAt.toISOString()}::timestamptz`;
  // A value that does not convert is stored as JSON null (jsonb_set with SQL NULL would null the whole row's data).
  const converted = sql`coalesce(svc_convert_field_value(data -> ${name}, ${typeChange.to}, ${conversionMaxLength(field)}::integer), 'null'::jsonb)`;
  const holding = sql`site_id = ${event.siteId} AND collection = ${collection} AND data ? ${name} AND data -> ${name} <> 'null'::jsonb`;
  tx.defer(sql`
    WITH closed AS (
      INSERT INTO ${INTO_HISTORY}
      SELECT ${historyRowOf('old', at)} FROM items old
       WHERE ${holding} AND data -> ${name} IS DISTINCT FROM ${converted} AND old.valid_from < ${at}
      ON CONFLICT (site_id, collection, id, version, valid_from) DO NOTHING)
    UPDATE items SET data = jsonb_set(data, ARRAY[${name}::text], ${converted}), valid_from = GREATEST(valid_from, ${at})
     WHERE ${holding} AND data -> ${name} IS DISTINCT FROM ${converted}`);
  tx.defer(sql`UPDATE item_drafts SET data = jsonb_set(data, ARRAY[${name}::text], ${converted}) WHERE ${holding} AND data -> ${name} IS DISTINCT FROM ${converted}`);
}

export const itemsProjection = defineProjection({
  name: 'items',
  mode: 'inline',
  tables: ['item_drafts', 'item_history', 'items'],
  maintainers: [
    {
      table: 'items',
      writer: 'scripts/bench/sortIndexes.ts (seeding)',
      why: 'the sort-index check seeds a million items straight into a scratch database to read list plans; never a service database.',
    },
    {
      table: 'items',
      writer: 'scripts/bench/support/insightsPanels.ts (seeding)',
      why: 'the insights panels benchmark seeds a million items straight into a scratch database to time a grouped count; never a service database.',
    },
    {
      table: 'items',
      writer: 'scripts/bench/studio.ts (seeding)',
      why: "the Studio's benchmark seeds a million items straight into a scratch database to time the first page of a list in the browser; never a service database.",
    },
  ],
  // The live-item counts (item_count_deltas) follow `items` through its triggers: projections/readModelOwners.ts.
  handlers: {
    ...sameHandler(ITEM_WRITES, writeItem),
    'item.hard_deleted': removeItem,
    'field.updated': convertFieldValues,
  },
  // Bulk creates of new items without drafts: one statement. Anything else goes event by event.
  async applyBatch(tx, events) {
    const creates = events.filter((event): event is StoredEvent<'item.created'> => event.type === 'item.created' && !event.data.draft);
    const ids = new Set(creates.map((event) => `${event.data.collection}/${event.data.itemId}`));
    if (creates.length !== events.length || ids.size !== events.length) {
      for (const event of events) {
        if (event.type === 'field.updated') await convertFieldValues(tx, event);
        else if (event.type === 'item.hard_deleted') await removeItem(tx, event);
        else await writeItem(tx, event);
      }
      return;
    }
    await insertRows(tx, creates.map(rowOf));
  },
});
