// Compiles a filter to one boolean SQL expression over the items table. Every value is a parameter;
// every predicate is two-valued (never NULL), so callers may negate or combine it freely.
import { join, raw, sql, type SqlFragment } from '../../infra/postgres/sql.ts';
import { assertAlias, fieldExpression, fieldTextExpression } from './fieldExpressions.ts';
import { resolveFilter, type FilterContext } from './resolveFilter.ts';
import type { ConditionNode, FilterNode, FilterScalar, FilterTarget, FilterTree, ValueKind } from './types.ts';

export interface CompileFilterContext extends FilterContext {
  /** Alias of the items table in the surrounding query, e.g. `i`. */
  alias: string;
  /**
   * What relational conditions read related rows from: `items` by default, or a table or derived
   * table with its columns (time travel: item_history at a moment, the moment a bound parameter).
   */
  table?: SqlFragment;
}

/** The live items table. */
export const ITEMS_TABLE: SqlFragment = raw('items');

export function compileFilter(filter: FilterTree | null | undefined, context: CompileFilterContext): SqlFragment {
  return compileFilterNode(resolveFilter(filter, context), context.alias, context.table);
}

/** Compiles an already validated filter (see resolveFilter). */
export function compileFilterNode(node: FilterNode, alias: string, table: SqlFragment = ITEMS_TABLE): SqlFragment {
  assertAlias(alias);
  return compileNode(node, alias, table, 1);
}

function compileNode(node: FilterNode, alias: string, table: SqlFragment, depth: number): SqlFragment {
  switch (node.kind) {
    case 'constant':
      return raw(node.value ? 'TRUE' : 'FALSE');
    case 'and':
    case 'or': {
      if (node.children.length === 0) return raw(node.kind === 'and' ? 'TRUE' : 'FALSE');
      const children = node.children.map((child) => compileNode(child, alias, table, depth));
      return sql`(${join(children, node.kind === 'and' ? ' AND ' : ' OR ')})`;
    }
    case 'relation': {
      const related = raw(`r${depth}`);
      const link =
        node.direction === 'toOne'
          ? sql`${related}.id = ${fieldTextExpression(alias, node.field.field)}`
          : sql`${fieldTextExpression(`r${depth}`, node.relatedField ?? '')} = ${raw(alias)}.id`;
      const child = compileNode(node.child, `r${depth}`, table, depth + 1);
      return sql`EXISTS (SELECT 1 FROM ${table} ${related} WHERE ${related}.site_id = ${raw(alias)}.site_id AND ${related}.collection = ${node.collection}::text AND ${link} AND ${related}.deleted_at IS NULL AND ${child})`;
    }
    default:
      return compileCondition(node, alias);
  }
}

const SQL_TYPES: Record<ValueKind, string> = {
  text: 'text',
  numeric: 'numeric',
  boolean: 'boolean',
  dateText: 'text',
  timestamptz: 'timestamptz',
  json: 'jsonb',
};

const SQL_OPERATORS = { _eq: '=', _lt: '<', _lte: '<=', _gt: '>', _gte: '>=' } as const;

function compileCondition(node: ConditionNode, alias: string): SqlFragment {
  const { target } = node;
  const expression = targetExpression(target, alias);
  const isJson = target.kind === 'json';
  switch (node.kind) {
    case 'isNull':
      return node.isNull ? isNullSql(expression, isJson) : notNullSql(expression, isJson);
    case 'compare': {
      if (node.operator === '_neq') return sql`${expression} IS DISTINCT FROM ${equalityParameter(node.value, target)}`;
      const operator = raw(SQL_OPERATORS[node.operator]);
      if (node.operator === '_eq') {
        return sql`(${notNullSql(expression, isJson)} AND ${expression} = ${equalityParameter(node.value, target)})`;
      }
      const value = orderingParameter(node.value, target);
      if (target.jsonPath) return sql`COALESCE(${typedLeaf(expression, node.value)} ${operator} ${value}, false)`;
      return sql`(${expression} IS NOT NULL AND ${ordered(expression, target)} ${operator} ${value})`;
    }
    case 'in': {
      const list = listParameter(node.values, target);
      if (node.negated) {
        const outside = sql`${expression} <> ALL(${list})`;
        return node.includesNull
          ? sql`(${notNullSql(expression, isJson)} AND ${outside})`
          : sql`(${isNullSql(expression, isJson)} OR ${outside})`;
      }
      const inside = sql`(${notNullSql(expression, isJson)} AND ${expression} = ANY(${list}))`;
      return node.includesNull ? sql`(${inside} OR ${isNullSql(expression, isJson)})` : inside;
    }
    case 'between': {
      const low = orderingParameter(node.low, target);
      const high = orderingParameter(node.high, target);
      if (target.jsonPath) return sql`COALESCE(${typedLeaf(expression, node.low)} BETWEEN ${low} AND ${high}, false)`;
      return sql`(${expression} IS NOT NULL AND ${ordered(expression, target)} BETWEEN ${low} AND ${high})`;
    }
    case 'like': {
      if (node.mode === 'startsWith' && target.field.column) return prefixRange(expression, node.value);
      const pattern = likePattern(node.mode, node.value);
      const operator = raw(node.mode === 'icontains' ? 'ILIKE' : 'LIKE');
      if (target.jsonPath) return sql`COALESCE(${stringLeaf(expression)} ${operator} ${pattern}::text, false)`;
      return sql`(${expression} IS NOT NULL AND ${expression} ${operator} ${pattern}::text)`;
    }
    case 'jsonContains':
      return sql`(${notNullSql(expression, true)} AND ${expression} @> ${JSON.stringify(node.value)}::jsonb)`;
    case 'hasKeys': {
      const test =
        node.mode === 'one'
          ? sql`${expression} ? ${node.keys[0]}::text`
          : sql`${expression} ${raw(node.mode === 'any' ? '?|' : '?&')} ${node.keys}::text[]`;
      return sql`(${notNullSql(expression, true)} AND ${test})`;
    }
  }
}

