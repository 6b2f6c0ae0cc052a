// What importing a manifest would do to a site: the site's configuration as the planner sees it, the
// planned changes as a dry-run lists them, and the work an apply runs through the deciders.
import type { ConversionCounts } from '../content/fieldTypeChange.ts';
import type { CollectionMeta, ContentField, RelationDefinition } from '../content/schemaModel.ts';
import type { ManifestError, Path } from './manifest.ts';

export interface SubscriptionSummary {
  id: string;
  name: string;
  kind: 'pull' | 'webhook';
  url: string | null;
  collections: string[] | null;
  operations: string[] | null;
}

/** A site's configuration now, read from its read models. */
export interface SiteConfiguration {
  collections: ReadonlyMap<string, { meta: CollectionMeta; fields: ReadonlyMap<string, ContentField> }>;
  relations: readonly RelationDefinition[];
  /** Change-feed subscriptions of every kind (a webhook may not take a pull subscription's name). */
  subscriptions: readonly SubscriptionSummary[];
  /** The settings the site has set (not the defaults of known keys). */
  settings: ReadonlyMap<string, unknown>;
}

export const RESOURCES = ['collections', 'fields', 'relations', 'webhooks', 'settings'] as const;
export type Resource = (typeof RESOURCES)[number];

export interface PlannedChange {
  resource: Resource;
  action: 'create' | 'update' | 'delete' | 'rename';
  /** The collection name, `<collection>.<field>`, `<collection>.<field>` of the relation's declaration, webhook name or setting key. */
  key: string;
  /** rename: the field's key before. */
  from?: string;
  /** rename: how many items (live or soft-deleted) hold a value that moves to the new name (known once the site's rows are read). */
  moves?: number;
  /** update (and rename): each property that changes. */
  changes?: Record<string, { from: unknown; to: unknown }>;
  /** A change the manifest does not list itself: why it follows (a deleted collection takes its relations). */
  reason?: string;
  /** Why the change is destructive (refused without allowDestructive=true). */
  destructive?: string;
  /** update of a field's type: how many items' values it converts and how many it sets to null (known once the site's rows are read). */
  conversion?: ConversionCounts;
  /** The manifest entry that asks for it (none for deletions). */
  path: Path | null;
}

export interface ResourceCounts {
  create: number;
  update: number;
  unchanged: number;
  delete: number;
}

export type Risk = 'low' | 'medium' | 'high';

export type ManifestDiff = { risk: Risk } & Record<Resource, ResourceCounts> & { changes: PlannedChange[] };

/** A rename whose values can move: the new field stores them as the old one did (same type and translatable option). */
export interface FieldRename {
  from: string;
  to: string;
  /** The old field's declaration, kept while its values move. */
  before: ContentField;
}

/**
 * A collection brought to exactly `meta` (null keeps it) and `fields` by one applySchema command; when
 * renamed fields hold values, by two around the move (the first keeps the old fields, the second
 * removes them).
 */
export interface CollectionWork {
  name: string;
  meta: CollectionMeta | null;
  fields: ContentField[];
  /** Where each of `fields` is in the manifest (null: a field the site keeps). */
  fieldPaths: (Path | null)[];
  path: Path | null;
  renames: FieldRename[];
}

export interface WebhookCreate {
  name: string;
  url: string;
  secret: string;
  collections: string[] | null;
  operations: string[] | null;
}

export interface WebhookUpdate {
  id: string;
  changes: { url?: string; collections?: string[] | null; operations?: string[] | null };
}

/** The work of an apply, in the order it runs. */
export interface PlanWork {
  relationDeletes: string[];
  collections: CollectionWork[];
  collectionDeletes: string[];
  relations: { relation: RelationDefinition; path: Path | null }[];
  webhookDeletes: string[];
  webhookUpdates: WebhookUpdate[];
  webhookCreates: WebhookCreate[];
  settingsSet: Record<string, unknown>;
  settingsRemove: string[];
}

/** What only the site's rows can tell: whether items hold values where the plan drops or reshapes. */
export interface DataChecks {
  /** Collections the plan deletes. */
  collections: string[];
  /** Fields the plan removes or renames away. */
  fields: { collection: string; field: string }[];
  /** Fields whose translatable option changes: refused over values, live or past (the schema's rule). */
  reshaped: { collection: string; field: string; path: Path }[];
  /** Fields whose type changes: destructive over values, refused for some pairs (domain/content/fieldTypeChange.ts). */
  retyped: { collection: string; current: ContentField; next: ContentField; path: Path }[];
}

export interface ConfigPlan {
  changes: PlannedChange[];
  counts: Record<Resource, ResourceCounts>;
  errors: ManifestError[];
  work: PlanWork;
  dataChecks: DataChecks;
}

export function emptyCounts(): Record<Resource, ResourceCounts> {
  return Object.fromEntries(RESOURCES.map((resource) => [resource, { create: 0, update: 0, unchanged: 0, delete: 0 }])) as Record<Resource, ResourceCounts>;
}
