// The config manifest `svc.config@v1`: what a site's configuration looks like as one JSON document
// (collections, fields, relations, webhooks, settings, and the scopes the manifest manages), how an
// entry of each section is written, and how one is read back. Content items, secrets and access
// control are never part of it.
import type { ErrorCode } from '../shared/errorCatalogue.ts';
import {
  DEFAULT_COLLECTION_META,
  orderedField,
  orderedRelation,
  type CollectionMeta,
  type ContentField,
  type RelationDefinition,
} from '../content/schemaModel.ts';

export const MANIFEST_VERSION = 'svc.config@v1';

export const IMPORT_MODES = ['merge', 'replace-managed', 'replace-all'] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];

export const EXPORT_SCOPES = ['all', 'schema', 'settings', 'webhooks'] as const;
export type ExportScope = (typeof EXPORT_SCOPES)[number];

export const SECTIONS = ['collections', 'fields', 'relations', 'webhooks', 'settings'] as const;
export type Section = (typeof SECTIONS)[number];

export type Path = (string | number)[];

/** One problem of a manifest, as dry-runs list them. */
export interface ManifestError {
  code: ErrorCode;
  message: string;
  path: Path;
}

/** A collection: its name and its meta, with the meta's display name under the spec's `label`. */
export type CollectionEntry = { name: string; label: string | null } & Omit<CollectionMeta, 'displayName'>;

/**
 * A field: its declaration with its collection and a stable `id`. Item values are stored under the
 * field's name, so the id is `<collection>.<field>` as of the export; a manifest that keeps the id
 * and changes `field` asks for a rename.
 */
export type FieldEntry = { id: string; collection: string } & ContentField;

export interface WebhookEntry {
  name: string;
  url: string;
  filters: { collections: string[] | null; operations: string[] | null };
}

export interface SettingEntry {
  key: string;
  value: unknown;
}

export interface ConfigManifest {
  version: typeof MANIFEST_VERSION;
  exportedAt: string;
  collections: CollectionEntry[];
  fields: FieldEntry[];
  relations: RelationDefinition[];
  webhooks: WebhookEntry[];
  settings: SettingEntry[];
  managedScopes: string[];
}

export function fieldId(collection: string, field: string): string {
  return `${collection}.${field}`;
}

export function collectionEntryOf(name: string, meta: CollectionMeta): CollectionEntry {
  return {
    name,
    label: meta.displayName,
    icon: meta.icon,
    note: meta.note,
    singleton: meta.singleton,
    versioning: meta.versioning,
    status_field: meta.status_field,
    sort_field: meta.sort_field,
    editorialWorkflow: meta.editorialWorkflow,
    requireSeparateReviewer: meta.requireSeparateReviewer,
  };
}

export function fieldEntryOf(collection: string, field: ContentField): FieldEntry {
  return { id: fieldId(collection, field.field), collection, ...orderedField(field) };
}

export function relationEntryOf(relation: RelationDefinition): RelationDefinition {
  return orderedRelation(relation);
}

/** The sections each export scope fills, and the managed scopes it declares for them. */
export const SCOPE_SECTIONS: Record<ExportScope, readonly Section[]> = {
  all: SECTIONS,
  schema: ['collections', 'fields', 'relations'],
  webhooks: ['webhooks'],
  settings: ['settings'],
};

export const SCOPE_MANAGED: Record<ExportScope, readonly string[]> = {
  all: ['schema', 'webhooks', 'settings'],
  schema: ['schema'],
  webhooks: ['webhooks'],
  settings: ['settings'],
};

/** The meta a collection entry describes: every key it leaves out takes its default. */
export function metaOfEntry(entry: Partial<CollectionEntry>): CollectionMeta {
  const meta: Record<string, unknown> = { ...DEFAULT_COLLECTION_META, displayName: entry.label ?? null };
  const given = entry as Record<string, unknown>;
  for (const key of Object.keys(DEFAULT_COLLECTION_META)) {
    if (key !== 'displayName' && given[key] !== undefined) meta[key] = given[key];
  }
  return meta as unknown as CollectionMeta;
}
