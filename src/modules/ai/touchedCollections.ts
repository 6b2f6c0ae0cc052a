// The collections a skill call reaches (docs/agents.md "The gate"): the one it names, every one a
// search covers, and those its field paths cross through relations (`author.email` in `fields`,
// `sort` or `filter`), so that an agent role's collections and the constitution's `on <collection>`
// rules hold for what the call reads, not only for the collection it names.
import type { SiteSchema } from '../../schema/siteSchema.ts';

/** `all`: the call may reach any collection of the site (a search over every collection, a relation to any collection). */
export type TouchedCollections = readonly string[] | 'all';

/** The longest relation chain followed (the query language's own paths are shorter). */
const MAX_PATH_SEGMENTS = 16;
/** The most filter nodes walked: a skill's filter is checked by the query compiler later; this only bounds the walk. */
const MAX_FILTER_NODES = 2_000;

function pathsOfFilter(filter: unknown, prefix: string[], paths: string[][], budget: { nodes: number }): void {
  if (budget.nodes-- <= 0 || typeof filter !== 'object' || filter === null) return;
  if (Array.isArray(filter)) {
    for (const entry of filter) pathsOfFilter(entry, prefix, paths, budget);
    return;
  }
  for (const [key, value] of Object.entries(filter)) {
    if (key.startsWith('_')) {
      pathsOfFilter(value, prefix, paths, budget);
      continue;
    }
    const path = [...prefix, ...key.split('.')];
    paths.push(path);
    pathsOfFilter(value, path, paths, budget);
  }
}

/** Each collection a path crosses from `start`; `all` when one leads to any collection (m2a). */
function followPath(schema: SiteSchema, start: string, path: readonly string[], into: Set<string>): boolean {
  let current = start;
  for (const segment of path.slice(0, MAX_PATH_SEGMENTS)) {
    const field = schema.resolveFields(current)?.get(segment);
    if (!field) return true;
    if (field.anyItem || field.relation?.kind === 'm2a') return false;
    if (!field.relation) return true;
    current = field.relation.relatedCollection;
    into.add(current);
  }
  return true;
}

export function touchedCollections(schema: SiteSchema, skill: string, input: Record<string, unknown>): TouchedCollections {
  if (skill === 'items.search') {
    const named = input.collections;
    return Array.isArray(named) ? named.filter((name): name is string => typeof name === 'string') : 'all';
  }
  if (typeof input.collection !== 'string') return [];
  const collection = input.collection;
  const paths: string[][] = [];
  for (const key of ['fields', 'sort'] as const) {
    const list = input[key];
    if (Array.isArray(list)) for (const entry of list) if (typeof entry === 'string') paths.push(entry.replace(/^-/, '').split('.'));
  }
  pathsOfFilter(input.filter, [], paths, { nodes: MAX_FILTER_NODES });
  const touched = new Set([collection]);
  for (const path of paths) {
    if (!followPath(schema, collection, path, touched)) return 'all';
  }
  return [...touched];
}
