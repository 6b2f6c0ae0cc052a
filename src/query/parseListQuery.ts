// Reads the list parameters of a querystring (fields, filter, sort, nulls, limit, offset, page, meta,
// aggregate, groupBy, deep, search) and checks their syntax; fields are checked against the
// collection later, when the query is compiled.
import { AppError } from '../../domain/shared/appError.ts';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../../domain/shared/jsonDepth.ts';
import { collectBracketParams, lastValue, type BracketTree } from './bracketParams.ts';
import { isPlainObject } from './coerceValue.ts';
import { coerceBracketFilter, parseFilterParam, parseJsonFilter } from './parseFilter.ts';
import { AGGREGATE_FUNCTIONS, NULLS_PLACEMENTS, type AggregateFunction, type AggregateSpec, type DeepQuery, type ErrorPath, type ListQuery, type NullsPlacement, type SortSpec } from './types.ts';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 200;
const MAX_DEEP_NESTING = 6;

// A segment may name the target collection of an m2a item field: `blocks.item:headings.title`.
const FIELD_PATH = /^(\*|[A-Za-z0-9_]+(:[A-Za-z0-9_]+)?(\.[A-Za-z0-9_]+(:[A-Za-z0-9_]+)?)*(\.\*)?)$/;
const SORT_TERM = /^-?[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;
const FIELD_NAME = /^[A-Za-z0-9_]+$/;
// A deep key names a relation, or the target collection of an m2a item field: `deep[blocks][item:headings]`.
const DEEP_KEY = /^[A-Za-z0-9_]+(:[A-Za-z0-9_]+)?$/;

function invalid(message: string, path: ErrorPath): AppError {
  return new AppError('VALIDATION_FAILED', message, { path });
}

export function parseListQuery(query: Record<string, unknown>): ListQuery {
  const limit = parseInteger(scalarParam(query, 'limit'), ['limit'], 1, MAX_LIMIT) ?? DEFAULT_LIMIT;
  const page = parseInteger(scalarParam(query, 'page'), ['page'], 1);
  const offset = page !== null ? (page - 1) * limit : (parseInteger(scalarParam(query, 'offset'), ['offset'], 0) ?? 0);
  return {
    fields: parseFieldList(listParam(query, 'fields'), ['fields']),
    filter: parseFilterParam(query),
    sort: parseSortList(listParam(query, 'sort'), ['sort'], parseNulls(scalarParam(query, 'nulls'), ['nulls'])),
    limit,
    offset,
    page,
    meta: parseMeta(scalarParam(query, 'meta')),
    aggregate: parseAggregate(query),
    groupBy: parseGroupBy(listParam(query, 'groupBy')),
    deep: parseDeep(query),
    search: scalarParam(query, 'search')?.trim() || null,
  };
}

/** A single-valued parameter (the last one when it repeats); null when absent or empty. */
function scalarParam(query: Record<string, unknown>, name: string): string | null {
  const value = query[name];
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value === '' ? null : value;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value) && value.every((element) => typeof element === 'string')) return value.at(-1) || null;
  throw invalid(`"${name}" must be a single value`, [name]);
}

/** A comma list, also given as repeated keys or `name[]`; null when absent. */
function listParam(query: Record<string, unknown>, name: string): string[] | null {
  const values = [query[name], query[`${name}[]`]].filter((value) => value !== undefined && value !== null);
  if (values.length === 0) return null;
  const texts = values.flat();
  if (!texts.every((text) => typeof text === 'string')) throw invalid(`"${name}" must be a comma-separated list`, [name]);
  return splitList(texts as string[]);
}

function splitList(texts: string[]): string[] {
  return texts.flatMap((text) => text.split(',')).map((part) => part.trim()).filter((part) => part !== '');
}

function parseInteger(text: string | null, path: ErrorPath, min: number, max = Number.MAX_SAFE_INTEGER): number | null {
  if (text === null) return null;
  const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
    throw invalid(`"${String(path.at(-1))}" must be an integer ${range}`, path);
  }
  return value;
}

function parseMeta(text: string | null): ListQuery['meta'] {
  if (text === null || text === 'total_count') return 'total_count';
  if (text === 'none') return 'none';
  throw invalid('"meta" must be total_count or none', ['meta']);
}

export function parseFieldList(list: string[] | null, path: ErrorPath): string[] | null {
  if (list === null) return null;
  for (const field of list) if (!FIELD_PATH.test(field)) throw invalid(`Invalid field "${field}"`, path);
  return list;
}

/** `nulls`: where every term puts items without a value (absent: last, compileSort's default). */
export function parseSortList(list: string[] | null, path: ErrorPath, nulls: NullsPlacement | null = null): SortSpec[] {
  return (list ?? []).map((term) => {
    if (!SORT_TERM.test(term)) throw invalid(`Invalid sort term "${term}"`, path);
    const spec: SortSpec = term.startsWith('-') ? { field: term.slice(1), direction: 'desc' } : { field: term, direction: 'asc' };
    return nulls ? { ...spec, nulls } : spec;
  });
}

/** `nulls=first|last`; null when absent. */
export function parseNulls(text: string | null, path: ErrorPath): NullsPlacement | null {
  if (text === null) return null;
  if ((NULLS_PLACEMENTS as readonly string[]).includes(text)) return text as NullsPlacement;
  throw invalid(`"${String(path.at(-1))}" must be first or last`, path);
}

function parseGroupBy(list: string[] | null): string[] {
  for (const field of list ?? []) if (!FIELD_NAME.test(field)) throw invalid(`Invalid groupBy field "${field}"`, ['groupBy']);
  return list ?? [];
}

