// Turns `fields=title,author.name,comments.*` into a tree per collection level, so the items module
// loads the fields of one level and then each relation with one query per level. The item field of
// an m2a junction expands per target collection: `blocks.item.title` in every allowed collection that
// has `title`, `blocks.item:headings.title` in `headings` only (Directus' scoped syntax).
import { AppError } from '../../domain/shared/appError.ts';
import { STRUCTURAL_COLUMNS, isToManyField, isValidName, lookupField } from './fieldExpressions.ts';
import type { AnyItemReference, FieldMap, RelationKind, ResolveFields } from './types.ts';

export interface FieldSelection {
  /** Fields of this level to return as stored (an m2o named alone returns its id). */
  local: string[];
  /** Relations to load, by field name. */
  relations: Map<string, RelationSelection>;
  /** m2a junction item fields to expand, by field name. */
  anyItems: Map<string, AnyItemSelection>;
}

export interface AnyItemSelection extends AnyItemReference {
  field: string;
  /**
   * What to read of the items of each allowed collection that has selected fields. A row pointing at
   * another allowed collection keeps the bare id; a row pointing at a collection that is not (or no
   * longer) allowed reads null.
   */
  targets: Map<string, FieldSelection>;
}

export interface RelationSelection {
  field: string;
  kind: RelationKind;
  /** m2o: the collection pointed at. to-many: the collection whose rows point back. */
  collection: string;
  /** to-many: the field on `collection` holding this item's id. */
  relatedField: string | null;
  /** A to-many relation named without sub-fields returns just the related ids. */
  idsOnly: boolean;
  selection: FieldSelection;
}

/** Relation levels a selection may nest: as deep as a GraphQL query may go (depth 12), each level one batched read. */
export const MAX_SELECTION_DEPTH = 12;

/** `fields` null means `*`. Unknown fields give 400 with path `['fields']`. */
export function parseFieldSelection(fields: readonly string[] | null, collection: string, resolveFields: ResolveFields): FieldSelection {
  const ownFields = resolveFields(collection);
  if (!ownFields) throw invalid(`Unknown collection "${collection}"`);
  return selectLevel(fields ?? ['*'], ownFields, resolveFields, '', 0);
}

function selectLevel(paths: readonly string[], fields: FieldMap, resolveFields: ResolveFields, prefix: string, depth: number): FieldSelection {
  const local = new Set<string>();
  const nested = new Map<string, string[]>();
  const namedAlone = new Set<string>();
  const anyNested = new Map<string, ScopedPath[]>();

  const addField = (segment: string, rest: string | null) => {
    const [name, scope = null] = segment.split(':') as [string, string?];
    const field = lookupField(fields, name);
    if (!field) throw invalid(`Unknown field "${prefix}${name}"`);
    const relation = STRUCTURAL_COLUMNS.has(name) ? undefined : field.relation;
    const anyItem = STRUCTURAL_COLUMNS.has(name) ? undefined : field.anyItem;
    if (scope !== null) {
      if (!anyItem) throw invalid(`"${prefix}${name}" is not the item field of a many-to-any relation, so "${prefix}${segment}" cannot be selected`);
      checkScope(anyItem, scope, `${prefix}${segment}`, resolveFields);
      if (rest === null) throw invalid(`Select fields of "${prefix}${segment}", e.g. "${prefix}${segment}.*"`);
    }
    if (rest === null) {
      if (isToManyField(field)) namedAlone.add(name);
      else local.add(name);
      return;
    }
    if (anyItem) {
      anyNested.set(name, [...(anyNested.get(name) ?? []), { scope, rest }]);
      return;
    }
    if (!relation) throw invalid(`Field "${prefix}${name}" is not a relation, so "${prefix}${name}.${rest}" cannot be selected`);
    nested.set(name, [...(nested.get(name) ?? []), rest]);
  };

  for (const path of paths) {
    const dot = path.indexOf('.');
    const head = dot === -1 ? path : path.slice(0, dot);
    const rest = dot === -1 ? null : path.slice(dot + 1);
    if (head === '*') {
      if (rest !== null) throw invalid(`"*" must be the last part of "${prefix}${path}"`);
      for (const name of STRUCTURAL_COLUMNS.keys()) local.add(name);
      for (const name of fields.keys()) if (isValidName(name)) addField(name, null);
      continue;
    }
    if (!SEGMENT_PATTERN.test(head)) throw invalid(`Invalid field "${prefix}${path}"`);
    addField(head, rest);
  }

  const relations = new Map<string, RelationSelection>();
  for (const name of new Set([...nested.keys(), ...namedAlone])) {
    const field = lookupField(fields, name);
    const relation = field?.relation;
    if (!field || !relation) continue;
    const subPaths = nested.get(name);
    if (subPaths && depth + 1 >= MAX_SELECTION_DEPTH) throw tooDeep();
    const relatedFields = resolveFields(relation.relatedCollection);
    if (!relatedFields) throw invalid(`Field "${prefix}${name}" points at an unknown collection`);
    const toOne = relation.kind === 'm2o';
    const selection = subPaths
      ? selectLevel(subPaths, relatedFields, resolveFields, `${prefix}${name}.`, depth + 1)
      : { local: ['id'], relations: new Map<string, RelationSelection>(), anyItems: new Map<string, AnyItemSelection>() };
    if (toOne) local.delete(name);
    relations.set(name, {
      field: name,
      kind: relation.kind,
      collection: relation.relatedCollection,
      relatedField: toOne ? null : (relation.relatedField ?? null),
      idsOnly: !subPaths,
      selection,
    });
  }

  const anyItems = new Map<string, AnyItemSelection>();
  for (const [name, scopedPaths] of anyNested) {
    const anyItem = lookupField(fields, name)!.anyItem!;
    if (depth + 1 >= MAX_SELECTION_DEPTH) throw tooDeep();
    anyItems.set(name, { field: name, ...anyItem, targets: selectTargets(anyItem, scopedPaths, resolveFields, `${prefix}${name}`, depth + 1) });
    local.delete(name);
  }
  return { local: [...local], relations, anyItems };
}

