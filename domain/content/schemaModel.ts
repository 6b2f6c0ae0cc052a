// The content model of a site: collections, their fields, and relations between collections, as
// stored in schema events and read models. Shapes and names only; rules live in the deciders.

export const FIELD_TYPES = [
  'boolean',
  'integer',
  'float',
  'decimal',
  'bigInteger',
  'dateTime',
  'date',
  'time',
  'timestamp',
  'string',
  'text',
  'uuid',
  'hash',
  'slug',
  'code',
  'color',
  'json',
  'csv',
  'geometry',
  'files',
] as const;

export type FieldType = (typeof FIELD_TYPES)[number];

export const SENSITIVITY_CLASSES = ['pii', 'phi'] as const;
export type Sensitivity = (typeof SENSITIVITY_CLASSES)[number];

export const RELATION_KINDS = ['m2o', 'o2m', 'm2m', 'm2a'] as const;
export type RelationKind = (typeof RELATION_KINDS)[number];

export const ON_DELETE_BEHAVIOURS = ['restrict', 'set null', 'cascade'] as const;
export type OnDelete = (typeof ON_DELETE_BEHAVIOURS)[number];

/** A field as declared on a collection (the `field` of field.added / field.updated). */
export interface ContentField {
  field: string;
  type: FieldType;
  interface: string | null;
  display: string | null;
  /** Widget options plus the ones validation reads: maxLength, min, max, choices, translatable, precision, scale. */
  options: Record<string, unknown>;
  required: boolean;
  sort: number | null;
  /** Reads of pii/phi fields are logged (item.sensitive_read). */
  sensitivity: Sensitivity | null;
  /** Creates a partial expression index on the field for this collection. */
  indexed: boolean;
  note: string | null;
}

export interface CollectionMeta {
  displayName: string | null;
  icon: string | null;
  note: string | null;
  singleton: boolean;
  status_field: string | null;
  sort_field: string | null;
  editorialWorkflow: boolean;
  requireSeparateReviewer: boolean;
  versioning: boolean;
}

export const DEFAULT_COLLECTION_META: CollectionMeta = {
  displayName: null,
  icon: null,
  note: null,
  singleton: false,
  status_field: null,
  sort_field: null,
  editorialWorkflow: false,
  requireSeparateReviewer: false,
  versioning: false,
};

/**
 * A relation. `collection.field` is where it is declared:
 * - m2o: `field` stores the id of an item of `relatedCollection`; `relatedField` optionally names the
 *   o2m alias on the other side.
 * - o2m: `field` is an alias on `collection`; `relatedCollection.relatedField` stores this item's id.
 * - m2m: `field` is an alias; rows of `junctionCollection` link the two sides: `junctionField` stores
 *   this item's id, `junctionRelatedField` the id of the `relatedCollection` item; `relatedField`
 *   optionally names the alias on the other side.
 * - m2a: `field` is an alias; rows of `junctionCollection` store this item's id in `junctionField`,
 *   the target's collection in `junctionCollectionField` and its id in `junctionItemField`; targets
 *   are items of `allowedCollections`.
 * `onDelete` says what should happen to items that point at an item being deleted; per the spec it
 * is reported by the dependents check and enforced only for `restrict`.
 */
export interface RelationDefinition {
  id: string;
  kind: RelationKind;
  collection: string;
  field: string;
  relatedCollection: string | null;
  relatedField: string | null;
  junctionCollection: string | null;
  junctionField: string | null;
  junctionRelatedField: string | null;
  junctionItemField: string | null;
  junctionCollectionField: string | null;
  allowedCollections: string[] | null;
  onDelete: OnDelete;
}

/** Where ids of one collection's items are stored in another collection: what a delete must check. */
export interface ItemReference {
  relationId: string;
  /** The collection whose items hold the id. */
  collection: string;
  field: string;
  /** The collection the ids point at. */
  targetCollection: string;
  /** m2a: only rows whose `field` of this name equals the target collection count. */
  collectionField: string | null;
  onDelete: OnDelete;
}

/** Collection and field names: what URLs, filters and SQL expressions may carry. */
export const COLLECTION_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
export const FIELD_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
/**
 * Names that would reach Object.prototype wherever a name is looked up in a plain object (`__proto__`,
 * `constructor`, `toString`, `valueOf`, ...) or a function's (`prototype`): refused for collections and
 * fields, so that no name lookup of a record, a field map or a request body can meet an inherited key.
 */
export const PROTOTYPE_NAMES: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);
export const RELATION_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** API keys of an item that are columns, not content fields; a content field of the same name never wins. */
export const STRUCTURAL_KEYS = ['id', 'status', 'sort', 'createdAt', 'updatedAt', 'userCreated', 'userUpdated', 'deletedAt'] as const;
export const STRUCTURAL_KEY_SET: ReadonlySet<string> = new Set(STRUCTURAL_KEYS);
/** Structural keys a client may write. The others are kept by the service and ignored in bodies. */
export const WRITABLE_STRUCTURAL_KEYS: ReadonlySet<string> = new Set(['id', 'status', 'sort']);

