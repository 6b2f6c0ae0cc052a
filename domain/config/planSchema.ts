// The collections and fields part of an import plan: which collections the manifest creates, updates
// or (in the replace modes) deletes, and per collection the exact field list one applySchema command
// brings it to. A field whose `id` names an existing field of another name is a rename.
import { collectionDecider, diffCollectionSchema, type CollectionState } from '../content/collectionDecider.ts';
import type { ContentField } from '../content/schemaModel.ts';
import type { ConfigPlan, FieldRename, PlannedChange, SiteConfiguration } from './configPlan.ts';
import type { ScopedResource } from './managedScopes.ts';
import type { ParsedField, ParsedManifest } from './readManifest.ts';

/** The schema as it will be once the plan is applied. */
export interface FinalSchema {
  fields: ReadonlyMap<string, ReadonlyMap<string, ContentField>>;
  deleted: ReadonlySet<string>;
  /** Collections whose fields change: relations touching them are checked again. */
  changed: ReadonlySet<string>;
}

export type Deletable = (resource: ScopedResource) => boolean;
export type RecordChange = (change: PlannedChange) => void;

function stateOf(current: SiteConfiguration, name: string): CollectionState {
  const existing = current.collections.get(name);
  if (!existing) return collectionDecider.initialState();
  return { lifecycle: 'active', meta: existing.meta, fields: existing.fields, removed: new Map() };
}

/** `{ new name → old name }` of the entries that rename a field of the collection. */
function renamesOf(collection: string, entries: readonly ParsedField[], currentFields: ReadonlyMap<string, ContentField>): Map<string, string> {
  const named = new Set(entries.map((entry) => entry.field.field));
  const renames = new Map<string, string>();
  for (const entry of entries) {
    const before = entry.id?.slice(collection.length + 1);
    const after = entry.field.field;
    if (before && before !== after && currentFields.has(before) && !currentFields.has(after) && !named.has(before)) renames.set(after, before);
  }
  return renames;
}

/** What differs between a renamed field's declaration and its new one (its name aside). */
function renameChanges(before: ContentField, after: ContentField): Record<string, { from: unknown; to: unknown }> {
  const state: CollectionState = { ...collectionDecider.initialState(), lifecycle: 'active', fields: new Map([[after.field, { ...before, field: after.field }]]) };
  return diffCollectionSchema(state, { meta: null, fields: [after] }).fields.updated[0]?.changes ?? {};
}

/** Whether a field change alters how its values are stored (its type or its translatable option). */
export function reshapes(changes: Record<string, { from: unknown; to: unknown }>): boolean {
  if (changes.type) return true;
  const options = changes.options as { from: Record<string, unknown>; to: Record<string, unknown> } | undefined;
  return options !== undefined && (options.from.translatable === true) !== (options.to.translatable === true);
}

