// The temporal read model behind `?asOf=`: each item event closes the item's open row at the event's
// time and opens a row with the new state, so "the item at t" is the row whose
// [valid_from, valid_to) holds t. A hard delete closes the row and opens none. A field's type change
// closes the open rows holding a value of the field and opens their converted copies (same version).
import type { ItemEventType } from '../domain/content/events.ts';
import { conversionMaxLength } from '../domain/content/fieldTypeChange.ts';
import { contentFieldsOf, ITEM_EVENT_TYPES } from '../domain/content/versions/itemSnapshot.ts';
import type { StoredEvent } from '../domain/shared/events.ts';
import type { Queryable } from '../infra/postgres/database.ts';
import { prepared, sql } from '../infra/postgres/sql.ts';
import { defineProjection, sameHandler } from './projection.ts';

type ItemStoredEvent = StoredEvent<ItemEventType>;

function rowOf(event: ItemStoredEvent) {
  const { collection, itemId, snapshot } = event.data;
  return {
    site_id: event.siteId,
    collection,
    id: itemId,
    status: snapshot.status ?? null,
    sort: snapshot.sort ?? null,
    created_at: snapshot.createdAt ?? null,
    updated_at: snapshot.updatedAt ?? null,
    user_created: snapshot.userCreated ?? null,
    user_updated: snapshot.userUpdated ?? null,
    deleted_at: snapshot.deletedAt ?? null,
    version: event.streamPosition,
    data: contentFieldsOf(snapshot),
    valid_from: event.recordedAt.toISOString(),
  };
}

async function openRows(tx: Queryable, events: readonly ItemStoredEvent[]): Promise<void> {
  tx.defer(prepared(sql`
    INSERT INTO item_history (site_id, collection, id, status, sort, created_at, updated_at, user_created, user_updated,
                              deleted_at, version, data, valid_from, valid_to)
    SELECT r.site_id, r.collection, r.id, r.status, r.sort, r.created_at, r.updated_at, r.user_created, r.user_updated,
           r.deleted_at, r.version, r.data, r.valid_from, NULL
      FROM jsonb_to_recordset(${JSON.stringify(events.map(rowOf))}::jsonb) AS r(
        site_id text, collection text, id text, status text, sort integer, created_at timestamptz, updated_at timestamptz,
        user_created text, user_updated text, deleted_at timestamptz, version integer, data jsonb, valid_from timestamptz)
    ON CONFLICT (site_id, collection, id, version, valid_from) DO NOTHING`));
}

async function applyOne(tx: Queryable, event: ItemStoredEvent): Promise<void> {
  if (event.type === 'item.created') {
    // A create starts a new stream (the item decider refuses to create over any history): no open row to close.
    await openRows(tx, [event]);
    return;
  }
  // GREATEST: a row never ends before it starts, even if two appends' clocks disagree.
  tx.defer(prepared(sql`
    UPDATE item_history SET valid_to = GREATEST(valid_from, ${event.recordedAt}::timestamptz)
     WHERE site_id = ${event.siteId} AND collection = ${event.data.collection} AND id = ${event.data.itemId} AND valid_to IS NULL`));
  if (event.type !== 'item.hard_deleted') await openRows(tx, [event]);
}

/**
 * A field's type changed: the item as it stands now holds the converted value (projections/
 * itemsProjection.ts), and so does its open history row from the change's moment on; before it, the
 * old value. Set-based, with the conversion the items use (svc_convert_field_value): each open row
 * holding a value the change converts is closed at the change and its converted copy opened (a row
 * opened at that very moment, or later on a clock that disagrees, is converted where it is).
 */
async function convertOpenRows(tx: Queryable, event: StoredEvent<'field.updated'>): Promise<void> {
  const { collection, field, typeChange } = event.data;
  if (!typeChange) return;
  const name = field.field;
  const at = event.recordedAt.toISOString();
  const converted = sql`coalesce(svc_convert_field_value(data -> ${name}, ${typeChange.to}, ${conversionMaxLength(field)}::integer), 'null'::jsonb)`;
  const changing = sql`site_id = ${event.siteId} AND collection = ${collection} AND valid_to IS NULL
    AND data ? ${name} AND data -> ${name} <> 'null'::jsonb AND data -> ${name} IS DISTINCT FROM ${converted}`;
  tx.defer(sql`UPDATE item_history SET data = jsonb_set(data, ARRAY[${name}::text], ${converted}) WHERE ${changing} AND valid_from >= ${at}::timestamptz`);
  tx.defer(sql`
    WITH closed AS (
      UPDATE item_history SET valid_to = ${at}::timestamptz WHERE ${changing} AND valid_from < ${at}::timestamptz
      RETURNING site_id, collection, id, status, sort, created_at, updated_at, user_created, user_updated, deleted_at, version, data)
    INSERT INTO item_history (site_id, collection, id, status, sort, created_at, updated_at, user_created, user_updated,
                              deleted_at, version, data, valid_from, valid_to)
    SELECT site_id, collection, id, status, sort, created_at, updated_at, user_created, user_updated,
           deleted_at, version, jsonb_set(data, ARRAY[${name}::text], ${converted}), ${at}::timestamptz, NULL
      FROM closed`);
}

export const itemHistoryProjection = defineProjection({
  name: 'item_history',
  mode: 'inline',
  tables: ['item_history'],
  handlers: { ...sameHandler(ITEM_EVENT_TYPES, applyOne), 'field.updated': convertOpenRows },
  // A bulk create starts new streams only (the item decider refuses to create over any history), so
  // there is no open row to close: one statement. Anything else goes event by event.
  async applyBatch(tx, events) {
    const creates = events.filter((event): event is StoredEvent<'item.created'> => event.type === 'item.created');
    const keys = new Set(creates.map((event) => `${event.data.collection}/${event.data.itemId}`));
    if (keys.size === events.length) {
      await openRows(tx, creates);
      return;
    }
    for (const event of events) {
      if (event.type === 'field.updated') await convertOpenRows(tx, event);
      else await applyOne(tx, event);
    }
  },
});
