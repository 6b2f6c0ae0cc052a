// What clients may send to declare collections, fields and relations (zod, checked at the edge), and
// how a declaration becomes the stored shape with its defaults.
import { z } from 'zod';
import { AppError } from '../shared/appError.ts';
import {
  COLLECTION_NAME_PATTERN,
  DEFAULT_COLLECTION_META,
  FIELD_NAME_PATTERN,
  FIELD_TYPES,
  ON_DELETE_BEHAVIOURS,
  PROTOTYPE_NAMES,
  RELATION_ID_PATTERN,
  RELATION_KINDS,
  SENSITIVITY_CLASSES,
  type CollectionMeta,
  type ContentField,
  type FieldType,
  type RelationDefinition,
} from './schemaModel.ts';

const NUMERIC_TYPES: ReadonlySet<FieldType> = new Set(['integer', 'float', 'decimal', 'bigInteger']);
const LENGTH_TYPES: ReadonlySet<FieldType> = new Set(['string', 'text', 'code', 'slug', 'csv', 'hash']);
/** Structural columns a collection may declare as fields (to give them options such as choices), with the types they allow. */
const DECLARABLE_STRUCTURAL: ReadonlyMap<string, readonly FieldType[]> = new Map([
  ['status', ['string']],
  ['sort', ['integer']],
]);
const RESERVED_FIELD_NAMES: ReadonlySet<string> = new Set(['id', 'createdAt', 'updatedAt', 'userCreated', 'userUpdated', 'deletedAt']);

export const collectionName = z
  .string()
  .regex(COLLECTION_NAME_PATTERN, 'a letter, then letters, digits or _, at most 64 characters')
  .refine((name) => !PROTOTYPE_NAMES.has(name), 'this name is reserved');
export const fieldName = z
  .string()
  .regex(FIELD_NAME_PATTERN, 'a letter, then letters, digits or _, at most 64 characters')
  .refine((name) => !PROTOTYPE_NAMES.has(name), 'this name is reserved');
const shortText = z.string().max(200);

function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > 32) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return typeof value !== 'string' || !value.includes('\u0000');
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((element) => isJsonValue(element, depth + 1));
  if (typeof value === 'object') return Object.values(value as object).every((element) => isJsonValue(element, depth + 1));
  return false;
}

const fieldOptions = z.record(z.string(), z.unknown()).refine((options) => isJsonValue(options), 'options must be JSON');

const fieldProperties = {
  interface: shortText.nullable().optional(),
  display: shortText.nullable().optional(),
  options: fieldOptions.nullable().optional(),
  required: z.boolean().optional(),
  sort: z.number().int().min(-2_147_483_648).max(2_147_483_647).nullable().optional(),
  sensitivity: z.enum(SENSITIVITY_CLASSES).nullable().optional(),
  indexed: z.boolean().optional(),
  note: z.string().max(2000).nullable().optional(),
};

/** Checks the options validation reads, and which names a field may take. */
function checkField(field: { field?: string; type?: FieldType; options?: Record<string, unknown> | null }, context: z.RefinementCtx): void {
  const { type, options } = field;
  if (field.field !== undefined) {
    if (RESERVED_FIELD_NAMES.has(field.field)) {
      context.addIssue({ code: 'custom', path: ['field'], message: `"${field.field}" is a structural column the service keeps` });
    }
    const allowed = DECLARABLE_STRUCTURAL.get(field.field);
    if (allowed && type !== undefined && !allowed.includes(type)) {
      context.addIssue({ code: 'custom', path: ['type'], message: `The structural field "${field.field}" must be of type ${allowed.join(' or ')}` });
    }
  }
  if (!options) return;
  const issue = (key: string, message: string) => context.addIssue({ code: 'custom', path: ['options', key], message });
  if (options.maxLength !== undefined) {
    const value = options.maxLength;
    if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > 10_000_000) issue('maxLength', 'maxLength must be a positive integer');
    else if (type !== undefined && !LENGTH_TYPES.has(type)) issue('maxLength', `maxLength does not apply to ${type} fields`);
  }
  for (const key of ['min', 'max'] as const) {
    if (options[key] === undefined) continue;
    if (typeof options[key] !== 'number' || !Number.isFinite(options[key])) issue(key, `${key} must be a number`);
    else if (type !== undefined && !NUMERIC_TYPES.has(type)) issue(key, `${key} does not apply to ${type} fields`);
  }
  if (typeof options.min === 'number' && typeof options.max === 'number' && options.min > options.max) issue('min', 'min must not exceed max');
  if (options.choices !== undefined) {
    const choices = options.choices;
    const valid =
      Array.isArray(choices) &&
      choices.every(
        (choice) =>
          ['string', 'number', 'boolean'].includes(typeof choice) ||
          (typeof choice === 'object' && choice !== null && 'value' in choice && ['string', 'number', 'boolean'].includes(typeof choice.value)),
      );
    if (!valid) issue('choices', 'choices must be an array of values or of { value, text }');
  }
  if (options.translatable !== undefined) {
    if (typeof options.translatable !== 'boolean') issue('translatable', 'translatable must be true or false');
    else if (options.translatable && (type === 'hash' || type === 'files')) issue('translatable', `${type} fields cannot be translatable`);
    else if (options.translatable && field.field !== undefined && field.field in DECLARABLE_STRUCTURAL) {
      issue('translatable', 'a structural column cannot be translatable');
    }
  }
  if (options.precision !== undefined && (!Number.isInteger(options.precision) || (options.precision as number) < 1 || (options.precision as number) > 1000)) {
    issue('precision', 'precision must be an integer from 1 to 1000');
  }
  if (options.scale !== undefined) {
    const precision = typeof options.precision === 'number' ? options.precision : 1000;
    if (!Number.isInteger(options.scale) || (options.scale as number) < 0 || (options.scale as number) > precision) {
      issue('scale', 'scale must be an integer from 0 to precision');
    }
  }
}

