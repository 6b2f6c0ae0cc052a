// What a field's type change needs to know of the site's rows before it runs (docs/content.md
// "Changing a field's type"): whether items hold or held values in the field, whether the change is
// refused outright (domain/content/fieldTypeChange.ts), and how many values it converts and nulls.
// PATCH /fields, PUT /collections/:name/schema and the config import ask the same questions here.
// All reads: the conversion itself is the read models' fold of the `field.updated` event
// (projections/itemsProjection.ts), and an item write's conversion of the item it loads (typeChangesAfter).
import {
  conversionMaxLength,
  conversionOf,
  type FieldConversion,
  typeChangeRefusal,
  type ConversionCounts,
  type TypeChangeRefusal,
} from '../../../domain/content/fieldTypeChange.ts';
import { storedFieldsOf, type ContentField } from '../../../domain/content/schemaModel.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId } from '../../../domain/shared/events.ts';
import { readStream } from '../../../infra/eventstore/eventStore.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql, type SqlQuery } from '../../../infra/postgres/sql.ts';
import { indexKindOf } from '../../../projections/schemaProjection.ts';
import type { SiteSchema } from '../../schema/siteSchema.ts';

/**
 * Whether an item holds a value in the field or ever held one: live, soft-deleted, or in its history
 * (time travel reads past values with today's declaration).
 */
export async function fieldHoldsOrHeldValues(tx: Queryable, siteId: string, collection: string, field: string): Promise<boolean> {
  const rows = await tx.query(sql`
    SELECT 1 FROM items WHERE site_id = ${siteId} AND collection = ${collection}
       AND data ? ${field} AND data -> ${field} <> 'null'::jsonb
    UNION ALL
    SELECT 1 FROM item_history WHERE site_id = ${siteId} AND collection = ${collection}
       AND data ? ${field} AND data -> ${field} <> 'null'::jsonb
    LIMIT 1`);
  return rows.length > 0;
}

/** Why the change of `current` to `next` (another type) is refused even with allowDestructive, or null. */
export async function refusalOfTypeChange(
  tx: Queryable,
  siteId: string,
  schema: Pick<SiteSchema, 'relations'>,
  collection: string,
  current: ContentField,
  next: ContentField,
): Promise<TypeChangeRefusal | null> {
  const storesRelationIds = schema.relations.some((relation) =>
    storedFieldsOf(relation).some((stored) => stored.collection === collection && stored.field === current.field),
  );
  const indexes = await tx.query<{ kind: string }>(sql`
    SELECT kind FROM item_field_indexes WHERE site_id = ${siteId} AND collection = ${collection} AND field = ${current.field} ORDER BY kind`);
  return typeChangeRefusal(current, next, { storesRelationIds, indexKinds: indexes.map((row) => row.kind), nextIndexKind: indexKindOf(next) });
}

/**
 * How many of the items' values (live and soft-deleted) the change to `next` keeps as values of the
 * new type, and how many it sets to null: the same conversion the read model applies, counted in one
 * set-based read.
 */
export async function countConversions(tx: Queryable, siteId: string, collection: string, next: ContentField): Promise<ConversionCounts> {
  const [row] = await tx.query<ConversionCounts>(sql`
    SELECT count(*) FILTER (WHERE converted IS NOT NULL)::int AS converted, count(*) FILTER (WHERE converted IS NULL)::int AS nulled
      FROM (SELECT svc_convert_field_value(data -> ${next.field}, ${next.type}, ${conversionMaxLength(next)}::integer) AS converted
              FROM items WHERE site_id = ${siteId} AND collection = ${collection}
               AND data ? ${next.field} AND data -> ${next.field} <> 'null'::jsonb) AS values_held`);
  return row ?? { converted: 0, nulled: 0 };
}

/**
 * The checks of one type change, in the change's transaction: a field that holds or held no values
 * changes freely (nothing to convert); otherwise a refused pair is 409 CONFLICT (`extensions.reason`),
 * and without allowDestructive the change is 409 DESTRUCTIVE_BLOCKED with the counts it would have.
 * Returns the counts of the conversion that will run.
 */
export async function checkTypeChange(
  tx: Queryable,
  siteId: string,
  schema: Pick<SiteSchema, 'relations'>,
  collection: string,
  change: { current: ContentField; next: ContentField; allowDestructive: boolean; path: (string | number)[] },
): Promise<ConversionCounts> {
  const { current, next, path } = change;
  if (!(await fieldHoldsOrHeldValues(tx, siteId, collection, current.field))) return { converted: 0, nulled: 0 };
  const refusal = await refusalOfTypeChange(tx, siteId, schema, collection, current, next);
  if (refusal) throw new AppError('CONFLICT', refusal.message, { path, extensions: { reason: refusal.reason } });
  const counts = await countConversions(tx, siteId, collection, next);
  if (!change.allowDestructive) {
    const message =
      `Changing "${current.field}" of "${collection}" from ${current.type} to ${next.type} converts ${counts.converted} values and sets ` +
      `${counts.nulled} to null (the log keeps the old ones): send allowDestructive=true to apply it`;
    throw new AppError('DESTRUCTIVE_BLOCKED', message, { path, extensions: { from: current.type, to: next.type, ...counts } });
  }
  return counts;
}

/**
 * The collection's type changes recorded after the log position `position` (an item's last event),
 * in log order, read from the collection's stream: what an item write applies to the item it loads
 * (domain/content/itemDecider.ts `conversions`). A collection stream is short (its schema changes).
 */
export async function typeChangesAfter(tx: Queryable, siteId: string, collection: string, position: number): Promise<FieldConversion[]> {
  const events = await readStream(tx, streamId(siteId, 'collection', collection));
  return events.flatMap((event) =>
    event.type === 'field.updated' && event.data.typeChange && event.position > position ? [conversionOf(event.data.field)] : [],
  );
}

/**
 * The collection's schema lock, shared: every item write of the collection holds it to its commit
 * (deferred: it travels with the write's first statement, no round trip of its own). A type change
 * takes the collection stream's lock, the same key, exclusively (handlers.ts lockCollectionStream),
 * so it waits for the item writes in flight, whose rows its conversion then sees, and the writes
 * that come after wait for it and load the item with its type change in the log.
 */
export function holdCollectionSchemaShared(tx: Queryable, siteId: string, collection: string): void {
  tx.defer(sql`SELECT pg_advisory_xact_lock_shared(hashtextextended(${streamId(siteId, 'collection', collection)}, 0))`);
}

/**
 * For an item write decided from a cached head (src/runtime/streamHeads.ts): refuses it as a lost
 * race (SV409) when a type change of the collection was logged after `position`, the head's, which
 * the write did not convert (svc_assert_no_type_change_after.sql). Sent with the append, under the
 * schema lock above.
 */
export function noTypeChangeAfter(siteId: string, collection: string, position: number): SqlQuery {
  return sql`SELECT svc_assert_no_type_change_after(${streamId(siteId, 'collection', collection)}, ${position})`;
}
