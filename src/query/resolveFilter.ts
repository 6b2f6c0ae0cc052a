// Validates a client filter against a collection's fields and turns it into a FilterNode tree:
// fields resolved, operators checked against field kinds, values coerced, dynamic values substituted.
// compileFilter (SQL) and evaluateFilter (in memory) both start here, so they accept the same filters.
import { AppError, type ErrorCode } from '../../domain/shared/appError.ts';
import { assertJsonValue, coerceScalar, coerceText, invalidValue, isPlainObject } from './coerceValue.ts';
import { resolveDynamicValue, type DynamicValueContext } from './dynamicValues.ts';
import { STRUCTURAL_COLUMNS, dateShapeOf, isValidName, kindOfField, lookupField, pathBaseOf } from './fieldExpressions.ts';
import { isComparisonOperator, operatorFits, type TargetKind } from './operators.ts';
import type {
  ComparisonOperator,
  ErrorPath,
  FieldDefinition,
  FieldMap,
  FieldRelation,
  FilterNode,
  FilterScalar,
  FilterTarget,
  ResolveFields,
} from './types.ts';

export const MAX_JSON_PATH_DEPTH = 8;
export const MAX_RELATION_DEPTH = 4;
export const MAX_FILTER_NESTING = 24;

export interface FilterContext extends DynamicValueContext {
  /** Fields of the collection the filter applies to. */
  fields: FieldMap;
  /** Fields of related collections, for relational filters. */
  resolveFields?: ResolveFields;
  /** Where error paths start; default `['filter']`. */
  path?: ErrorPath;
  /**
   * pii/phi fields may be compared: the filter is evaluated on opened values (erasure) or only
   * inspected for the fields it reads (permission guards), never compiled to SQL over sealed values.
   */
  sealedComparable?: boolean;
  /**
   * The code of a key naming no field of `fields` (or a relation whose collection `resolveFields`
   * does not give): VALIDATION_FAILED unless set. Panel queries (docs/insights.md) resolve against
   * the fields the caller may read and answer INVALID_FIELD.
   */
  unknownFieldCode?: ErrorCode;
}

interface Walk {
  context: FilterContext;
  nesting: number;
  relationDepth: number;
}

const TRUE: FilterNode = { kind: 'constant', value: true };
const FALSE: FilterNode = { kind: 'constant', value: false };

export function resolveFilter(filter: unknown, context: FilterContext): FilterNode {
  if (filter === null || filter === undefined) return TRUE;
  return resolveGroup(filter, context.fields, context.path ?? ['filter'], { context, nesting: 0, relationDepth: 0 });
}

function invalid(message: string, path: ErrorPath): AppError {
  return new AppError('VALIDATION_FAILED', message, { path });
}

function allOf(children: FilterNode[]): FilterNode {
  return children.length === 1 && children[0] ? children[0] : { kind: 'and', children };
}

function resolveGroup(filter: unknown, fields: FieldMap, path: ErrorPath, walk: Walk): FilterNode {
  if (!isPlainObject(filter)) throw invalid('A filter must be an object', path);
  if (walk.nesting > MAX_FILTER_NESTING) throw invalid(`Filter is nested deeper than ${MAX_FILTER_NESTING} levels`, path);
  const deeper = { ...walk, nesting: walk.nesting + 1 };
  const children = Object.entries(filter).map(([key, value]): FilterNode => {
    const keyPath = [...path, key];
    if (key === '_and' || key === '_or') {
      if (!Array.isArray(value)) throw invalid(`"${key}" expects an array of filters`, keyPath);
      const members = value.map((member, index) => resolveGroup(member, fields, [...keyPath, index], deeper));
      return { kind: key === '_and' ? 'and' : 'or', children: members };
    }
    if (key.startsWith('_')) {
      const hint = isComparisonOperator(key) ? `; put it under a field: { "field": { "${key}": value } }` : '';
      throw invalid(`Unknown filter key "${key}"${hint}`, keyPath);
    }
    return resolveFieldKey(key, value, fields, keyPath, deeper);
  });
  return allOf(children);
}