export const fieldInput = z
  .object({ field: fieldName, type: z.enum(FIELD_TYPES), ...fieldProperties })
  .strict()
  .superRefine((field, context) => checkField(field, context));
export type FieldInput = z.infer<typeof fieldInput>;

/** PATCH /fields/:collection/:field: any property but the name. */
export const fieldPatchInput = z
  .object({ type: z.enum(FIELD_TYPES).optional(), ...fieldProperties })
  .strict()
  .superRefine((field, context) => checkField(field, context));
export type FieldPatchInput = z.infer<typeof fieldPatchInput>;

const collectionMetaProperties = {
  displayName: shortText.nullable().optional(),
  icon: z.string().max(100).nullable().optional(),
  note: z.string().max(2000).nullable().optional(),
  singleton: z.boolean().optional(),
  status_field: fieldName.nullable().optional(),
  sort_field: fieldName.nullable().optional(),
  editorialWorkflow: z.boolean().optional(),
  requireSeparateReviewer: z.boolean().optional(),
  versioning: z.boolean().optional(),
};

export const collectionMetaInput = z.object(collectionMetaProperties).strict();
export type CollectionMetaInput = z.infer<typeof collectionMetaInput>;

export const collectionCreateInput = z
  .object({ name: collectionName, ...collectionMetaProperties, fields: z.array(fieldInput).max(500).optional() })
  .strict()
  .superRefine((input, context) => {
    const seen = new Set<string>();
    input.fields?.forEach((field, index) => {
      if (seen.has(field.field)) context.addIssue({ code: 'custom', path: ['fields', index, 'field'], message: `Field "${field.field}" is declared twice` });
      seen.add(field.field);
    });
  });
export type CollectionCreateInput = z.infer<typeof collectionCreateInput>;

const relationProperties = {
  relatedCollection: collectionName.nullable().optional(),
  relatedField: fieldName.nullable().optional(),
  junctionCollection: collectionName.nullable().optional(),
  junctionField: fieldName.nullable().optional(),
  junctionRelatedField: fieldName.nullable().optional(),
  junctionItemField: fieldName.nullable().optional(),
  junctionCollectionField: fieldName.nullable().optional(),
  allowedCollections: z.array(collectionName).min(1).max(100).nullable().optional(),
  onDelete: z.enum(ON_DELETE_BEHAVIOURS).optional(),
};

/** Which properties each relation kind needs, and which it must not have. */
const RELATION_SHAPES: Record<RelationDefinition['kind'], { required: string[]; forbidden: string[] }> = {
  m2o: {
    required: ['relatedCollection'],
    forbidden: ['junctionCollection', 'junctionField', 'junctionRelatedField', 'junctionItemField', 'junctionCollectionField', 'allowedCollections'],
  },
  o2m: {
    required: ['relatedCollection', 'relatedField'],
    forbidden: ['junctionCollection', 'junctionField', 'junctionRelatedField', 'junctionItemField', 'junctionCollectionField', 'allowedCollections'],
  },
  m2m: {
    required: ['relatedCollection', 'junctionCollection', 'junctionField', 'junctionRelatedField'],
    forbidden: ['junctionItemField', 'junctionCollectionField', 'allowedCollections'],
  },
  m2a: {
    required: ['junctionCollection', 'junctionField', 'junctionItemField', 'junctionCollectionField', 'allowedCollections'],
    forbidden: ['relatedCollection', 'relatedField', 'junctionRelatedField'],
  },
};

