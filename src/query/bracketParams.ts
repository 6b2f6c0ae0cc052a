// Reads bracket-form query parameters (`filter[_and][0][status][_eq]=x`) into a nested object.
// Keys arrive flat from the querystring parser; already-nested objects are accepted too.
import { AppError } from '../../domain/shared/appError.ts';
import { MAX_JSON_DEPTH } from '../../domain/shared/jsonDepth.ts';
import { isPlainObject } from './coerceValue.ts';

/** A nested parameter object whose leaves are the raw strings (several when a key repeats). */
export type BracketTree = { [key: string]: BracketTree | string | string[] };

const FORBIDDEN_SEGMENTS: ReadonlySet<string> = new Set(['__proto__', 'prototype', 'constructor']);

/** The segments of `name[a][b]`, or null when the key is malformed (such keys are ignored). */
export function parseBracketKey(key: string, name: string): string[] | null {
  if (!key.startsWith(`${name}[`)) return null;
  const rest = key.slice(name.length);
  if (!/^(\[[^[\]]*\])+$/.test(rest)) return null;
  const segments = rest.slice(1, -1).split('][');
  // A trailing `[]` only says "this repeats"; repeated keys already collect into a list.
  if (segments.length > 1 && segments.at(-1) === '') segments.pop();
  if (segments.some((segment) => segment === '' || FORBIDDEN_SEGMENTS.has(segment))) return null;
  return segments;
}

/** Collects `name[...]` keys of `query` (and `query[name]` if it is already an object); null if none. */
export function collectBracketParams(query: Record<string, unknown>, name: string): BracketTree | null {
  const tree: BracketTree = {};
  let found = false;
  const nested = query[name];
  if (isPlainObject(nested)) {
    for (const [segments, value] of flattenNested(nested, [])) found = insert(tree, segments, value) || found;
  }
  for (const [key, value] of Object.entries(query)) {
    const segments = parseBracketKey(key, name);
    if (segments && segments.length > MAX_JSON_DEPTH) {
      throw new AppError('VALIDATION', `${name} nests deeper than ${MAX_JSON_DEPTH} levels`, { path: [name] });
    }
    if (segments) found = insert(tree, segments, value) || found;
  }
  return found ? tree : null;
}

function flattenNested(value: Record<string, unknown>, prefix: string[]): [string[], unknown][] {
  return Object.entries(value).flatMap(([key, child]): [string[], unknown][] => {
    if (FORBIDDEN_SEGMENTS.has(key) || key === '') return [];
    return isPlainObject(child) ? flattenNested(child, [...prefix, key]) : [[[...prefix, key], child]];
  });
}

function insert(tree: BracketTree, segments: string[], value: unknown): boolean {
  const leaf = leafOf(value);
  if (leaf === null) return false;
  let node = tree;
  for (const segment of segments.slice(0, -1)) {
    const existing = Object.hasOwn(node, segment) ? node[segment] : undefined;
    if (existing === undefined) {
      const child: BracketTree = {};
      node[segment] = child;
      node = child;
    } else if (typeof existing === 'string' || Array.isArray(existing)) {
      return false; // `a=x` and `a[b]=y` together: the deeper key is malformed
    } else {
      node = existing;
    }
  }
  const last = segments.at(-1) ?? '';
  const existing = Object.hasOwn(node, last) ? node[last] : undefined;
  if (existing !== undefined && !(typeof existing === 'string' || Array.isArray(existing))) return false;
  node[last] = existing === undefined ? leaf : [...[existing].flat(), ...[leaf].flat()];
  return true;
}

function leafOf(value: unknown): string | string[] | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((element) => typeof element === 'string')) return value as string[];
  return null;
}

/** Coerces one bracket-form value: true/false, null, clean numbers; anything else stays text. */
export function coerceBracketScalar(text: string): string | number | boolean | null {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  // "Clean" means the number prints back as the same text: `007`, `1.50`, `1e3` and huge integers stay text.
  if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(text) && String(Number(text)) === text) return Number(text);
  return text;
}

/** The last value of a parameter that may have repeated. */
export function lastValue(value: string | string[]): string {
  return typeof value === 'string' ? value : (value.at(-1) ?? '');
}
