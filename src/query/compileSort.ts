// Compiles `sort=-publishedAt,title` to the list after ORDER BY, always ending with the id so that
// pages never overlap or skip rows.
import { AppError } from '../../domain/shared/appError.ts';
import { join, raw, sql, type SqlFragment } from '../../infra/postgres/sql.ts';
import { STRUCTURAL_COLUMNS, fieldExpression, isToManyField, isValidName, kindOfField, lookupField, pathBaseOf } from './fieldExpressions.ts';
import { MAX_JSON_PATH_DEPTH } from './resolveFilter.ts';
import type { FieldMap, SortSpec } from './types.ts';

/** The ORDER BY list (without the keyword), e.g. `(i.data->>'title') DESC, i.id ASC`. */
export function compileSort(sort: readonly SortSpec[], fields: FieldMap, alias: string): SqlFragment {
  const terms = sort.map(({ field, direction }) => sql`${sortExpression(field, fields, alias)} ${raw(direction === 'desc' ? 'DESC' : 'ASC')}`);
  const idDirection = sort.find((term) => term.field === 'id')?.direction;
  if (idDirection === undefined) terms.push(sql`${fieldExpression(alias, { field: 'id', type: 'string' })} ASC`);
  return join(terms, ', ');
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
  return sql`(${fieldExpression(alias, base)} #> ${jsonPath}::text[])`;
}

function invalidSort(message: string): AppError {
  return new AppError('VALIDATION_FAILED', message, { path: ['sort'] });
}