function resolveFieldKey(key: string, value: unknown, fields: FieldMap, path: ErrorPath, walk: Walk): FilterNode {
  const segments = key.split('.');
  const [name = '', ...jsonPath] = segments;
  const field = segments.every(isValidName) ? lookupField(fields, name) : undefined;
  if (!field) throw new AppError(walk.context.unknownFieldCode ?? 'VALIDATION_FAILED', `Unknown field "${segments.every(isValidName) ? name : key}"`, { path });
  const relation = STRUCTURAL_COLUMNS.has(name) ? undefined : field.relation;

  if (jsonPath.length > 0) {
    // `author.name` through a relation is shorthand for `{ author: { name: ... } }`.
    if (relation) return resolveRelation(field, relation, { [jsonPath.join('.')]: value }, path, walk);
    const base = pathBaseOf(field);
    if (kindOfField(base) !== 'json') throw invalid(`Field "${name}" is not a JSON field; "${key}" cannot reach into it`, path);
    if (jsonPath.length > MAX_JSON_PATH_DEPTH) throw invalid(`JSON path "${key}" is deeper than ${MAX_JSON_PATH_DEPTH}`, path);
    return resolveConditions({ field: base, kind: 'json', dateShape: null, jsonPath }, value, path, walk);
  }
  if (!relation) return resolveConditions(targetOf(field), value, path, walk);

  if (!isPlainObject(value)) throw invalid(`Field "${name}" needs an object of operators or related fields`, path);
  const operatorKeys = Object.keys(value).filter(isComparisonOperator);
  if (relation.kind !== 'm2o') {
    const [first] = operatorKeys;
    if (first) throw invalid(`Field "${name}" is a to-many relation; filter on the related fields instead`, [...path, first]);
    return resolveRelation(field, relation, value, path, walk);
  }
  // An m2o field is both a stored id (operators apply to it) and a door to the related item.
  const ownConditions = Object.fromEntries(Object.entries(value).filter(([key]) => isComparisonOperator(key)));
  const related = Object.fromEntries(Object.entries(value).filter(([key]) => !isComparisonOperator(key)));
  const nodes: FilterNode[] = [];
  if (operatorKeys.length > 0) nodes.push(resolveConditions(targetOf(field), ownConditions, path, walk));
  if (Object.keys(related).length > 0 || operatorKeys.length === 0) {
    nodes.push(resolveRelation(field, relation, related, path, walk));
  }
  return allOf(nodes);
}

function targetOf(field: FieldDefinition): FilterTarget {
  return { field, kind: kindOfField(field), dateShape: dateShapeOf(field.type), jsonPath: null };
}

function resolveRelation(field: FieldDefinition, relation: FieldRelation, filter: unknown, path: ErrorPath, walk: Walk): FilterNode {
  if (walk.relationDepth >= MAX_RELATION_DEPTH) {
    throw invalid(`Relational filters may nest at most ${MAX_RELATION_DEPTH} relations deep`, path);
  }
  const relatedFields = walk.context.resolveFields?.(relation.relatedCollection);
  if (!relatedFields) {
    throw new AppError(walk.context.unknownFieldCode ?? 'VALIDATION_FAILED', `Cannot filter through "${field.field}": its related collection is unknown`, { path });
  }
  const toOne = relation.kind === 'm2o';
  if (!toOne && !relation.relatedField) {
    throw invalid(`Cannot filter through "${field.field}": the relation names no field on the related side`, path);
  }
  const child = resolveGroup(filter, relatedFields, path, { ...walk, relationDepth: walk.relationDepth + 1 });
  return {
    kind: 'relation',
    direction: toOne ? 'toOne' : 'toMany',
    field,
    collection: relation.relatedCollection,
    relatedField: toOne ? null : (relation.relatedField ?? null),
    child,
  };
}

function resolveConditions(target: FilterTarget, operators: unknown, path: ErrorPath, walk: Walk): FilterNode {
  if (!isPlainObject(operators)) {
    throw invalid(`Field "${target.field.field}" needs an object of operators, e.g. { "_eq": value }`, path);
  }
  const nodes = Object.entries(operators).map(([operator, value]) =>
    resolveCondition(target, operator, value, [...path, operator], walk.context),
  );
  return allOf(nodes);
}

const KIND_NAMES: Record<TargetKind, string> = {
  text: 'text',
  numeric: 'numeric',
  boolean: 'boolean',
  dateText: 'date',
  timestamptz: 'date',
  json: 'JSON',
  jsonPath: 'JSON path',
};

function resolveCondition(target: FilterTarget, operator: string, raw: unknown, path: ErrorPath, context: FilterContext): FilterNode {
  if (!isComparisonOperator(operator)) throw invalid(`Unknown operator "${operator}"`, path);
  const kind: TargetKind = target.jsonPath ? 'jsonPath' : target.kind;
  if (!operatorFits(operator, kind, target.field.type)) {
    const what = target.field.type === 'hash' ? 'the hash' : KIND_NAMES[kind];
    throw invalid(`Operator "${operator}" does not apply to ${what} field "${target.field.field}"`, path);
  }
  if (target.field.sealed && operator !== '_null' && operator !== '_nnull' && !context.sealedComparable) {
    throw invalid(`"${target.field.field}" is a pii/phi field: its values are sealed, so only _null and _nnull filter it`, path);
  }
  const column = target.field.column;
  if (column && !column.operators.includes(operator)) {
    throw invalid(`Operator "${operator}" is not allowed on "${target.field.field}"; it takes ${column.operators.join(', ')}`, path);
  }
  return conditionFor(target, operator, raw, path, context);
}