/** One path below an m2a item field: `item:<scope>.<rest>`, or `item.<rest>` (scope null) for every allowed collection that has its first field. */
interface ScopedPath {
  scope: string | null;
  rest: string;
}

const SEGMENT_PATTERN = /^[A-Za-z0-9_]+(?::[A-Za-z0-9_]+)?$/;

function checkScope(anyItem: AnyItemReference, scope: string, path: string, resolveFields: ResolveFields): void {
  if (!isValidName(scope) || !resolveFields(scope)) throw invalid(`Unknown collection "${scope}" in "${path}"`);
  if (!anyItem.allowedCollections.includes(scope)) {
    throw invalid(`"${path}" names a collection the relation does not allow (allowed: ${anyItem.allowedCollections.join(', ')})`);
  }
}

/** Per allowed collection, the selection of its items: its scoped paths plus the unscoped paths whose first field it has. */
function selectTargets(anyItem: AnyItemReference, paths: readonly ScopedPath[], resolveFields: ResolveFields, fieldPath: string, depth: number): Map<string, FieldSelection> {
  const targets = new Map<string, FieldSelection>();
  const unscopedUsed = new Set<string>();
  for (const collection of anyItem.allowedCollections) {
    const targetFields = resolveFields(collection);
    if (!targetFields) continue;
    const selected: string[] = [];
    for (const { scope, rest } of paths) {
      if (scope === collection) selected.push(rest);
      if (scope === null && appliesTo(rest, targetFields)) {
        selected.push(rest);
        unscopedUsed.add(rest);
      }
    }
    if (selected.length > 0) targets.set(collection, selectLevel(selected, targetFields, resolveFields, `${fieldPath}:${collection}.`, depth));
  }
  const unknown = paths.find(({ scope, rest }) => scope === null && !unscopedUsed.has(rest));
  if (unknown) {
    const head = unknown.rest.split('.')[0]!.split(':')[0]!;
    throw invalid(`Unknown field "${fieldPath}.${unknown.rest}": no collection "${fieldPath}" may point at (${anyItem.allowedCollections.join(', ')}) has "${head}"`);
  }
  return targets;
}

function appliesTo(path: string, fields: FieldMap): boolean {
  const head = path.split('.')[0]!.split(':')[0]!;
  return head === '*' || lookupField(fields, head) !== undefined;
}

function tooDeep(): AppError {
  return invalid(`Field selections nest at most ${MAX_SELECTION_DEPTH} levels deep`);
}

function invalid(message: string): AppError {
  return new AppError('VALIDATION_FAILED', message, { path: ['fields'] });
}
