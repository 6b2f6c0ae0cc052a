// Reads the `filter` parameter in either form: JSON (`filter={"title":{"_eq":"x"}}`) or brackets
// (`filter[title][_eq]=x`, values coerced). The JSON form wins when both are given.
import { AppError } from '../../domain/shared/appError.ts';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../../domain/shared/jsonDepth.ts';
import { collectBracketParams, coerceBracketScalar, lastValue, type BracketTree } from './bracketParams.ts';
import { isPlainObject } from './coerceValue.ts';
import { ARRAY_OPERATORS, type ErrorPath, type FilterTree } from './types.ts';

export function parseFilterParam(query: Record<string, unknown>, name = 'filter', path: ErrorPath = [name]): FilterTree | null {
  const direct = query[name];
  const jsonText = typeof direct === 'string' ? direct : Array.isArray(direct) && direct.length > 0 ? direct.at(-1) : undefined;
  if (typeof jsonText === 'string' && jsonText.trim() !== '') return parseJsonFilter(jsonText, path);
  const tree = collectBracketParams(query, name);
  return tree ? coerceBracketFilter(tree) : null;
}

export function parseJsonFilter(text: string, path: ErrorPath = ['filter']): FilterTree {
  if (jsonNestsDeeperThan(text)) throw new AppError('VALIDATION', `The filter nests deeper than ${MAX_JSON_DEPTH} levels`, { path });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AppError('VALIDATION', 'The filter is not valid JSON', { path });
  }
  if (!isPlainObject(parsed)) throw new AppError('VALIDATION', 'The filter must be a JSON object', { path });
  return parsed;
}

/** Bracket values are text; give them their JSON types and turn index objects (`[0]`, `[1]`) into arrays. */
export function coerceBracketFilter(tree: BracketTree): FilterTree {
  return coerceNode(tree, null) as FilterTree;
}

function coerceNode(node: BracketTree | string | string[], key: string | null): unknown {
  if (typeof node === 'string' || Array.isArray(node)) return coerceLeaf(node, key);
  const entries = Object.entries(node);
  if (entries.length > 0 && entries.every(([index]) => /^\d+$/.test(index))) {
    return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, child]) => coerceNode(child, null));
  }
  return Object.fromEntries(entries.map(([childKey, child]) => [childKey, coerceNode(child, childKey)]));
}

function coerceLeaf(value: string | string[], key: string | null): unknown {
  if (key !== null && ARRAY_OPERATORS.has(key)) {
    const parts = [value].flat().flatMap((text) => (text === '' ? [] : text.split(',')));
    return parts.map(coerceBracketScalar);
  }
  const text = lastValue(value);
  if (key === '_json_contains') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return coerceBracketScalar(text);
    }
  }
  return coerceBracketScalar(text);
}
