// The one SQL expression per field. Expression indexes are created from the same function, so a
// filter or sort on a field and the index on it always have identical text.
import { join, raw, sql, type SqlFragment } from '../../infra/postgres/sql.ts';
import { ReadModelFields } from './readModelFields.ts';
import type { FieldDefinition, FieldMap, FieldType, ValueKind } from './types.ts';

/** API name → column of the items table; these win over content fields of the same name. */
export const STRUCTURAL_COLUMNS: ReadonlyMap<string, { column: string; type: FieldType; kind: ValueKind }> = new Map([
  ['id', { column: 'id', type: 'string', kind: 'text' }],
  ['status', { column: 'status', type: 'string', kind: 'text' }],
  ['sort', { column: 'sort', type: 'integer', kind: 'numeric' }],
  ['createdAt', { column: 'created_at', type: 'timestamp', kind: 'timestamptz' }],
  ['updatedAt', { column: 'updated_at', type: 'timestamp', kind: 'timestamptz' }],
  ['userCreated', { column: 'user_created', type: 'string', kind: 'text' }],
  ['userUpdated', { column: 'user_updated', type: 'string', kind: 'text' }],
]);

const NAME_PATTERN = /^[A-Za-z0-9_]+$/;
const ALIAS_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function isValidName(name: string): boolean {
  return NAME_PATTERN.test(name);
}

const TEXT_TYPES: ReadonlySet<FieldType> = new Set(['string', 'text', 'uuid', 'slug', 'code', 'color', 'hash', 'csv']);
const NUMERIC_TYPES: ReadonlySet<FieldType> = new Set(['integer', 'float', 'decimal', 'bigInteger']);
const DATE_TYPES: ReadonlySet<FieldType> = new Set(['dateTime', 'timestamp', 'date', 'time']);
const JSON_TYPES: ReadonlySet<FieldType> = new Set(['json', 'geometry', 'files']);

export function valueKindOf(type: FieldType): ValueKind {
  if (TEXT_TYPES.has(type)) return 'text';
  if (NUMERIC_TYPES.has(type)) return 'numeric';
  if (DATE_TYPES.has(type)) return 'dateText';
  if (JSON_TYPES.has(type)) return 'json';
  return 'boolean';
}

export function dateShapeOf(type: FieldType): 'dateTime' | 'date' | 'time' | null {
  if (type === 'date' || type === 'time') return type;
  return type === 'dateTime' || type === 'timestamp' ? 'dateTime' : null;
}

/**
 * The definition a key resolves to: a structural column first, then a declared content field. A
 * read model's columns (readModelFields.ts) are all its fields.
 */
export function lookupField(fields: FieldMap, name: string): FieldDefinition | undefined {
  if (fields instanceof ReadModelFields) return fields.get(name);
  const structural = STRUCTURAL_COLUMNS.get(name);
  if (structural) return { field: name, type: structural.type };
  return fields.get(name);
}

export function kindOfField(field: FieldDefinition): ValueKind {
  if (field.column) return field.column.kind;
  return STRUCTURAL_COLUMNS.get(field.field)?.kind ?? valueKindOf(field.type);
}

/** True for o2m, m2m and m2a fields: aliases with no stored value of their own. */
export function isToManyField(field: FieldDefinition): boolean {
  return field.relation !== undefined && field.relation.kind !== 'm2o' && !STRUCTURAL_COLUMNS.has(field.field);
}

export function assertAlias(alias: string): void {
  if (!ALIAS_PATTERN.test(alias)) throw new Error(`Invalid SQL alias: ${alias}`);
}

function qualified(alias: string | null, column: string): string {
  if (alias === null) return column;
  assertAlias(alias);
  return `${alias}.${column}`;
}

/**
 * The SQL expression of a field, e.g. `(i.data->>'title')` or `((i.data->>'views')::numeric)`.
 * `alias` null gives the unqualified form used in CREATE INDEX.
 */
export function fieldExpression(alias: string | null, field: FieldDefinition): SqlFragment {
  if (field.column) return raw(qualified(alias, field.column.name));
  const structural = STRUCTURAL_COLUMNS.get(field.field);
  if (structural) return raw(qualified(alias, structural.column));
  const data = qualified(alias, 'data');
  const name = quotedName(field.field);
  if (field.languages) return translatedExpression(data, name, field.type, field.languages);
  switch (valueKindOf(field.type)) {
    case 'numeric':
      return raw(`((${data}->>${name})::numeric)`);
    case 'boolean':
      return raw(`((${data}->>${name})::boolean)`);
    case 'json':
      return raw(`(${data}->${name})`);
    default:
      return raw(`(${data}->>${name})`);
  }
}

/** The first of `languages` whose value is not null, e.g. `COALESCE((i.data->'summary'->>$1), (i.data->'summary'->>$2))`. */
function translatedExpression(data: string, name: string, type: FieldType, languages: readonly string[]): SqlFragment {
  const stored = raw(`${data}->${name}`);
  const kind = valueKindOf(type);
  const values = languages.map((language) =>
    kind === 'json' ? sql`NULLIF(${stored}->${language}::text, 'null'::jsonb)` : sql`(${stored}->>${language}::text)`,
  );
  const chosen = sql`COALESCE(${join(values, ', ')})`;
  if (kind === 'numeric') return sql`(${chosen}::numeric)`;
  if (kind === 'boolean') return sql`(${chosen}::boolean)`;
  return sql`(${chosen})`;
}

/** What a dotted path (`summary.fr`) reaches into: a translated field's stored language map. */
export function pathBaseOf(field: FieldDefinition): FieldDefinition {
  return field.languages ? { field: field.field, type: 'json' } : field;
}

/** The stored text of a content field (`->>`), whatever its type: what relation joins compare ids with. */
export function fieldTextExpression(alias: string, fieldName: string): SqlFragment {
  const structural = STRUCTURAL_COLUMNS.get(fieldName);
  if (structural) return raw(qualified(alias, structural.column));
  return raw(`(${qualified(alias, 'data')}->>${quotedName(fieldName)})`);
}

// Field names are the only text not sent as a parameter; the pattern admits no quote or backslash.
function quotedName(name: string): string {
  if (!isValidName(name)) throw new Error(`Invalid field name: ${name}`);
  return `'${name}'`;
}