function targetExpression(target: FilterTarget, alias: string): SqlFragment {
  const expression = fieldExpression(alias, target.field);
  return target.jsonPath ? sql`(${expression} #> ${target.jsonPath}::text[])` : expression;
}

// JSON null counts as null, as it does for `->>` text fields.
function isNullSql(expression: SqlFragment, isJson: boolean): SqlFragment {
  return isJson ? sql`(${expression} IS NULL OR ${expression} = 'null'::jsonb)` : sql`${expression} IS NULL`;
}

function notNullSql(expression: SqlFragment, isJson: boolean): SqlFragment {
  return isJson ? sql`(${expression} IS NOT NULL AND ${expression} <> 'null'::jsonb)` : sql`${expression} IS NOT NULL`;
}

// Text ranges use byte order so results do not depend on the database locale (and match evaluateFilter).
function ordered(expression: SqlFragment, target: FilterTarget): SqlFragment {
  return target.kind === 'text' ? sql`${expression} COLLATE "C"` : expression;
}

/** The leaf of a JSON path as a number or as text, NULL when its JSON type differs from the value's. */
function typedLeaf(expression: SqlFragment, value: FilterScalar): SqlFragment {
  if (typeof value === 'number') {
    return sql`(CASE WHEN jsonb_typeof(${expression}) = 'number' THEN (${expression} #>> '{}')::numeric END)`;
  }
  return sql`${stringLeaf(expression)} COLLATE "C"`;
}

function stringLeaf(expression: SqlFragment): SqlFragment {
  return sql`(CASE WHEN jsonb_typeof(${expression}) = 'string' THEN ${expression} #>> '{}' END)`;
}

/** A value for `=`: JSON targets compare as jsonb. */
function equalityParameter(value: FilterScalar, target: FilterTarget): SqlFragment {
  if (target.jsonPath || target.kind === 'json') return sql`${JSON.stringify(value)}::jsonb`;
  return sql`${value}::${raw(SQL_TYPES[target.kind])}`;
}

/** A value for `<` or BETWEEN: inside a JSON path it keeps its own type (number or text). */
function orderingParameter(value: FilterScalar, target: FilterTarget): SqlFragment {
  if (target.jsonPath) return typeof value === 'number' ? sql`${String(value)}::numeric` : sql`${value}::text`;
  return sql`${value}::${raw(SQL_TYPES[target.kind])}`;
}

function listParameter(values: FilterScalar[], target: FilterTarget): SqlFragment {
  if (target.jsonPath || target.kind === 'json') return sql`${values.map((value) => JSON.stringify(value))}::jsonb[]`;
  return sql`${values}::${raw(`${SQL_TYPES[target.kind]}[]`)}`;
}

/**
 * `_starts_with` on a read model's column: LIKE states the condition, and the byte range around it
 * lets the column's text_pattern_ops index answer it. Under row-level security PostgreSQL only makes
 * index conditions of leakproof operators: `~>=~` and `~<~` are, LIKE is not.
 */
function prefixRange(expression: SqlFragment, prefix: string): SqlFragment {
  const like = sql`${expression} LIKE ${likePattern('startsWith', prefix)}::text`;
  const upper = prefixUpperBound(prefix);
  const below = upper === null ? raw('TRUE') : sql`${expression} ~<~ ${upper}::text`;
  return sql`(${expression} IS NOT NULL AND ${expression} ~>=~ ${prefix}::text AND ${below} AND ${like})`;
}

/** The least text above every text that starts with `prefix`, in byte (code point) order; null if none. */
export function prefixUpperBound(prefix: string): string | null {
  const codePoints = [...prefix];
  while (codePoints.length > 0) {
    const last = codePoints.pop()!.codePointAt(0)!;
    // UTF-8 has no surrogates: the code point after U+D7FF is U+E000.
    if (last < 0x10ffff) return codePoints.join('') + String.fromCodePoint(last === 0xd7ff ? 0xe000 : last + 1);
  }
  return null;
}

function likePattern(mode: 'contains' | 'icontains' | 'startsWith' | 'endsWith', value: string): string {
  // The value is matched literally: LIKE's wildcards and its escape character (backslash) are escaped.
  const escaped = value.replace(/[\\%_]/g, (character) => `\\${character}`);
  if (mode === 'startsWith') return `${escaped}%`;
  if (mode === 'endsWith') return `%${escaped}`;
  return `%${escaped}%`;
}
