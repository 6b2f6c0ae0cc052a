// The shared parts of the document: the spec's error envelope, the item (a per-site runtime shape,
// so only its structural fields are typed), the list metas, and the success envelope around a data shape.
import type { JsonSchema } from './documentSchemas.ts';

export const componentRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

export const sharedComponents: Record<string, JsonSchema> = {
  Error: {
    type: 'object',
    description: 'One error of the envelope: a code of the spec (listed per response), a message for people, where in the request it applies, and details.',
    required: ['code', 'message', 'path', 'extensions'],
    properties: {
      code: { type: 'string', description: 'A stable code from the spec’s Errors table (each response lists the ones it can carry).' },
      message: { type: 'string' },
      path: {
        type: 'array',
        description: 'Where in the request the error applies, e.g. `["body", "email"]` or `["params", "id"]`; empty when it applies to the whole request.',
        items: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      },
      extensions: { type: 'object', additionalProperties: true, description: 'Details of the error (e.g. `retryAfter`, `dependents`, `reason`).' },
    },
  },
  ErrorEnvelope: {
    type: 'object',
    description: 'The error envelope of every REST answer that is not a success.',
    required: ['errors'],
    properties: { errors: { type: 'array', minItems: 1, items: componentRef('Error') } },
  },
  Item: {
    type: 'object',
    description:
      'A content item. Collections and their fields are defined per site at runtime, so this static document types the structural ' +
      'fields only; the declared content fields of the collection (per field type) come beside them as further properties. ' +
      'A site’s own shapes: GET /collections/{name}/schema.',
    properties: {
      id: { type: 'string', description: 'UUIDv7' },
      status: { type: 'string', description: 'Workflow status, e.g. draft, published, archived' },
      sort: { type: ['integer', 'null'] },
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: ['string', 'null'], format: 'date-time' },
      userCreated: { type: ['string', 'null'] },
      userUpdated: { type: ['string', 'null'] },
    },
    additionalProperties: true,
  },
  PageMeta: {
    type: 'object',
    description: 'The meta of a paged list.',
    required: ['total', 'page', 'pageSize'],
    properties: { total: { type: 'integer' }, page: { type: 'integer' }, pageSize: { type: 'integer' } },
  },
  ItemListMeta: {
    type: 'object',
    description: 'The meta of an item list: `total` unless `meta=none` was asked.',
    required: ['limit', 'offset'],
    properties: { total: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' } },
  },
};

/** The spec's success envelope `{ data, meta? }` around a data shape. */
export function successEnvelope(data: JsonSchema, meta?: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['data'],
    properties: meta ? { data, meta } : { data },
  };
}
