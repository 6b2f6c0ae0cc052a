// Reads a manifest sent for import: its version, each entry of each section (a malformed entry is
// reported at its path and left out), and keys listed twice. Every problem is reported, not only the
// first. Rules that need the site (unknown collections, what the plan may do) are the planner's.
import { z } from 'zod';
import { FEED_OPERATIONS, FEED_TYPES } from '../changeFeed/feedEntry.ts';
import { collectionMetaInput, collectionName, fieldInput, relationInput, toContentField, type RelationInput } from '../content/schemaInput.ts';
import { COLLECTION_NAME_PATTERN, type CollectionMeta, type ContentField } from '../content/schemaModel.ts';
import { parseScope, type ManagedScope } from './managedScopes.ts';
import { MANIFEST_VERSION, metaOfEntry, SECTIONS, type ManifestError, type Path, type Section } from './manifest.ts';

export interface ParsedCollection {
  name: string;
  meta: CollectionMeta;
  path: Path;
}

export interface ParsedField {
  /** The `id` the entry carries (`<collection>.<field>` as exported), if any. */
  id: string | null;
  collection: string;
  field: ContentField;
  path: Path;
}

export interface ParsedRelation {
  input: RelationInput;
  path: Path;
}

export interface ParsedWebhook {
  name: string;
  url: string;
  collections: string[] | null;
  operations: string[] | null;
  /** Write-only: the signing secret of a webhook the import creates. */
  secret: string | null;
  path: Path;
}

export interface ParsedSetting {
  key: string;
  value: unknown;
  path: Path;
}

export interface ParsedManifest {
  /** Where the manifest is in the body (`['body']`, or `['body', 'data']` for an export's envelope). */
  base: Path;
  /** The sections the manifest has: a section it leaves out is left as it is, in every mode. */
  present: ReadonlySet<Section>;
  collections: ParsedCollection[];
  fields: ParsedField[];
  relations: ParsedRelation[];
  webhooks: ParsedWebhook[];
  settings: ParsedSetting[];
  managedScopes: ManagedScope[];
}

export interface ManifestReading {
  /** Null when the body is not a manifest of this version at all. */
  manifest: ParsedManifest | null;
  errors: ManifestError[];
}

const collectionEntry = collectionMetaInput
  .omit({ displayName: true })
  .extend({ name: collectionName, label: z.string().max(200).nullable().optional() })
  .strict();

const fieldEntryKeys = z.object({ id: z.string().max(200).optional(), collection: collectionName }).loose();

const webhookEntry = z
  .object({
    name: z.string().trim().min(1).max(100),
    url: z.url({ protocol: /^https?$/ }).max(2_000),
    filters: z
      .object({
        collections: z.array(z.string().regex(COLLECTION_NAME_PATTERN, 'a collection name')).max(100).nullable().optional(),
        operations: z
          .array(z.string().refine((value) => [...FEED_OPERATIONS, ...FEED_TYPES].includes(value as never), `one of ${FEED_OPERATIONS.join(', ')} or a type such as items.create`))
          .max(20)
          .nullable()
          .optional(),
      })
      .strict()
      .optional(),
    secret: z.string().min(16, 'at least 16 characters').max(256).optional(),
  })
  .strict();

// Keys and values are checked by the settings area's own rules (src/modules/settings/catalogue.ts).
const settingEntry = z.object({ key: z.string().max(200), value: z.unknown() }).strict();

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const emptyOrNull = (list: string[] | null | undefined) => (list && list.length > 0 ? [...new Set(list)] : null);

