// Events of the content context (items, collections and their fields, relations, sensitive reads;
// named versions and pins in ./versions/events.ts, beside their deciders):
// the zod schema of each event's data, and the event types inferred from them. The event store
// checks every event it reads against these (domain/shared/eventCatalogue.ts). Item events carry the
// whole item on every write, so their schema checks the item's structural keys and leaves content
// fields and values as they are (never walked: the check costs the same for any width of item).
import { z } from 'zod';
import { contentObjectSchema, type EventOf } from '../shared/eventSchema.ts';
import {
  FIELD_TYPES,
  ON_DELETE_BEHAVIOURS,
  RELATION_KINDS,
  SENSITIVITY_CLASSES,
  type CollectionMeta,
  type ContentField,
  type RelationDefinition,
} from './schemaModel.ts';
import { pinEventSchemas, versionEventSchemas } from './versions/events.ts';

const record = z.record(z.string(), z.unknown());

// Items

export const ITEM_EVENT_TYPES = [
  'item.created',
  'item.updated',
  'item.deleted',
  'item.restored',
  'item.reverted',
  'item.promoted',
  'item.hard_deleted',
] as const;
export type ItemEventType = (typeof ITEM_EVENT_TYPES)[number];

/** The structural keys of an item, the ones a snapshot is checked for (its content fields are not looked at). */
const itemStructureSchema = z.object({
  id: z.string(),
  status: z.string().nullable(),
  sort: z.number().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  userCreated: z.string().nullable(),
  userUpdated: z.string().nullable(),
  deletedAt: z.string().nullable(),
});

/** The whole item after an event: its structural keys, then its content fields (any key, any value). */
export type ItemSnapshot = z.infer<typeof itemStructureSchema> & { [field: string]: unknown };
export const itemSnapshotSchema: z.ZodType<ItemSnapshot> = itemStructureSchema;

export const itemEventDataSchema = z.object({
  collection: z.string(),
  itemId: z.string(),
  snapshot: itemSnapshotSchema,
  /** What changed: the keys whose value differs, with their new values (null when removed). */
  delta: contentObjectSchema,
  /** Why, when not a plain write: a revert's revision, a promotion's version, `draft: true` for a draft write, ... */
  cause: record.optional(),
  /** The item's draft (X-Svc-Draft writes) after the event, when it has one: `status`, `sort` and content. */
  draft: contentObjectSchema.optional(),
});
export type ItemEventData = z.infer<typeof itemEventDataSchema>;

export const itemEventSchemas = {
  'item.created': itemEventDataSchema,
  'item.updated': itemEventDataSchema,
  'item.deleted': itemEventDataSchema,
  'item.restored': itemEventDataSchema,
  'item.reverted': itemEventDataSchema,
  'item.promoted': itemEventDataSchema,
  'item.hard_deleted': itemEventDataSchema,
} satisfies Record<ItemEventType, typeof itemEventDataSchema>;

export type ItemEvent = EventOf<typeof itemEventSchemas>;

/** Reads of pii/phi fields, logged once per read request that returned such fields. */
export const sensitiveReadEventDataSchema = z.object({
  reads: z.array(
    z.object({
      collection: z.string(),
      itemId: z.string(),
      fields: z.array(z.object({ field: z.string(), sensitivity: z.enum(SENSITIVITY_CLASSES) })),
    }),
  ),
});
export type SensitiveReadEventData = z.infer<typeof sensitiveReadEventDataSchema>;
export type SensitiveRead = SensitiveReadEventData['reads'][number];

// Collections and fields

export const collectionMetaSchema: z.ZodType<CollectionMeta> = z.object({
  displayName: z.string().nullable(),
  icon: z.string().nullable(),
  note: z.string().nullable(),
  singleton: z.boolean(),
  status_field: z.string().nullable(),
  sort_field: z.string().nullable(),
  editorialWorkflow: z.boolean(),
  requireSeparateReviewer: z.boolean(),
  versioning: z.boolean(),
});

export const contentFieldSchema: z.ZodType<ContentField> = z.object({
  field: z.string(),
  type: z.enum(FIELD_TYPES),
  interface: z.string().nullable(),
  display: z.string().nullable(),
  options: record,
  required: z.boolean(),
  sort: z.number().nullable(),
  sensitivity: z.enum(SENSITIVITY_CLASSES).nullable(),
  indexed: z.boolean(),
  note: z.string().nullable(),
});

export const COLLECTION_EVENT_TYPES = ['collection.created', 'collection.updated', 'collection.deleted'] as const;
export const FIELD_EVENT_TYPES = ['field.added', 'field.updated', 'field.removed'] as const;

const collectionWithMeta = z.object({ collection: z.string(), meta: collectionMetaSchema });
const collectionWithField = z.object({ collection: z.string(), field: contentFieldSchema });
/**
 * A type change (domain/content/fieldTypeChange.ts) is a field update that says so: the read models
 * that hold the field's values convert them when they fold it. Absent on every other update.
 */
const fieldUpdated = collectionWithField.extend({ typeChange: z.object({ from: z.enum(FIELD_TYPES), to: z.enum(FIELD_TYPES) }).optional() });

export const collectionEventSchemas = {
  'collection.created': collectionWithMeta,
  'collection.updated': collectionWithMeta,
  'collection.deleted': z.object({ collection: z.string() }),
  'field.added': collectionWithField,
  'field.updated': fieldUpdated,
  /** `field`: the removed field's name. */
  'field.removed': z.object({ collection: z.string(), field: z.string() }),
};

export type CollectionEvent = EventOf<typeof collectionEventSchemas>;

// Relations

export const relationDefinitionSchema: z.ZodType<RelationDefinition> = z.object({
  id: z.string(),
  kind: z.enum(RELATION_KINDS),
  collection: z.string(),
  field: z.string(),
  relatedCollection: z.string().nullable(),
  relatedField: z.string().nullable(),
  junctionCollection: z.string().nullable(),
  junctionField: z.string().nullable(),
  junctionRelatedField: z.string().nullable(),
  junctionItemField: z.string().nullable(),
  junctionCollectionField: z.string().nullable(),
  allowedCollections: z.array(z.string()).nullable(),
  onDelete: z.enum(ON_DELETE_BEHAVIOURS),
});

export const RELATION_EVENT_TYPES = ['relation.created', 'relation.updated', 'relation.deleted'] as const;

/** Each carries the relation as it is after the event (as it was, for a delete). */
const relationChange = z.object({ relationId: z.string(), relation: relationDefinitionSchema });

export const relationEventSchemas = {
  'relation.created': relationChange,
  'relation.updated': relationChange,
  'relation.deleted': relationChange,
};

export type RelationEvent = EventOf<typeof relationEventSchemas>;

const sensitiveReadEventSchemas = { 'item.sensitive_read': sensitiveReadEventDataSchema };
export type SensitiveReadEvent = EventOf<typeof sensitiveReadEventSchemas>;

/** Every event type of the content context with the schema of its data (versions and pins: ./versions/events.ts). */
export const contentEventSchemas = {
  ...itemEventSchemas,
  ...sensitiveReadEventSchemas,
  ...collectionEventSchemas,
  ...relationEventSchemas,
  ...versionEventSchemas,
  ...pinEventSchemas,
};

