// Compares the relations a schema bundle declares on a collection with the current ones. A bundle
// relation is the current relation with its id, or else the current one declared on the same field.
import { toRelationDefinition, type RelationInput } from './schemaInput.ts';
import type { RelationDefinition } from './schemaModel.ts';

export interface RelationDiff {
  added: RelationDefinition[];
  updated: { id: string; changes: Record<string, { from: unknown; to: unknown }> }[];
  removed: string[];
}

/** The bundle's relations as definitions, reusing current ids so that applying twice changes nothing. */
export function resolveBundleRelations(
  inputs: readonly RelationInput[],
  current: readonly RelationDefinition[],
  newId: () => string,
): RelationDefinition[] {
  const taken = new Set<string>();
  return inputs.map((input) => {
    const match = input.id ?? current.find((relation) => relation.field === input.field && relation.collection === input.collection && !taken.has(relation.id))?.id;
    const id = match ?? newId();
    taken.add(id);
    return toRelationDefinition(input, id);
  });
}

export function diffRelations(current: readonly RelationDefinition[], desired: readonly RelationDefinition[]): RelationDiff {
  const byId = new Map(current.map((relation) => [relation.id, relation]));
  const diff: RelationDiff = { added: [], updated: [], removed: [] };
  for (const relation of desired) {
    const existing = byId.get(relation.id);
    if (!existing) {
      diff.added.push(relation);
      continue;
    }
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const key of Object.keys(relation) as (keyof RelationDefinition)[]) {
      if (JSON.stringify(existing[key]) !== JSON.stringify(relation[key])) changes[key] = { from: existing[key], to: relation[key] };
    }
    if (Object.keys(changes).length > 0) diff.updated.push({ id: relation.id, changes });
  }
  const wanted = new Set(desired.map((relation) => relation.id));
  diff.removed = current.filter((relation) => !wanted.has(relation.id)).map((relation) => relation.id);
  return diff;
}
