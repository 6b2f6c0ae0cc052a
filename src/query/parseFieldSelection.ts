// Turns `fields=title,author.name,comments.*` into a tree per collection level, so the items module
// loads the fields of one level and then each relation with one query per level.
import { AppError } from '../../domain/shared/appError.ts';
import { STRUCTURAL_COLUMNS, isToManyField, isValidName, lookupField } from './fieldExpressions.ts';
import type { FieldMap, RelationKind, ResolveFields } from './types.ts';

export interface FieldSelection {
  /** Fields of this level to return as stored (an m2o named alone returns its id). */
  local: string[];
  /** Relations to load, by field name. */
  relations: Map<string, RelationSelection>;
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

export const MAX_SELECTION_DEPTH = 6;

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

  const addField = (name: string, rest: string | null) => {
    const field = lookupField(fields, name);
    if (!field) throw invalid(`Unknown field "${prefix}${name}"`);
    const relation = STRUCTURAL_COLUMNS.has(name) ? undefined : field.relation;
    if (rest === null) {
      if (isToManyField(field)) namedAlone.add(name);
      else local.add(name);
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
    if (!isValidName(head)) throw invalid(`Invalid field "${prefix}${path}"`);
    addField(head, rest);
  }

  const relations = new Map<string, RelationSelection>();
  for (const name of new Set([...nested.keys(), ...namedAlone])) {
    const field = lookupField(fields, name);
    const relation = field?.relation;
    if (!field || !relation) continue;
    const subPaths = nested.get(name);
    if (subPaths && depth + 1 >= MAX_SELECTION_DEPTH) throw invalid(`Field selections nest at most ${MAX_SELECTION_DEPTH} levels deep`);
    const relatedFields = resolveFields(relation.relatedCollection);
    if (!relatedFields) throw invalid(`Field "${prefix}${name}" points at an unknown collection`);
    const toOne = relation.kind === 'm2o';
    const selection = subPaths
      ? selectLevel(subPaths, relatedFields, resolveFields, `${prefix}${name}.`, depth + 1)
      : { local: ['id'], relations: new Map<string, RelationSelection>() };
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
  return { local: [...local], relations };
}

function invalid(message: string): AppError {
  return new AppError('VALIDATION_FAILED', 400, message, { path: ['fields'] });
}
