// The relations part of an import plan. A manifest relation is the site's relation with its id, or
// else the one declared on the same field; the others are created. Relations are checked against the
// schema as it will be (the rules of POST /relations), and those of a deleted collection go with it
// as DELETE /collections/:name takes them.
import { checkRelationAgainstSchema, type SchemaView } from '../content/relationDecider.ts';
import { toRelationDefinition } from '../content/schemaInput.ts';
import { collectionsOf, orderedRelation, type RelationDefinition } from '../content/schemaModel.ts';
import { AppError } from '../shared/appError.ts';
import type { ConfigPlan, SiteConfiguration } from './configPlan.ts';
import type { Path } from './manifest.ts';
import type { Deletable, FinalSchema, RecordChange } from './planSchema.ts';
import type { ParsedManifest, ParsedRelation } from './readManifest.ts';

const keyOf = (relation: RelationDefinition) => `${relation.collection}.${relation.field}`;

function changesOf(before: RelationDefinition, after: RelationDefinition): Record<string, { from: unknown; to: unknown }> {
  const from = orderedRelation(before) as unknown as Record<string, unknown>;
  const to = orderedRelation(after) as unknown as Record<string, unknown>;
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of Object.keys(to)) if (JSON.stringify(from[key]) !== JSON.stringify(to[key])) changes[key] = { from: from[key], to: to[key] };
  return changes;
}

/** The collections a manifest relation names that will not exist, each with the path of the key naming it. */
function danglingOf(entry: ParsedRelation, schema: FinalSchema): { name: string; path: Path }[] {
  const { input, path } = entry;
  const exists = (name: string) => schema.fields.has(name);
  const named: { name: string | null | undefined; path: Path }[] = [
    { name: input.collection, path: [...path, 'collection'] },
    { name: input.relatedCollection, path: [...path, 'relatedCollection'] },
    { name: input.junctionCollection, path: [...path, 'junctionCollection'] },
    ...(input.allowedCollections ?? []).map((name, index) => ({ name, path: [...path, 'allowedCollections', index] })),
  ];
  return named.filter((entry): entry is { name: string; path: Path } => typeof entry.name === 'string' && !exists(entry.name));
}

export function planRelations(
  current: SiteConfiguration,
  manifest: ParsedManifest,
  deletable: Deletable,
  schema: FinalSchema,
  plan: ConfigPlan,
  record: RecordChange,
  newId: () => string,
): void {
  const currentById = new Map(current.relations.map((relation) => [relation.id, relation]));
  const named = new Set(manifest.relations.flatMap((entry) => (entry.input.id ? [entry.input.id] : [])));
  const taken = new Set<string>();
  const desired: { relation: RelationDefinition; path: Path }[] = [];
  for (const entry of manifest.relations) {
    const dangling = danglingOf(entry, schema);
    for (const { name, path } of dangling) {
      const why = schema.deleted.has(name) ? 'which this import deletes' : 'which neither the manifest nor the site has';
      plan.errors.push({ code: 'DANGLING_REFERENCE', message: `The relation of "${entry.input.collection}.${entry.input.field}" names collection "${name}", ${why}`, path });
    }
    if (dangling.length > 0) continue;
    const sameField = current.relations.find(
      (relation) => relation.collection === entry.input.collection && relation.field === entry.input.field && !taken.has(relation.id) && !named.has(relation.id),
    );
    const id = entry.input.id ?? sameField?.id ?? newId();
    taken.add(id);
    desired.push({ relation: toRelationDefinition(entry.input, id), path: entry.path });
  }

  const final: RelationDefinition[] = [];
  const checked: { relation: RelationDefinition; path: Path | null }[] = [];
  for (const { relation, path } of desired) {
    final.push(relation);
    const existing = currentById.get(relation.id);
    const changes = existing ? changesOf(existing, relation) : null;
    if (changes && Object.keys(changes).length === 0) {
      plan.counts.relations.unchanged += 1;
      continue;
    }
    record(changes ? { resource: 'relations', action: 'update', key: keyOf(relation), changes, path } : { resource: 'relations', action: 'create', key: keyOf(relation), path });
    plan.work.relations.push({ relation, path });
    checked.push({ relation, path });
  }

  const wanted = new Set(desired.map(({ relation }) => relation.id));
  for (const relation of current.relations) {
    if (wanted.has(relation.id)) continue;
    const gone = collectionsOf(relation).filter((name) => schema.deleted.has(name));
    if (gone.length > 0) {
      const reason = `collection "${gone[0]}" is deleted`;
      const remaining = (relation.allowedCollections ?? []).filter((name) => !schema.deleted.has(name));
      const onlyTargets = relation.kind === 'm2a' && !schema.deleted.has(relation.collection) && !schema.deleted.has(relation.junctionCollection ?? '');
      if (onlyTargets && remaining.length > 0) {
        const updated = { ...relation, allowedCollections: remaining };
        record({ resource: 'relations', action: 'update', key: keyOf(relation), changes: changesOf(relation, updated), reason, path: null });
        plan.work.relations.push({ relation: updated, path: null });
        final.push(updated);
      } else {
        record({ resource: 'relations', action: 'delete', key: keyOf(relation), reason, path: null });
        plan.work.relationDeletes.push(relation.id);
      }
      continue;
    }
    if (manifest.present.has('relations') && deletable({ kind: 'schema', collection: relation.collection })) {
      record({ resource: 'relations', action: 'delete', key: keyOf(relation), path: null });
      plan.work.relationDeletes.push(relation.id);
      continue;
    }
    final.push(relation);
    if (collectionsOf(relation).some((name) => schema.changed.has(name))) checked.push({ relation, path: null });
  }

  const view: SchemaView = { fieldsOf: (collection) => schema.fields.get(collection), relations: final };
  for (const { relation, path } of checked) {
    try {
      checkRelationAgainstSchema(relation, view);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (path) plan.errors.push({ code: error.code, message: error.message, path: [...path, ...error.path.slice(1)] });
      else {
        plan.errors.push({
          code: 'CONFLICT',
          message: `Relation "${relation.id}" of "${keyOf(relation)}", which the site keeps, would break: ${error.message}`,
          path: [...manifest.base, 'relations'],
        });
      }
    }
  }
}