/** Types whose value is stored as an id of another item (m2o and junction fields). */
export const REFERENCE_FIELD_TYPES: ReadonlySet<FieldType> = new Set(['uuid', 'string']);

/** The stored fields a relation writes ids into, each with what they point at. */
export function referencesOf(relation: RelationDefinition): ItemReference[] {
  const base = { relationId: relation.id, onDelete: relation.onDelete, collectionField: null };
  switch (relation.kind) {
    case 'm2o':
      return [{ ...base, collection: relation.collection, field: relation.field, targetCollection: relation.relatedCollection! }];
    case 'o2m':
      return [{ ...base, collection: relation.relatedCollection!, field: relation.relatedField!, targetCollection: relation.collection }];
    case 'm2m':
      return [
        { ...base, collection: relation.junctionCollection!, field: relation.junctionField!, targetCollection: relation.collection },
        { ...base, collection: relation.junctionCollection!, field: relation.junctionRelatedField!, targetCollection: relation.relatedCollection! },
      ];
    case 'm2a':
      return [
        { ...base, collection: relation.junctionCollection!, field: relation.junctionField!, targetCollection: relation.collection },
        ...(relation.allowedCollections ?? []).map((target) => ({
          ...base,
          collection: relation.junctionCollection!,
          field: relation.junctionItemField!,
          targetCollection: target,
          collectionField: relation.junctionCollectionField,
        })),
      ];
  }
}

/** Fields a relation stores ids (or, for m2a, collection names) in: they must exist as declared fields. */
export function storedFieldsOf(relation: RelationDefinition): { collection: string; field: string }[] {
  switch (relation.kind) {
    case 'm2o':
      return [{ collection: relation.collection, field: relation.field }];
    case 'o2m':
      return [{ collection: relation.relatedCollection!, field: relation.relatedField! }];
    case 'm2m':
      return [
        { collection: relation.junctionCollection!, field: relation.junctionField! },
        { collection: relation.junctionCollection!, field: relation.junctionRelatedField! },
      ];
    case 'm2a':
      return [
        { collection: relation.junctionCollection!, field: relation.junctionField! },
        { collection: relation.junctionCollection!, field: relation.junctionItemField! },
        { collection: relation.junctionCollection!, field: relation.junctionCollectionField! },
      ];
  }
}

/** Alias fields a relation adds (to-many sides): names with no stored value, read as related items. */
export function aliasFieldsOf(relation: RelationDefinition): { collection: string; field: string }[] {
  switch (relation.kind) {
    case 'm2o':
      return relation.relatedField ? [{ collection: relation.relatedCollection!, field: relation.relatedField }] : [];
    case 'o2m':
    case 'm2a':
      return [{ collection: relation.collection, field: relation.field }];
    case 'm2m':
      return [
        { collection: relation.collection, field: relation.field },
        ...(relation.relatedField ? [{ collection: relation.relatedCollection!, field: relation.relatedField }] : []),
      ];
  }
}

/** Every collection a relation touches. */
export function collectionsOf(relation: RelationDefinition): string[] {
  return [
    ...new Set(
      [relation.collection, relation.relatedCollection, relation.junctionCollection, ...(relation.allowedCollections ?? [])].filter(
        (name): name is string => name !== null,
      ),
    ),
  ];
}

// Stored JSON (jsonb) comes back with its keys in jsonb's order; these give every reader one order.

export function orderedMeta(meta: Partial<CollectionMeta>): CollectionMeta {
  const ordered = { ...DEFAULT_COLLECTION_META };
  for (const key of Object.keys(DEFAULT_COLLECTION_META) as (keyof CollectionMeta)[]) {
    if (meta[key] !== undefined) (ordered as Record<string, unknown>)[key] = meta[key];
  }
  return ordered;
}

export function orderedField(field: ContentField): ContentField {
  return {
    field: field.field,
    type: field.type,
    interface: field.interface ?? null,
    display: field.display ?? null,
    options: field.options ?? {},
    required: field.required ?? false,
    sort: field.sort ?? null,
    sensitivity: field.sensitivity ?? null,
    indexed: field.indexed ?? false,
    note: field.note ?? null,
  };
}

export function orderedRelation(relation: RelationDefinition): RelationDefinition {
  return {
    id: relation.id,
    kind: relation.kind,
    collection: relation.collection,
    field: relation.field,
    relatedCollection: relation.relatedCollection ?? null,
    relatedField: relation.relatedField ?? null,
    junctionCollection: relation.junctionCollection ?? null,
    junctionField: relation.junctionField ?? null,
    junctionRelatedField: relation.junctionRelatedField ?? null,
    junctionItemField: relation.junctionItemField ?? null,
    junctionCollectionField: relation.junctionCollectionField ?? null,
    allowedCollections: relation.allowedCollections ?? null,
    onDelete: relation.onDelete,
  };
}