function conditionFor(target: FilterTarget, operator: ComparisonOperator, raw: unknown, path: ErrorPath, context: FilterContext): FilterNode {
  switch (operator) {
    case '_eq':
    case '_neq': {
      const { value, fromVariable } = resolveDynamicValue(raw, context, path);
      if (value === null) {
        // A literal null asks for "is null"; a variable that resolves to nothing (no user) matches nothing.
        if (operator === '_neq') return { kind: 'isNull', target, isNull: false };
        return fromVariable ? FALSE : { kind: 'isNull', target, isNull: true };
      }
      return { kind: 'compare', target, operator, value: comparable(value, target, path) };
    }
    case '_lt':
    case '_lte':
    case '_gt':
    case '_gte': {
      const { value, fromVariable } = resolveDynamicValue(raw, context, path);
      if (value === null) {
        if (fromVariable) return FALSE;
        throw invalidValue(`Operator "${operator}" needs a value`, path);
      }
      return { kind: 'compare', target, operator, value: coerceScalar(value, target, path) };
    }
    case '_in':
    case '_nin':
      return listCondition(target, operator === '_nin', raw, path, context);
    case '_between':
      return betweenCondition(target, raw, path, context);
    case '_null':
    case '_nnull': {
      const wanted = raw === true || raw === 'true' ? true : raw === false || raw === 'false' ? false : null;
      if (wanted === null) throw invalidValue(`Operator "${operator}" expects true or false`, path);
      return { kind: 'isNull', target, isNull: operator === '_null' ? wanted : !wanted };
    }
    case '_contains':
    case '_icontains':
    case '_starts_with':
    case '_ends_with': {
      const { value, fromVariable } = resolveDynamicValue(raw, context, path);
      if (value === null && fromVariable) return FALSE;
      const mode = ({ _contains: 'contains', _icontains: 'icontains', _starts_with: 'startsWith', _ends_with: 'endsWith' } as const)[operator];
      return { kind: 'like', target, mode, value: coerceText(value, path, `Operator "${operator}" expects text`) };
    }
    case '_json_contains':
      assertJsonValue(raw, path);
      return { kind: 'jsonContains', target, value: raw };
    case '_has_key':
      return { kind: 'hasKeys', target, mode: 'one', keys: [coerceText(raw, path, '"_has_key" expects a key name')] };
    case '_has_any_keys':
    case '_has_all_keys': {
      if (!Array.isArray(raw)) throw invalidValue(`Operator "${operator}" expects an array of key names`, path);
      const keys = raw.map((key, index) => coerceText(key, [...path, index], 'Key names must be text'));
      return { kind: 'hasKeys', target, mode: operator === '_has_any_keys' ? 'any' : 'all', keys };
    }
  }
}

/** A value for `=`: JSON targets take any JSON value, the rest their field's scalar form. */
function comparable(value: unknown, target: FilterTarget, path: ErrorPath): FilterScalar {
  if (target.kind === 'json') {
    assertJsonValue(value, path);
    return value as FilterScalar;
  }
  return coerceScalar(value, target, path);
}

function listCondition(target: FilterTarget, negated: boolean, raw: unknown, path: ErrorPath, context: FilterContext): FilterNode {
  if (!Array.isArray(raw)) throw invalidValue(`Operator "${negated ? '_nin' : '_in'}" expects an array`, path);
  const values: FilterScalar[] = [];
  let includesNull = false;
  raw.forEach((element, index) => {
    const elementPath = [...path, index];
    const { value, fromVariable } = resolveDynamicValue(element, context, elementPath);
    if (value === null) includesNull ||= !fromVariable;
    else values.push(comparable(value, target, elementPath));
  });
  return { kind: 'in', target, negated, values, includesNull };
}

function betweenCondition(target: FilterTarget, raw: unknown, path: ErrorPath, context: FilterContext): FilterNode {
  if (!Array.isArray(raw) || raw.length !== 2) throw invalidValue('Operator "_between" expects two values [from, to]', path);
  const bounds: (string | number | boolean)[] = [];
  for (const [index, element] of raw.entries()) {
    const { value, fromVariable } = resolveDynamicValue(element, context, [...path, index]);
    if (value === null) {
      if (fromVariable) return FALSE;
      throw invalidValue('Operator "_between" needs two non-null values', [...path, index]);
    }
    bounds.push(coerceScalar(value, target, [...path, index]));
  }
  const [low, high] = bounds as [string | number | boolean, string | number | boolean];
  if (typeof low !== typeof high) throw invalidValue('Both "_between" values must be numbers, or both text', path);
  return { kind: 'between', target, low, high };
}