function parseAggregate(query: Record<string, unknown>): AggregateSpec | null {
  const json = typeof query.aggregate === 'string' ? query.aggregate : null;
  const source = json !== null ? parseJsonObject(json, ['aggregate']) : collectBracketParams(query, 'aggregate');
  if (!source) return null;
  const spec: AggregateSpec = {};
  for (const [fn, value] of Object.entries(source)) {
    const path = ['aggregate', fn];
    if (!(AGGREGATE_FUNCTIONS as readonly string[]).includes(fn)) throw invalid(`Unknown aggregate function "${fn}"`, path);
    const texts = [value].flat();
    if (!texts.every((text) => typeof text === 'string')) throw invalid(`"aggregate[${fn}]" must be a comma-separated list`, path);
    const names = splitList(texts as string[]);
    for (const name of names) if (name !== '*' && !FIELD_NAME.test(name)) throw invalid(`Invalid aggregate field "${name}"`, path);
    spec[fn as AggregateFunction] = [...(spec[fn as AggregateFunction] ?? []), ...names];
  }
  return spec;
}

function parseJsonObject(text: string, path: ErrorPath): Record<string, unknown> {
  if (jsonNestsDeeperThan(text)) throw invalid(`"${path.join('.')}" nests deeper than ${MAX_JSON_DEPTH} levels`, path);
  try {
    const parsed: unknown = JSON.parse(text);
    if (isPlainObject(parsed)) return parsed;
  } catch {
    // fall through to the error below
  }
  throw invalid(`"${path.join('.')}" must be a JSON object or bracket parameters`, path);
}

const DEEP_PARAMS: ReadonlySet<string> = new Set(['fields', 'filter', 'sort', 'nulls', 'limit', 'offset', 'page']);

function parseDeep(query: Record<string, unknown>): Record<string, DeepQuery> {
  const json = typeof query.deep === 'string' ? query.deep : null;
  const tree = json !== null ? parseJsonObject(json, ['deep']) : collectBracketParams(query, 'deep');
  return tree ? deepRelations(tree, ['deep'], 0, json !== null) : {};
}

/** `fromJson`: the JSON form, whose filters are typed already; bracket filters are coerced. */
function deepRelations(tree: Record<string, unknown>, path: ErrorPath, nesting: number, fromJson: boolean): Record<string, DeepQuery> {
  if (nesting >= MAX_DEEP_NESTING) throw invalid(`"deep" nests at most ${MAX_DEEP_NESTING} relations`, path);
  const relations: Record<string, DeepQuery> = {};
  for (const [relation, params] of Object.entries(tree)) {
    if (!DEEP_KEY.test(relation) || relation === '__proto__' || !isPlainObject(params)) throw invalid(`Invalid deep relation "${relation}"`, [...path, relation]);
    relations[relation] = deepQuery(params, [...path, relation], nesting, fromJson);
  }
  return relations;
}

// Accepts `deep[author][limit]` and the underscored `deep[author][_limit]`; other keys are nested relations
// (or m2a targets, `item:headings`; which parameters a target takes is checked against the schema).
function deepQuery(params: Record<string, unknown>, path: ErrorPath, nesting: number, fromJson: boolean): DeepQuery {
  const query: DeepQuery = { fields: null, filter: null, sort: [], limit: null, offset: null, page: null, deep: {} };
  // Without a prototype, so that a `__proto__` key (JSON.parse makes it an own key) is a plain key, refused by deepRelations.
  const nested = Object.create(null) as Record<string, unknown>;
  let nulls: NullsPlacement | null = null;
  for (const [rawKey, value] of Object.entries(params)) {
    const key = rawKey.startsWith('_') ? rawKey.slice(1) : rawKey;
    const keyPath = [...path, rawKey];
    if (!DEEP_PARAMS.has(key)) {
      if (key === 'deep' && isPlainObject(value)) Object.assign(nested, value);
      else nested[rawKey] = value;
      continue;
    }
    if (key === 'filter') {
      if (!isPlainObject(value)) query.filter = parseJsonFilter(textOf(value, keyPath), keyPath);
      else query.filter = fromJson ? value : coerceBracketFilter(value as BracketTree);
      continue;
    }
    // A list takes every value given (`deep[a][fields]=x&deep[a][fields]=y`, or a JSON array), as the top-level `fields` does.
    if (key === 'fields') query.fields = parseFieldList(splitList(textsOf(value, keyPath)), keyPath);
    else if (key === 'sort') query.sort = parseSortList(splitList(textsOf(value, keyPath)), keyPath);
    else if (key === 'nulls') nulls = parseNulls(textOf(value, keyPath), keyPath);
    else {
      const text = textOf(value, keyPath);
      if (key === 'limit') query.limit = parseInteger(text, keyPath, 1, MAX_LIMIT);
      else if (key === 'offset') query.offset = parseInteger(text, keyPath, 0);
      else query.page = parseInteger(text, keyPath, 1);
    }
  }
  // `deep[rel][nulls]` places the nulls of that relation's own sort, whatever order the keys came in.
  if (nulls) query.sort = query.sort.map((term) => ({ ...term, nulls }));
  query.deep = Object.keys(nested).length > 0 ? deepRelations(nested, path, nesting + 1, fromJson) : {};
  return query;
}

function textsOf(value: unknown, path: ErrorPath): string[] {
  if (Array.isArray(value)) return value.map((element) => textOf(element, path));
  return [textOf(value, path)];
}

function textOf(value: unknown, path: ErrorPath): string {
  if (typeof value === 'string' || Array.isArray(value)) return lastValue(value as string | string[]);
  if (typeof value === 'number') return String(value);
  throw invalid('Expected a text value', path);
}
