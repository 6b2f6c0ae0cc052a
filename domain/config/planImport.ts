// Plans the import of a manifest into a site, purely: from the site's configuration, the manifest
// and the mode, the changes (as a dry-run lists them), the errors only the site can tell (unknown
// collections, rules of the schema as it will be), and the work of an apply. `merge` creates and
// updates; `replace-managed` also deletes what the manifest leaves out within its managedScopes;
// `replace-all` deletes whatever it leaves out. A section the manifest does not have is left alone.
import type { ConversionCounts } from '../content/fieldTypeChange.ts';
import { emptyCounts, type ConfigPlan, type DataChecks, type ManifestDiff, type PlannedChange, type Risk, type SiteConfiguration } from './configPlan.ts';
import { isManaged, type ScopedResource } from './managedScopes.ts';
import type { ImportMode } from './manifest.ts';
import { planSettings, planWebhooks } from './planDelivery.ts';
import { planRelations } from './planRelations.ts';
import { planSchema, reshapes } from './planSchema.ts';
import type { ParsedManifest } from './readManifest.ts';

export function planImport(current: SiteConfiguration, manifest: ParsedManifest, mode: ImportMode, newId: () => string): ConfigPlan {
  const plan: ConfigPlan = {
    changes: [],
    counts: emptyCounts(),
    errors: [],
    work: {
      relationDeletes: [],
      collections: [],
      collectionDeletes: [],
      relations: [],
      webhookDeletes: [],
      webhookUpdates: [],
      webhookCreates: [],
      settingsSet: {},
      settingsRemove: [],
    },
    dataChecks: { collections: [], fields: [], reshaped: [], retyped: [] },
  };
  const record = (change: PlannedChange) => {
    plan.changes.push(change);
    plan.counts[change.resource][change.action === 'rename' ? 'update' : change.action] += 1;
  };
  const deletable = (resource: ScopedResource) => mode === 'replace-all' || (mode === 'replace-managed' && isManaged(manifest.managedScopes, resource));
  const schema = planSchema(current, manifest, deletable, plan, record);
  planRelations(current, manifest, deletable, schema, plan, record, newId);
  planWebhooks(current, manifest, deletable, plan, record);
  planSettings(current, manifest, deletable, plan, record);
  return plan;
}

/**
 * What the site's rows say: the collections of DataChecks.collections that hold items, and for each
 * `<collection>.<field>` of DataChecks.fields that holds values, how many items (live or soft-deleted) do.
 */
export interface DataPresence {
  collections: ReadonlySet<string>;
  fields: ReadonlyMap<string, number>;
  /** For each `<collection>.<field>` of DataChecks.retyped: what the conversion does to the items' values. */
  conversions?: ReadonlyMap<string, ConversionCounts>;
}

/**
 * Marks the destructive changes (refused without allowDestructive=true) and returns them: dropping
 * a collection or field that holds data, changing a field's type (its values are converted, those
 * that do not parse become null: `conversion` counts them; a rename's values are not moved), renaming a field that holds data while changing its translatable option (its values
 * stay under the old name), widening a relation's onDelete to cascade. A rename that keeps the
 * field's storage records how many values it moves (`moves`).
 */
export function markDestructive(changes: PlannedChange[], presence: DataPresence): PlannedChange[] {
  for (const change of changes) {
    if (change.resource === 'collections' && change.action === 'delete' && presence.collections.has(change.key)) {
      change.destructive = 'the collection holds items';
    } else if (change.resource === 'fields' && change.action === 'delete' && presence.fields.has(change.key)) {
      change.destructive = 'items hold values in the field';
    } else if (change.resource === 'fields' && change.action === 'rename') {
      markRename(change, presence.fields.get(change.from!) ?? 0);
    } else if (change.resource === 'fields' && change.action === 'update' && change.changes?.type) {
      const conversion = presence.conversions?.get(change.key);
      change.destructive = `the type changes from ${String(change.changes.type.from)} to ${String(change.changes.type.to)}`;
      if (conversion) {
        change.conversion = conversion;
        change.destructive += `: ${conversion.converted} values convert, ${conversion.nulled} become null (the log keeps the old ones)`;
      }
    } else if (change.resource === 'relations' && change.changes?.onDelete && change.changes.onDelete.to === 'cascade') {
      change.destructive = `onDelete widens from ${String(change.changes.onDelete.from)} to cascade`;
    }
  }
  return changes.filter((change) => change.destructive !== undefined);
}

function markRename(change: PlannedChange, held: number): void {
  const changes = change.changes ?? {};
  const left = `values are not moved: they stay under "${change.from}" and the renamed field starts empty`;
  if (changes.type) change.destructive = `the type changes from ${String(changes.type.from)} to ${String(changes.type.to)}${held > 0 ? `; ${held} items' ${left}` : ''}`;
  else if (reshapes(changes)) {
    if (held > 0) change.destructive = `the translatable option changes, so ${held} items' ${left}`;
  } else change.moves = held;
}

/**
 * high: a destructive change, or deleting a collection (even an empty one);
 * medium: deleting anything else, renaming a field, or changing a relation or a webhook (where data
 * points and flows);
 * low: only creating, and updating collections, fields and settings (or nothing at all).
 */
export function riskOf(changes: readonly PlannedChange[]): Risk {
  if (changes.some((change) => change.destructive !== undefined || (change.resource === 'collections' && change.action === 'delete'))) return 'high';
  const medium = changes.some(
    (change) =>
      change.action === 'delete' || change.action === 'rename' || (change.action === 'update' && (change.resource === 'relations' || change.resource === 'webhooks')),
  );
  return medium ? 'medium' : 'low';
}

export function diffOf(plan: ConfigPlan): ManifestDiff {
  return { risk: riskOf(plan.changes), ...plan.counts, changes: plan.changes };
}

export function hasWork(plan: ConfigPlan): boolean {
  return plan.changes.length > 0;
}

export type { DataChecks };
