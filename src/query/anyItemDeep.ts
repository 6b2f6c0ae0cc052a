// `deep` parameters of an m2a junction's item field, in the field syntax: `deep[blocks][item:headings]`
// scopes them to the targets of one collection, `deep[blocks][item]` (unscoped) applies them to every
// allowed collection that has each field its filter tests at the top level (as `blocks.item.title`
// applies to every allowed collection that has `title`). A target is a single item, so it takes
// `filter`, `fields` and nested relations, never `sort`, `limit`, `offset` or `page`.
import { isPlainObject } from './coerceValue.ts';
import { isValidName, lookupField } from './fieldExpressions.ts';
import { MAX_FILTER_NESTING } from './resolveFilter.ts';
import type { DeepQuery, ErrorPath, FieldMap, FilterTree } from './types.ts';

/** `item:headings` → field `item`, scope `headings`; `item` → scope null. */
export function splitDeepKey(key: string): { field: string; scope: string | null } {
  const colon = key.indexOf(':');
  return colon === -1 ? { field: key, scope: null } : { field: key.slice(0, colon), scope: key.slice(colon + 1) };
}

/** The list parameters a single target cannot take, if one is set (`sort` given empty counts as unset). */
export function listParamOf(query: DeepQuery): 'sort' | 'limit' | 'offset' | 'page' | null {
  if (query.sort.length > 0) return 'sort';
  if (query.limit !== null) return 'limit';
  if (query.offset !== null) return 'offset';
  if (query.page !== null) return 'page';
  return null;
}

/**
 * The fields a filter tests at its top level (also inside `_and`/`_or`): the first segment of each
 * field key (`author.name` tests `author`), with the key's path below the filter. Keys that are not
 * field names are left to the filter compiler, which refuses them.
 */
export function topLevelFilterFields(filter: FilterTree | null): { name: string; path: ErrorPath }[] {
  const found: { name: string; path: ErrorPath }[] = [];
  const walk = (node: unknown, path: ErrorPath, nesting: number) => {
    if (!isPlainObject(node) || nesting > MAX_FILTER_NESTING) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '_and' || key === '_or') {
        if (Array.isArray(value)) value.forEach((member, index) => walk(member, [...path, key, index], nesting + 1));
        continue;
      }
      const name = key.split('.')[0] ?? '';
      if (key.startsWith('_') || !isValidName(name)) continue;
      found.push({ name, path: [...path, key] });
    }
  };
  walk(filter, [], 0);
  return found;
}

/** Whether unscoped target parameters apply to a collection: it has every field their filter tests at the top level. */
export function unscopedDeepAppliesTo(query: DeepQuery, fields: FieldMap): boolean {
  return topLevelFilterFields(query.filter).every(({ name }) => lookupField(fields, name) !== undefined);
}
