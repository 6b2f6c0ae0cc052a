// Compiles `sort=-publishedAt,title` to the list after ORDER BY, always ending with the id so that
// pages never overlap or skip rows. Items without a value come last in both directions unless the
// term asks for first (`nulls=first`). Each placement is served by an index: PostgreSQL's default
// btree (ASC NULLS LAST) walked forward gives `ASC` and backward `DESC NULLS FIRST`; the `desc`
// field indexes (DESC NULLS LAST, infra/postgres/functions/svc_item_field_index_statement.sql and
// migration 0491) give `DESC NULLS LAST` forward and `ASC NULLS FIRST` backward.
import { AppError } from '../../domain/shared/appError.ts';
import { join, raw, sql, type SqlFragment } from '../../infra/postgres/sql.ts';
import { STRUCTURAL_COLUMNS, fieldExpression, isToManyField, isValidName, kindOfField, lookupField, pathBaseOf } from './fieldExpressions.ts';
import { MAX_JSON_PATH_DEPTH } from './resolveFilter.ts';
import type { FieldMap, NullsPlacement, SortSpec } from './types.ts';

/**
 * Structural columns every item has a value in (the item events require them): their order needs no
 * NULLS clause, so it stays the one their index serves in both directions.
 */
const NEVER_NULL: ReadonlySet<string> = new Set(['id', 'createdAt', 'updatedAt']);

/** The ORDER BY list (without the keyword), e.g. `(i.data->>'title') DESC NULLS LAST, i.id ASC`. */
export function compileSort(sort: readonly SortSpec[], fields: FieldMap, alias: string): SqlFragment {
  const terms = sort.map((term) => sql`${sortExpression(term.field, fields, alias)} ${raw(orderOf(term, fields))}`);
  const idDirection = sort.find((term) => term.field === 'id')?.direction;
  if (idDirection === undefined) terms.push(sql`${fieldExpression(alias, { field: 'id', type: 'string' })} ASC`);
  return join(terms, ', ');
}

/** `ASC` / `DESC` with the NULLS clause only where it differs from PostgreSQL's default for the direction. */
function orderOf({ field, direction, nulls = 'last' }: SortSpec, fields: FieldMap): string {
  const order = direction === 'desc' ? 'DESC' : 'ASC';
  const neverNull = NEVER_NULL.has(field) && lookupField(fields, field)?.column === undefined;
  if (neverNull || nulls === defaultNullsOf(direction)) return order;
  return `${order} NULLS ${nulls.toUpperCase()}`;
}

/** PostgreSQL puts nulls last ascending and first descending. */
function defaultNullsOf(direction: SortSpec['direction']): NullsPlacement {
  return direction === 'desc' ? 'first' : 'last';
}

function sortExpression(key: string, fields: FieldMap, alias: string): SqlFragment {
  const [name = '', ...jsonPath] = key.split('.');
  const field = key.split('.').every(isValidName) ? lookupField(fields, name) : undefined;
  if (!field) throw invalidSort(`Cannot sort by unknown field "${key}"`);
  if (isToManyField(field)) throw invalidSort(`Cannot sort by the to-many relation "${name}"`);
  // The order of password hashes tells something of them, and nothing a reader needs.
  if (field.type === 'hash') throw invalidSort(`Cannot sort by the hash field "${name}"`);
  if (field.sealed) throw invalidSort(`Cannot sort by the pii/phi field "${name}": its values are sealed`);
  if (jsonPath.length === 0) return fieldExpression(alias, field);
  const base = pathBaseOf(field);
  if (STRUCTURAL_COLUMNS.has(name) || kindOfField(base) !== 'json') {
    throw invalidSort(`Cannot sort by "${key}": only JSON fields have nested paths`);
  }
  if (jsonPath.length > MAX_JSON_PATH_DEPTH) throw invalidSort(`JSON path "${key}" is deeper than ${MAX_JSON_PATH_DEPTH}`);
  // A JSON null under the path is no value either: it sorts with the missing ones.
  return sql`NULLIF(${fieldExpression(alias, base)} #> ${jsonPath}::text[], 'null'::jsonb)`;
}

function invalidSort(message: string): AppError {
  return new AppError('VALIDATION_FAILED', message, { path: ['sort'] });
}
