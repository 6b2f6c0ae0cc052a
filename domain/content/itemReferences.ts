// The ids an item write sets in its reference fields (m2o fields, the stored side of an o2m, the
// fields of an m2m or m2a junction), each with the collection whose live item it must name. Pure:
// the items area looks them up in one query inside the write's transaction (src/modules/items/referenceTargets.ts).
import { referencesOf, type ItemReference, type RelationDefinition } from './schemaModel.ts';

/** One id a write sets: the field it is in, and the collection that must hold a live item of that id. */
export interface ReferenceTarget {
  field: string;
  collection: string;
  id: string;
}

/** The references stored in items of `collection`: where its items hold ids of other items. */
export function outgoingReferences(relations: readonly RelationDefinition[], collection: string): ItemReference[] {
  return relations.flatMap(referencesOf).filter((reference) => reference.collection === collection);
}

export interface ReferenceWrite {
  /** The values the write sends (stored forms): every field of a create, the fields given of a PATCH. */
  values: Readonly<Record<string, unknown>>;
  /** The body written over (the item, or its draft); null for a create. */
  before: Readonly<Record<string, unknown>> | null;
  /** `replace`: a field the write does not send is cleared. */
  mode: 'create' | 'patch' | 'replace';
}

/**
 * The ids a write sets that must name live items. A value the item already holds is not asked
 * again (a soft delete leaves references in place, and an edit of another field must not fail on
 * them); an m2a junction's id counts for the collection its collection field names after the write.
 * A value that is not an id (a sealed reference of a pii field) is not a reference to look up.
 */
export function referenceTargets(references: readonly ItemReference[], write: ReferenceWrite): ReferenceTarget[] {
  const after = (field: string) => (field in write.values || write.mode !== 'patch' ? write.values[field] : write.before?.[field]);
  const changed = (field: string) => (field in write.values || write.mode === 'replace') && !sameValue(after(field), write.before?.[field]);
  const targets: ReferenceTarget[] = [];
  for (const reference of references) {
    const id = after(reference.field);
    if (typeof id !== 'string' && typeof id !== 'number') continue;
    if (reference.collectionField !== null && after(reference.collectionField) !== reference.targetCollection) continue;
    const touched = changed(reference.field) || (reference.collectionField !== null && changed(reference.collectionField));
    if (touched) targets.push({ field: reference.field, collection: reference.targetCollection, id: String(id) });
  }
  return targets;
}

function sameValue(a: unknown, b: unknown): boolean {
  const text = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));
  return text(a) === text(b);
}