function checkRelationShape(relation: Record<string, unknown> & { kind: RelationDefinition['kind'] }, context: z.RefinementCtx): void {
  const shape = RELATION_SHAPES[relation.kind];
  for (const key of shape.required) {
    if (relation[key] === undefined || relation[key] === null) {
      context.addIssue({ code: 'custom', path: [key], message: `A ${relation.kind} relation needs ${key}` });
    }
  }
  for (const key of shape.forbidden) {
    if (relation[key] !== undefined && relation[key] !== null) {
      context.addIssue({ code: 'custom', path: [key], message: `A ${relation.kind} relation has no ${key}` });
    }
  }
  if (relation.kind === 'm2m' && relation.junctionField === relation.junctionRelatedField && relation.junctionField) {
    context.addIssue({ code: 'custom', path: ['junctionRelatedField'], message: 'The two junction fields must differ' });
  }
  if (relation.kind === 'm2a') {
    const names = [relation.junctionField, relation.junctionItemField, relation.junctionCollectionField];
    if (new Set(names).size !== names.length) {
      context.addIssue({ code: 'custom', path: ['junctionItemField'], message: 'The three junction fields must differ' });
    }
  }
}

export const relationInput = z
  .object({ id: z.string().regex(RELATION_ID_PATTERN).optional(), kind: z.enum(RELATION_KINDS), collection: collectionName, field: fieldName, ...relationProperties })
  .strict()
  .superRefine((relation, context) => checkRelationShape(relation, context));
export type RelationInput = z.infer<typeof relationInput>;

/** PATCH /relations/:id: what may change without changing what the relation links. */
export const relationPatchInput = z
  .object({
    onDelete: z.enum(ON_DELETE_BEHAVIOURS).optional(),
    relatedField: fieldName.nullable().optional(),
    allowedCollections: z.array(collectionName).min(1).max(100).optional(),
  })
  .strict();
export type RelationPatchInput = z.infer<typeof relationPatchInput>;

/** Types whose values can be long: a btree index on them could refuse a write, so they cannot be `indexed`. */
const UNINDEXABLE_TYPES: ReadonlySet<FieldType> = new Set(['text', 'code', 'json', 'geometry', 'files', 'csv', 'hash']);
const MAX_INDEXED_LENGTH = 2000;

/** Rules on a whole field (after a PATCH too): what `indexed` allows. `basePath` points at the field in the body. */
export function checkFieldDefinition(field: ContentField, basePath: (string | number)[]): void {
  if (field.sensitivity && field.options.translatable === true) {
    // Each pii/phi value is sealed whole (docs/privacy.md): no language of it can be read or written apart.
    throw new AppError('VALIDATION_FAILED', 'pii/phi fields cannot be translatable', { path: [...basePath, 'sensitivity'] });
  }
  if (!field.indexed) return;
  const fail = (message: string) => new AppError('VALIDATION_FAILED', message, { path: [...basePath, 'indexed'] });
  if (UNINDEXABLE_TYPES.has(field.type)) throw fail(`${field.type} fields cannot be indexed`);
  if (field.options.translatable === true) throw fail('translatable fields cannot be indexed');
  if (typeof field.options.maxLength === 'number' && field.options.maxLength > MAX_INDEXED_LENGTH) {
    throw fail(`an indexed field accepts at most ${MAX_INDEXED_LENGTH} characters (options.maxLength)`);
  }
}

export function toContentField(input: FieldInput): ContentField {
  return {
    field: input.field,
    type: input.type,
    interface: input.interface ?? null,
    display: input.display ?? null,
    options: input.options ?? {},
    required: input.required ?? false,
    sort: input.sort ?? null,
    sensitivity: input.sensitivity ?? null,
    indexed: input.indexed ?? false,
    note: input.note ?? null,
  };
}