export function readManifest(body: unknown): ManifestReading {
  const enveloped = isObject(body) && Object.keys(body).length === 1 && 'data' in body;
  const document = enveloped ? body.data : body;
  const base: Path = enveloped ? ['body', 'data'] : ['body'];
  const errors: ManifestError[] = [];
  const fail = (code: ManifestError['code'], message: string, path: Path) => errors.push({ code, message, path });
  if (!isObject(document)) {
    fail('VALIDATION_FAILED', 'A manifest is a JSON object', base);
    return { manifest: null, errors };
  }
  if (document.version !== MANIFEST_VERSION) {
    fail('UNSUPPORTED_MANIFEST_VERSION', `Only ${MANIFEST_VERSION} manifests are supported, not ${JSON.stringify(document.version ?? null)}`, [...base, 'version']);
    return { manifest: null, errors };
  }
  const known = new Set<string>(['version', 'exportedAt', 'managedScopes', ...SECTIONS]);
  for (const key of Object.keys(document)) if (!known.has(key)) fail('VALIDATION_FAILED', `Unknown key "${key}"`, [...base, key]);
  if (document.exportedAt !== undefined && typeof document.exportedAt !== 'string') {
    fail('VALIDATION_FAILED', 'exportedAt is a date-time text', [...base, 'exportedAt']);
  }

  const present = new Set<Section>();
  /** The entries of a section, each checked by `schema`; issues are reported at the entry's path. */
  const entries = <T>(section: Section | 'managedScopes', schema: z.ZodType<T>): { value: T; path: Path }[] => {
    const list = document[section];
    if (list === undefined) return [];
    if (!Array.isArray(list)) {
      fail('VALIDATION_FAILED', `${section} is a list`, [...base, section]);
      return [];
    }
    if (section !== 'managedScopes') present.add(section);
    return list.flatMap((entry, index) => {
      const path = [...base, section, index];
      const parsed = schema.safeParse(entry);
      if (parsed.success) return [{ value: parsed.data, path }];
      for (const issue of parsed.error.issues) fail('VALIDATION_FAILED', issue.message, [...path, ...issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key))]);
      return [];
    });
  };

  const collections = entries('collections', collectionEntry).map(({ value, path }) => ({ name: value.name, meta: metaOfEntry(value), path }));
  const fields = entries('fields', fieldEntryKeys).flatMap(({ value, path }) => {
    const { id, collection, ...declaration } = value;
    const parsed = fieldInput.safeParse(declaration);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) fail('VALIDATION_FAILED', issue.message, [...path, ...issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key))]);
      return [];
    }
    if (id !== undefined && !id.startsWith(`${collection}.`)) {
      fail('VALIDATION_FAILED', `The id "${id}" belongs to another collection: a field stays in its collection (id is <collection>.<field>)`, [...path, 'id']);
      return [];
    }
    return [{ id: id ?? null, collection, field: toContentField(parsed.data), path }];
  });
  const relations = entries('relations', relationInput).map(({ value, path }) => ({ input: value, path }));
  const webhooks = entries('webhooks', webhookEntry).map(({ value, path }) => ({
    name: value.name,
    url: value.url,
    collections: emptyOrNull(value.filters?.collections),
    operations: emptyOrNull(value.filters?.operations),
    secret: value.secret ?? null,
    path,
  }));
  const settings = entries('settings', settingEntry).map(({ value, path }) => ({ key: value.key, value: value.value, path }));
  const managedScopes = entries('managedScopes', z.string().max(200)).flatMap(({ value, path }) => {
    const scope = parseScope(value);
    if (!scope) fail('VALIDATION_FAILED', `"${value}" is not a scope: schema, webhooks, settings, or collection:, webhook:, setting: with a name (a trailing * for a prefix)`, path);
    return scope ? [scope] : [];
  });

  /** The entries whose key comes first; a later one with the same key is a DUPLICATE_KEY at `keyPath` and left out. */
  const firstOf = <T extends { path: Path }>(list: T[], keyOf: (entry: T) => string | null, label: string, keyPath: string): T[] => {
    const seen = new Set<string>();
    return list.filter((entry) => {
      const key = keyOf(entry);
      if (key === null) return true;
      if (seen.has(key)) {
        fail('DUPLICATE_KEY', `${label} "${key}" is listed twice`, [...entry.path, keyPath]);
        return false;
      }
      seen.add(key);
      return true;
    });
  };
  const manifest: ParsedManifest = {
    base,
    present,
    collections: firstOf(collections, (entry) => entry.name, 'Collection', 'name'),
    fields: firstOf(
      firstOf(fields, (entry) => `${entry.collection}.${entry.field.field}`, 'Field', 'field'),
      (entry) => entry.id,
      'Field id',
      'id',
    ),
    relations: firstOf(
      firstOf(relations, (entry) => entry.input.id ?? null, 'Relation', 'id'),
      (entry) => `${entry.input.collection}.${entry.input.field}`,
      'The relation declared on',
      'field',
    ),
    webhooks: firstOf(webhooks, (entry) => entry.name, 'Webhook', 'name'),
    settings: firstOf(settings, (entry) => entry.key, 'Setting', 'key'),
    managedScopes,
  };
  return { manifest, errors };
}
