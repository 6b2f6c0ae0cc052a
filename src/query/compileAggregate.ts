// Compiles `aggregate[sum]=views&groupBy=author` to a SELECT list and GROUP BY, and shapes the rows
// back into the response form `{ author, sum: { views } }` (`count=*` alone gives a plain `count`).
import { AppError } from '../../domain/shared/appError.ts';
import { join, raw, sql, type SqlFragment } from '../../infra/postgres/sql.ts';
import { dateShapeOf, fieldExpression, isToManyField, isValidName, kindOfField, lookupField } from './fieldExpressions.ts';
import { DATE_BUCKETS, type AggregateFunction, type AggregateSpec, type FieldDefinition, type FieldMap, type GroupBucket } from './types.ts';

export type AggregateColumn =
  | { alias: string; role: 'group'; field: string }
  | { alias: string; role: 'aggregate'; function: AggregateFunction; field: string; keepText: boolean; plain: boolean };

export interface CompiledAggregate {
  /** SELECT list: group fields first (`g0`, `g1`...), then aggregates (`a0`, `a1`...). */
  select: SqlFragment;
  /** GROUP BY list (without the keyword): the group fields' positions in the SELECT list; null without groupBy. */
  groupBy: SqlFragment | null;
  columns: AggregateColumn[];
}

const SQL_FUNCTIONS: Record<AggregateFunction, string> = {
  count: 'count',
  countDistinct: 'count',
  sum: 'sum',
  avg: 'avg',
  min: 'min',
  max: 'max',
};

/** `bucket`: the first group is that date field truncated to its unit (the groupBy names follow). */
export function compileAggregate(
  aggregate: AggregateSpec | null,
  groupBy: readonly string[],
  fields: FieldMap,
  alias: string,
  bucket: GroupBucket | null = null,
): CompiledAggregate {
  const columns: AggregateColumn[] = [];
  const selected: SqlFragment[] = [];
  const grouped: SqlFragment[] = [];
  const groups = bucket ? [bucket.field, ...groupBy] : groupBy;
  groups.forEach((name, index) => {
    const field = resolveField(name, fields, ['groupBy']);
    if (kindOfField(field) === 'json') throw invalid(`Cannot group by the JSON field "${name}"`, ['groupBy']);
    // Groups would be answered with their key: the stored hash.
    if (field.type === 'hash') throw invalid(`Cannot group by the hash field "${name}"`, ['groupBy']);
    const expression = bucket && index === 0 ? truncatedDate(fieldExpression(alias, field), field, bucket) : fieldExpression(alias, field);
    columns.push({ alias: `g${index}`, role: 'group', field: name });
    selected.push(sql`${expression} AS ${raw(`g${index}`)}`);
    // By position: the same expression written twice would carry its parameters (a language) twice,
    // and PostgreSQL would not see that the selected one is the grouped one.
    grouped.push(raw(String(index + 1)));
  });
  for (const [fn, names] of Object.entries(aggregate ?? {}) as [AggregateFunction, string[]][]) {
    for (const name of names) {
      const columnAlias = `a${columns.length - groups.length}`;
      selected.push(sql`${aggregateExpression(fn, name, fields, alias)} AS ${raw(columnAlias)}`);
      const keepText = fn !== 'count' && fn !== 'countDistinct' && !isFloatingNumber(lookupField(fields, name));
      const plain = fn === 'count' && names.length === 1 && name === '*';
      columns.push({ alias: columnAlias, role: 'aggregate', function: fn, field: name, keepText, plain });
    }
  }
  if (selected.length === 0) throw invalid('Nothing to aggregate: give aggregate[...] or groupBy', ['aggregate']);
  return { select: join(selected, ', '), groupBy: grouped.length > 0 ? join(grouped, ', ') : null, columns };
}

/**
 * A date field truncated to the bucket's unit in UTC, as a timestamptz: structural times directly,
 * stored ISO date-times through timestamptz (their offset kept), stored dates as midnight UTC.
 */
function truncatedDate(expression: SqlFragment, field: FieldDefinition, bucket: GroupBucket): SqlFragment {
  if (!DATE_BUCKETS.includes(bucket.unit)) throw invalid(`Unknown bucket "${String(bucket.unit)}"`, ['bucket']);
  const unit = raw(`'${bucket.unit}'`);
  const kind = kindOfField(field);
  if (kind === 'timestamptz') return sql`date_trunc(${unit}, ${expression}, 'UTC')`;
  const shape = kind === 'dateText' ? dateShapeOf(field.type) : null;
  if (shape === 'dateTime') return sql`date_trunc(${unit}, (${expression})::timestamptz, 'UTC')`;
  if (shape === 'date') return sql`date_trunc(${unit}, ((${expression})::date)::timestamp AT TIME ZONE 'UTC', 'UTC')`;
  throw invalid(`Cannot bucket "${bucket.field}": it is not a date or a date-time`, ['bucket']);
}

function aggregateExpression(fn: AggregateFunction, name: string, fields: FieldMap, alias: string): SqlFragment {
  const path = ['aggregate', fn];
  if (name === '*') {
    if (fn !== 'count') throw invalid(`"${fn}" needs a field, not "*"`, path);
    return raw('count(*)');
  }
  const field = resolveField(name, fields, path);
  const kind = kindOfField(field);
  const expression = fieldExpression(alias, field);
  if ((fn === 'sum' || fn === 'avg') && kind !== 'numeric') throw invalid(`"${fn}" needs a numeric field; "${name}" is not`, path);
  if ((fn === 'min' || fn === 'max') && (kind === 'json' || kind === 'boolean')) {
    throw invalid(`"${fn}" does not apply to the ${kind} field "${name}"`, path);
  }
  // min and max would answer with a stored hash; only counting applies to a hash field.
  if (field.type === 'hash' && fn !== 'count') throw invalid(`"${fn}" does not apply to the hash field "${name}"`, path);
  if (fn === 'countDistinct') return sql`count(DISTINCT ${expression})`;
  return sql`${raw(SQL_FUNCTIONS[fn])}(${expression})`;
}

// Integer and float results become JS numbers; decimals, big integers, text and dates stay text (exact).
function isFloatingNumber(field: FieldDefinition | undefined): boolean {
  return field !== undefined && kindOfField(field) === 'numeric' && field.type !== 'decimal' && field.type !== 'bigInteger';
}

function resolveField(name: string, fields: FieldMap, path: (string | number)[]): FieldDefinition {
  const field = isValidName(name) ? lookupField(fields, name) : undefined;
  if (!field) throw invalid(`Unknown field "${name}"`, path);
  if (isToManyField(field)) throw invalid(`Cannot aggregate the to-many relation "${name}"`, path);
  return field;
}

function invalid(message: string, path: (string | number)[]): AppError {
  return new AppError('VALIDATION_FAILED', message, { path });
}

/** Turns a result row into `{ <group fields>, count: 3, sum: { views: 120 } }` (`count: { '*': 3, title: 2 }` when mixed). */
export function shapeAggregateRow(row: Record<string, unknown>, columns: readonly AggregateColumn[]): Record<string, unknown> {
  const shaped: Record<string, unknown> = {};
  for (const column of columns) {
    const value = row[column.alias];
    if (column.role === 'group') {
      shaped[column.field] = value ?? null;
      continue;
    }
    const result = value === null || value === undefined ? null : column.keepText ? value : Number(value);
    if (column.plain) {
      shaped.count = result;
    } else {
      const bucket = (shaped[column.function] ??= {}) as Record<string, unknown>;
      bucket[column.field] = result;
    }
  }
  return shaped;
}