/** The field after a PATCH: given properties replace, absent ones stay; null clears. */
export function patchContentField(current: ContentField, patch: FieldPatchInput): ContentField {
  return {
    field: current.field,
    type: patch.type ?? current.type,
    interface: patch.interface !== undefined ? patch.interface : current.interface,
    display: patch.display !== undefined ? patch.display : current.display,
    options: patch.options !== undefined ? (patch.options ?? {}) : current.options,
    required: patch.required ?? current.required,
    sort: patch.sort !== undefined ? patch.sort : current.sort,
    sensitivity: patch.sensitivity !== undefined ? patch.sensitivity : current.sensitivity,
    indexed: patch.indexed ?? current.indexed,
    note: patch.note !== undefined ? patch.note : current.note,
  };
}

export function toCollectionMeta(input: CollectionMetaInput, base: CollectionMeta = DEFAULT_COLLECTION_META): CollectionMeta {
  const meta = { ...base };
  for (const key of Object.keys(DEFAULT_COLLECTION_META) as (keyof CollectionMeta)[]) {
    const value = input[key];
    if (value !== undefined) (meta as Record<string, unknown>)[key] = value;
  }
  return meta;
}

export function toRelationDefinition(input: RelationInput, id: string): RelationDefinition {
  return {
    id,
    kind: input.kind,
    collection: input.collection,
    field: input.field,
    relatedCollection: input.relatedCollection ?? null,
    relatedField: input.relatedField ?? null,
    junctionCollection: input.junctionCollection ?? null,
    junctionField: input.junctionField ?? null,
    junctionRelatedField: input.junctionRelatedField ?? null,
    junctionItemField: input.junctionItemField ?? null,
    junctionCollectionField: input.junctionCollectionField ?? null,
    allowedCollections: input.allowedCollections ?? null,
    onDelete: input.onDelete ?? 'set null',
  };
}

/** A schema bundle of one collection: what GET /collections/:name/schema exports and PUT applies. */
export const collectionSchemaInput = z
  .object({
    collection: collectionName.optional(),
    meta: collectionMetaInput.optional(),
    fields: z.array(fieldInput).max(500),
    relations: z.array(relationInput).max(200).optional(),
  })
  .strict()
  .superRefine((bundle, context) => {
    const seen = new Set<string>();
    bundle.fields.forEach((field, index) => {
      if (seen.has(field.field)) context.addIssue({ code: 'custom', path: ['fields', index, 'field'], message: `Field "${field.field}" is declared twice` });
      seen.add(field.field);
    });
  });
export type CollectionSchemaInput = z.infer<typeof collectionSchemaInput>;

/** Several collections' bundles: `{ collections: [bundle…] }`. */
export const collectionSchemaSet = z.object({ collections: z.array(collectionSchemaInput).min(1).max(200) }).strict();

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** GET's answer `{ data: … }`, as it comes, is taken for what it carries. */
const isEnvelope = (body: unknown): body is { data: unknown } => isObject(body) && Object.keys(body).length === 1 && 'data' in body;

/**
 * What POST /collections/diff compares with the site: a set of bundles, or one collection's bundle
 * as GET /collections/:name/schema exports it, either bare or in that answer's `{ data }` envelope.
 * The form is told by its keys and validated as that form, so an error's path is in the form that
 * was sent (a plain union answers only "Invalid input" at the top); the union is what OpenAPI shows.
 */
const collectionDiffForm = z.union([collectionSchemaSet, collectionSchemaInput]);
export const collectionDiffInput = z.preprocess(
  (body, context) => {
    const inner = isEnvelope(body) ? body.data : body;
    const form = isObject(inner) && 'collections' in inner ? collectionSchemaSet : collectionSchemaInput;
    for (const issue of form.safeParse(inner).error?.issues ?? []) {
      context.addIssue({ code: 'custom', message: issue.message, path: [...(inner === body ? [] : ['data']), ...issue.path] });
    }
    return body;
  },
  z.union([collectionDiffForm, z.object({ data: collectionDiffForm }).strict()]),
);
export type CollectionDiffInput = z.infer<typeof collectionDiffInput>;

/** The bundles of a diff body, each with where it sits in the body. */
export function bundlesOfDiff(body: CollectionDiffInput): { bundle: CollectionSchemaInput; path: (string | number)[] }[] {
  const [inner, path] = 'data' in body ? [body.data, ['data']] : [body, []];
  if ('collections' in inner) return inner.collections.map((bundle, index) => ({ bundle, path: [...path, 'collections', index] }));
  return [{ bundle: inner, path }];
}
