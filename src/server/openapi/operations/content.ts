// The content model (collections, fields, relations), items with their history, and search.
import { z } from 'zod';
import type { OperationCatalogue } from '../operationEntry.ts';
import { item, itemField, itemListMeta, noContent, nullableTimestamp, openObject, timestamp } from './shapes.ts';

const collection = z
  .object({ name: z.string(), displayName: z.string().nullable().optional(), icon: z.string().nullable().optional(), note: z.string().nullable().optional(), singleton: z.boolean().optional() })
  .catchall(z.unknown())
  .describe('A collection and its meta (status and sort fields, editorial workflow, …)');
const field = z
  .object({ field: z.string(), type: z.string(), required: z.boolean().optional() })
  .catchall(z.unknown())
  .describe('A field: its type, interface, display, options, validation, sensitivity, …');
const relation = z
  .object({ id: z.string(), onDelete: z.enum(['restrict', 'set null', 'cascade']).optional() })
  .catchall(z.unknown())
  .describe('A relation: its kind (m2o, o2m, m2m, m2a), the fields on each side, its onDelete');
const revision = z.object({
  revisionId: z.string(),
  collection: z.string(),
  item: z.string(),
  version: z.number(),
  event: z.string(),
  actor: z.object({ kind: z.string(), id: z.string().nullable() }),
  timestamp,
  requestId: z.string().nullable(),
  staged: z.boolean(),
  cause: openObject.nullable(),
  draft: openObject.nullable(),
  data: openObject.describe('The item after the change'),
  delta: openObject.describe('The changed fields with their new values'),
});
const version = z.object({
  key: z.string(),
  name: z.string(),
  collection: z.string(),
  item: z.string(),
  data: openObject,
  baseVersion: z.number(),
  mainChanged: z.boolean(),
  createdAt: timestamp,
  updatedAt: timestamp,
  userCreated: z.string().nullable(),
  userUpdated: z.string().nullable(),
  promotedAt: nullableTimestamp,
});
const pin = z.object({
  collection: z.string(),
  item: z.string(),
  field: z.string(),
  revisionId: z.string(),
  target: z.object({ collection: z.string(), item: z.string() }),
  createdAt: timestamp,
  userCreated: z.string().nullable(),
  pinned: openObject.describe('The pinned revision’s item, as readers see it through the pin'),
});
const listParameters = z.object({
  fields: z.string().optional().describe('Comma list of fields and nested relations, e.g. `title,author.name`'),
  filter: z.string().optional().describe('JSON filter; the bracket form `filter[field][_op]=value` is also read'),
  sort: z.string().optional().describe('Comma list, `-` prefix for descending'),
  limit: z.string().optional().describe('1 to 200, default 25'),
  offset: z.string().optional(),
  page: z.string().optional().describe('1-indexed page, instead of offset'),
  meta: z.enum(['total_count', 'none']).optional().describe('`none` skips the count'),
  search: z.string().optional(),
  asOf: z.string().optional().describe('Read the items as they were at this time or revision'),
});
const itemParameters = listParameters.pick({ fields: true, asOf: true });
const readRules = 'Reads apply the role’s item permissions (row filter and field mask); `X-Svc-Draft: true` reads drafts, `X-Svc-Locale` translates.';
const writeRules = 'Writes go through validation, permissions and the item-write hooks (e.g. the editorial gate). `If-Match` names the expected version (412 otherwise). The answer carries the new `ETag`.';
const itemErrors = ['RECORD_NOT_FOUND', 'PERMISSION_DENIED'] as const;

