// What every item read shares: the table it reads (`items`, or a table with the same columns such
// as the history's temporal table), the columns it selects, the conditions every row must meet, and
// the per-request state (schema, language, sensitive fields returned).
import type { SensitiveRead } from '../../../domain/content/sensitiveReads.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { join, raw, sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import type { ReadPermissions } from '../../access/itemAccess.ts';
import type { DynamicValueContext } from '../../query/dynamicValues.ts';
import { ITEMS_TABLE, type FieldMap, type ResolveFields } from '../../query/index.ts';
import type { Revealer } from '../encryption/reveal.ts';
import type { CollectionSchema, SiteSchema } from '../../schema/siteSchema.ts';
import type { ItemRow, ReadOptions } from './itemRecords.ts';

export interface ItemSource {
  /**
   * A table, or a derived table, with the columns of `items`: what the main query, nested relations,
   * relational filters and permission conditions all read (time travel binds its moment in it).
   */
  table: SqlFragment;
}

export const LIVE_ITEMS: ItemSource = { table: ITEMS_TABLE };

const ALIAS_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** jsonb_build_object takes at most 100 arguments: beyond this many keys the whole blob is read. */
const MAX_PICKED_KEYS = 40;

export interface ReadContext {
  tx: Queryable;
  siteId: string;
  schema: SiteSchema;
  source: ItemSource;
  options: ReadOptions;
  /** What the request's filters, sorts and aggregates compile against: `schema.fieldsIn(locale)`. */
  fields: ResolveFields;
  dynamic: DynamicValueContext;
  /** pii/phi fields returned by this request, logged once at the end. */
  sensitive: SensitiveRead[];
  /** Opens (or masks) the sealed pii/phi values of the rows read. */
  revealer: Revealer;
  /** The reader's permissions (src/access), applied at every level; absent for administrators. */
  permissions?: ReadPermissions;
}

/** The fields of `collection` as the request's filters, sorts and aggregates see them. */
export function queryFieldsOf(context: ReadContext, collection: CollectionSchema): FieldMap {
  return context.fields(collection.name) ?? collection.queryFields;
}

function aliasOf(alias: string): SqlFragment {
  if (!ALIAS_PATTERN.test(alias)) throw new Error(`Invalid alias: ${alias}`);
  return raw(alias);
}

/** Rows of `collection` the reader may see at all: this site, not deleted, and within the reader's row conditions. */
export function baseCondition(context: ReadContext, collection: string, alias: string): SqlFragment {
  const a = aliasOf(alias);
  const permitted = context.permissions?.rowCondition(collection, alias, context.source.table);
  const allowed = permitted ? sql` AND ${permitted}` : sql``;
  return sql`${a}.site_id = ${context.siteId} AND ${a}.collection = ${collection} AND ${a}.deleted_at IS NULL${allowed}`;
}

function isoText(alias: SqlFragment, column: string): SqlFragment {
  return sql`to_char(${alias}.${raw(column)} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${raw(column)}`;
}

/**
 * The columns of an ItemRow. `contentKeys` null reads the whole `data`; a list reads only those keys
 * (a page of 25 titles does not ship 25 bodies).
 */
export function itemColumns(alias: string, collection: CollectionSchema, contentKeys: readonly string[] | null): SqlFragment {
  const a = aliasOf(alias);
  let data: SqlFragment;
  if (contentKeys === null || contentKeys.length > MAX_PICKED_KEYS || contentKeys.length >= collection.fields.size) {
    data = sql`${a}.data`;
  } else if (contentKeys.length === 0) {
    data = sql`'{}'::jsonb`;
  } else {
    data = sql`jsonb_build_object(${join(contentKeys.map((key) => sql`${key}::text, ${a}.data -> ${key}::text`))})`;
  }
  return sql`${a}.id, ${a}.status, ${a}.sort, ${isoText(a, 'created_at')}, ${isoText(a, 'updated_at')},
    ${a}.user_created, ${a}.user_updated, ${a}.version, ${data} AS data`;
}

export type { ItemRow };