export function planSchema(current: SiteConfiguration, manifest: ParsedManifest, deletable: Deletable, plan: ConfigPlan, record: RecordChange): FinalSchema {
  const listed = new Map(manifest.collections.map((entry) => [entry.name, entry]));
  const deleted = new Set<string>();
  if (manifest.present.has('collections')) {
    for (const name of current.collections.keys()) if (!listed.has(name) && deletable({ kind: 'schema', collection: name })) deleted.add(name);
  }
  const live = new Set([...[...current.collections.keys()].filter((name) => !deleted.has(name)), ...listed.keys()]);

  const entriesOf = new Map<string, ParsedField[]>();
  for (const entry of manifest.fields) {
    if (!live.has(entry.collection)) {
      const why = deleted.has(entry.collection) ? 'which this import deletes (it is not in collections)' : 'which neither the manifest nor the site has';
      plan.errors.push({ code: 'DANGLING_REFERENCE', message: `Field "${entry.field.field}" names collection "${entry.collection}", ${why}`, path: [...entry.path, 'collection'] });
      continue;
    }
    entriesOf.set(entry.collection, [...(entriesOf.get(entry.collection) ?? []), entry]);
  }

  const finalFields = new Map<string, ReadonlyMap<string, ContentField>>();
  const changed = new Set<string>();
  for (const name of live) {
    const currentFields = current.collections.get(name)?.fields ?? new Map<string, ContentField>();
    const entries = entriesOf.get(name) ?? [];
    const collectionEntry = listed.get(name);
    const named = new Set(entries.map((entry) => entry.field.field));
    const renames = renamesOf(name, entries, currentFields);
    const renamedAway = new Set(renames.values());
    const dropUnlisted = manifest.present.has('fields') && deletable({ kind: 'schema', collection: name });
    const kept = [...currentFields.values()].filter((field) => !named.has(field.field) && !renamedAway.has(field.field) && !dropUnlisted);
    const desired = [...kept, ...entries.map((entry) => entry.field)];
    finalFields.set(name, new Map(desired.map((field) => [field.field, field])));
    const meta = collectionEntry?.meta ?? null;
    const diff = diffCollectionSchema(stateOf(current, name), { meta, fields: desired });

    if (collectionEntry) {
      if (diff.status === 'create') record({ resource: 'collections', action: 'create', key: name, path: collectionEntry.path });
      else if (Object.keys(diff.meta).length > 0) {
        const changes = Object.fromEntries(Object.entries(diff.meta).map(([key, change]) => [key === 'displayName' ? 'label' : key, change]));
        record({ resource: 'collections', action: 'update', key: name, changes, path: collectionEntry.path });
      } else plan.counts.collections.unchanged += 1;
    }
    const pathOf = new Map(entries.map((entry) => [entry.field.field, entry.path]));
    const touched = new Set<string>();
    const movable: FieldRename[] = [];
    for (const added of diff.fields.added) {
      touched.add(added.field);
      const before = renames.get(added.field);
      const key = `${name}.${added.field}`;
      if (before && (currentFields.get(before)!.sensitivity || added.sensitivity)) {
        // Sealed values are bound to their field (docs/privacy.md): they cannot move to another name.
        plan.errors.push({
          code: 'VALIDATION_FAILED',
          message: `Field "${before}" of "${name}" cannot be renamed to "${added.field}": a pii/phi field's sealed values stay with their field (add the new field, copy the values, remove the old one)`,
          path: pathOf.get(added.field) ?? [],
        });
      } else if (before) {
        const declared = currentFields.get(before)!;
        const changes = renameChanges(declared, added);
        const rename: PlannedChange = { resource: 'fields', action: 'rename', key, from: `${name}.${before}`, path: pathOf.get(added.field) ?? null };
        record(Object.keys(changes).length > 0 ? { ...rename, changes } : rename);
        plan.dataChecks.fields.push({ collection: name, field: before });
        if (!reshapes(changes)) movable.push({ from: before, to: added.field, before: declared });
      } else record({ resource: 'fields', action: 'create', key, path: pathOf.get(added.field) ?? null });
    }
    for (const update of diff.fields.updated) {
      touched.add(update.field);
      const path = pathOf.get(update.field) ?? [];
      record({ resource: 'fields', action: 'update', key: `${name}.${update.field}`, changes: update.changes, path });
      if (update.changes.type) {
        const next = desired.find((field) => field.field === update.field)!;
        plan.dataChecks.retyped.push({ collection: name, current: currentFields.get(update.field)!, next, path: [...path, 'type'] });
      } else if (reshapes(update.changes)) plan.dataChecks.reshaped.push({ collection: name, field: update.field, path: [...path, 'options'] });
    }
    for (const removed of diff.fields.removed) {
      if (renamedAway.has(removed)) continue;
      record({ resource: 'fields', action: 'delete', key: `${name}.${removed}`, path: null });
      plan.dataChecks.fields.push({ collection: name, field: removed });
    }
    plan.counts.fields.unchanged += entries.filter((entry) => !touched.has(entry.field.field)).length;
    if (diff.status !== 'unchanged') {
      changed.add(name);
      plan.work.collections.push({
        name,
        meta,
        fields: desired,
        fieldPaths: [...kept.map(() => null), ...entries.map((entry) => entry.path)],
        path: collectionEntry?.path ?? null,
        renames: movable,
      });
    }
  }
  for (const name of deleted) {
    record({ resource: 'collections', action: 'delete', key: name, path: null });
    plan.dataChecks.collections.push(name);
    plan.work.collectionDeletes.push(name);
  }
  return { fields: finalFields, deleted, changed };
}