export const contentOperations: OperationCatalogue = {
  'GET /collections': { summary: 'List the collections the caller may see', response: { data: z.array(collection) } },
  'POST /collections': { summary: 'Create a collection with its fields', errors: ['CONFLICT'], response: { status: 201, data: collection } },
  'POST /collections/diff': {
    summary: 'Compare a schema bundle with the current collections',
    response: { data: z.object({ collections: z.array(z.object({ name: z.string(), status: z.string() }).catchall(z.unknown())), hasChanges: z.boolean() }) },
  },
  'GET /collections/{name}': { summary: 'One collection', response: { data: collection } },
  'PATCH /collections/{name}': { summary: 'Update a collection’s meta (display name, icon, note, workflow, …)', response: { data: collection } },
  'DELETE /collections/{name}': { summary: 'Delete a collection (soft delete)', errors: ['CONFLICT'], response: noContent('The collection is deleted.') },
  'GET /collections/{name}/schema': { summary: 'Export a collection’s schema as JSON', response: { data: openObject.describe('The collection with its fields and relations') } },
  'PUT /collections/{name}/schema': {
    summary: 'Apply a collection schema (idempotent, diff-aware)',
    errors: ['CONFLICT', 'DESTRUCTIVE_BLOCKED'],
    response: { data: openObject.describe('The collection’s schema as applied'), meta: openObject.describe('What changed') },
  },
  'GET /fields/{collection}': {
    summary: 'List a collection’s fields',
    description: 'Administrators also get `meta.indexStatus`: per field, the state of its index.',
    response: { data: z.array(field), meta: z.object({ indexStatus: z.record(z.string(), z.unknown()) }).partial() },
  },
  'POST /fields/{collection}': { summary: 'Add a field', errors: ['CONFLICT'], response: { status: 201, data: field } },
  'GET /fields/{collection}/{field}': { summary: 'One field', response: { data: field, meta: z.object({ indexStatus: z.unknown() }).partial() } },
  'PATCH /fields/{collection}/{field}': {
    summary: 'Update a field',
    description: 'A type change converts the stored values; `meta` then says how.',
    errors: ['CONFLICT', 'DESTRUCTIVE_BLOCKED'],
    response: { data: field, meta: openObject.optional() },
  },
  'DELETE /fields/{collection}/{field}': { summary: 'Remove a field', errors: ['CONFLICT'], response: noContent('The field is removed.') },
  'GET /relations': { summary: 'List the relations the caller may see', response: { data: z.array(relation) } },
  'POST /relations': { summary: 'Create a relation', errors: ['CONFLICT'], response: { status: 201, data: relation } },
  'GET /relations/{id}': { summary: 'One relation', response: { data: relation } },
  'PATCH /relations/{id}': { summary: 'Update a relation', errors: ['CONFLICT'], response: { data: relation } },
  'DELETE /relations/{id}': { summary: 'Remove a relation', response: noContent('The relation is removed.') },
  'GET /items/{collection}': {
    summary: 'List items',
    description: `Filterable, sortable and paged (the spec’s list parameters). ${readRules}`,
    errors: ['VALIDATION', 'PERMISSION_DENIED'],
    query: listParameters,
    response: { data: { type: 'array', items: item }, meta: itemListMeta },
  },
  'POST /items/{collection}': {
    summary: 'Create an item, or several',
    description: `The body is an item, or an array of items (bulk create, all or nothing); the answer is the same shape. ${writeRules}`,
    errors: ['PERMISSION_DENIED', 'CONFLICT'],
    response: { status: 201, data: { anyOf: [item, { type: 'array', items: item }] } },
  },
  'GET /items/{collection}/{id}': { summary: 'One item', description: readRules, notFound: 'RECORD_NOT_FOUND', errors: [...itemErrors], query: itemParameters, response: { data: item } },
  'PATCH /items/{collection}/{id}': { summary: 'Update an item (partial)', description: writeRules, notFound: 'RECORD_NOT_FOUND', errors: [...itemErrors, 'CONFLICT', 'PRECONDITION_FAILED'], response: { data: item } },
  'PUT /items/{collection}/{id}': { summary: 'Replace an item', description: writeRules, notFound: 'RECORD_NOT_FOUND', errors: [...itemErrors, 'CONFLICT', 'PRECONDITION_FAILED'], response: { data: item } },
  'DELETE /items/{collection}/{id}': {
    summary: 'Delete an item',
    description: 'Refused with 409 `DEPENDENT_RECORDS_EXIST` (and the `dependents`) while a `restrict` relation points at it. `If-Match` names the expected version.',
    notFound: 'RECORD_NOT_FOUND',
    errors: [...itemErrors, 'DEPENDENT_RECORDS_EXIST', 'PRECONDITION_FAILED'],
    response: noContent('The item is deleted.'),
  },
  'GET /items/{collection}/{id}/dependents': {
    summary: 'What points at an item, and whether it blocks a delete',
    notFound: 'RECORD_NOT_FOUND',
    response: {
      data: z.object({
        blocking: z.boolean(),
        dependents: z.array(z.object({ relation: z.string(), collection: z.string(), field: z.string(), onDelete: z.string(), count: z.number(), sample: z.array(z.string()) })),
      }),
    },
  },
  'POST /items/{collection}/{id}/resolve-dependents': {
    summary: 'Resolve an item’s dependents (set null, delete or reassign), in one transaction',
    notFound: 'RECORD_NOT_FOUND',
    errors: ['FIELD_REQUIRED', 'INVALID_TARGET', 'PERMISSION_DENIED'],
    response: { data: openObject.describe('What was changed per relation') },
  },
  'GET /items/{collection}/{id}/revisions': {
    summary: 'An item’s revisions',
    notFound: 'RECORD_NOT_FOUND',
    response: { data: z.array(revision), meta: z.object({ total: z.number(), page: z.number(), limit: z.number() }) },
  },
  'POST /items/{collection}/{id}/revert': { summary: 'Revert an item to a revision', notFound: 'RECORD_NOT_FOUND', errors: ['PERMISSION_DENIED', 'CONFLICT'], response: { data: item } },
  'GET /items/{collection}/{id}/versions': { summary: 'An item’s named versions', notFound: 'RECORD_NOT_FOUND', response: { data: z.array(version), meta: z.object({ total: z.number() }) } },
  'POST /items/{collection}/{id}/versions': {
    summary: 'Create a named version (a snapshot of main)',
    notFound: 'RECORD_NOT_FOUND',
    errors: ['CONFLICT'],
    response: { status: 201, data: version },
  },
  'GET /items/{collection}/{id}/versions/{key}': { summary: 'One named version', notFound: 'RECORD_NOT_FOUND', response: { data: version } },
  'PATCH /items/{collection}/{id}/versions/{key}': { summary: 'Update a named version’s data or name (main is untouched)', notFound: 'RECORD_NOT_FOUND', response: { data: version } },
  'DELETE /items/{collection}/{id}/versions/{key}': { summary: 'Delete a named version', notFound: 'RECORD_NOT_FOUND', response: noContent('The version is deleted.') },
  'GET /items/{collection}/{id}/versions/{key}/compare': {
    summary: 'Compare a named version with main',
    notFound: 'RECORD_NOT_FOUND',
    response: { data: z.object({ main: itemField, version: openObject, changes: openObject.describe('The fields the version would change, with its values') }) },
  },
  'POST /items/{collection}/{id}/versions/{key}/promote': {
    summary: 'Apply a named version to main (writes a revision)',
    notFound: 'RECORD_NOT_FOUND',
    errors: ['PERMISSION_DENIED', 'CONFLICT'],
    response: { data: item, meta: z.object({ mainDiverged: z.boolean(), revisionId: z.string().nullable() }) },
  },
  'GET /items/{collection}/{id}/pins': { summary: 'An item’s revision pins', notFound: 'RECORD_NOT_FOUND', response: { data: z.array(pin), meta: z.object({ total: z.number() }) } },
  'POST /items/{collection}/{id}/pins': {
    summary: 'Pin a relation field to a revision of its target',
    notFound: 'RECORD_NOT_FOUND',
    errors: ['REVISION_STAGED', 'CONFLICT'],
    response: { status: 201, data: pin },
  },
  'DELETE /items/{collection}/{id}/pins': { summary: 'Release every pin of an item', notFound: 'RECORD_NOT_FOUND', response: noContent('The pins are released.') },
  'GET /items/{collection}/{id}/pins/{field}': { summary: 'One pin', notFound: 'RECORD_NOT_FOUND', response: { data: pin } },
  'DELETE /items/{collection}/{id}/pins/{field}': { summary: 'Release one pin', notFound: 'RECORD_NOT_FOUND', response: noContent('The pin is released.') },
  'GET /search': {
    summary: 'Full-text search over items',
    description: 'One collection, or every collection the caller may read when `collection` is omitted; diacritics-insensitive.',
    response: {
      data: z.array(z.object({ collection: z.string(), id: z.string() }).catchall(z.unknown())),
      meta: z.object({ total: z.number(), page: z.number(), limit: z.number() }),
    },
  },
};
