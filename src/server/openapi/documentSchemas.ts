// Zod schemas become the document's JSON schemas here. A recursive schema (`z.json()`, say) is
// written by zod with `$defs` local to the schema; those are hoisted into `components.schemas` and the
// references rewritten, because a `#/$defs/…` reference inside an OpenAPI document resolves against
// the document's root, where nothing answers it (fastify-type-provider-zod dropped the `$defs` and
// left `#/components/schemas/schema0` dangling).
import { createHash } from 'node:crypto';
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;
/** What a catalogue entry gives as a shape: a zod schema, or a JSON schema as written. */
export type DocumentedShape = z.ZodType | JsonSchema;

/** The JSON value of `z.json()`: recognised among hoisted definitions so that it is named once. */
const JSON_VALUE_NAME = 'JsonValue';

export interface SchemaConverter {
  /** A zod schema (input: as a caller sends it; output: as the service answers) as a document schema. */
  convert(shape: DocumentedShape, io: 'input' | 'output'): JsonSchema;
  /** The definitions hoisted so far, to add to `components.schemas`. */
  hoisted(): Record<string, JsonSchema>;
}

export function createSchemaConverter(): SchemaConverter {
  const hoisted = new Map<string, JsonSchema>();

  function convert(shape: DocumentedShape, io: 'input' | 'output'): JsonSchema {
    if (!(shape instanceof z.ZodType)) return shape;
    const generated = z.toJSONSchema(shape, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
      cycles: 'ref',
      reused: 'inline',
      override: (context) => adjust(context, io),
    }) as JsonSchema;
    const { $schema: _schema, $defs: definitions, ...schema } = generated;
    const names = new Map<string, string>();
    for (const [local, definition] of Object.entries((definitions ?? {}) as Record<string, JsonSchema>)) {
      names.set(local, nameFor(local, definition));
    }
    for (const [local, definition] of Object.entries((definitions ?? {}) as Record<string, JsonSchema>)) {
      hoisted.set(names.get(local)!, rewriteReferences(definition, names) as JsonSchema);
    }
    return rewriteReferences(schema, names) as JsonSchema;
  }

  /** A stable name: the JSON value's, or one derived from the definition's content (with its own references made neutral). */
  function nameFor(local: string, definition: JsonSchema): string {
    const neutral = JSON.stringify(definition).replaceAll(`#/$defs/${local}`, '#self');
    if (neutral === JSON.stringify(JSON_VALUE_SHAPE)) return JSON_VALUE_NAME;
    return `Recursive${createHash('sha256').update(neutral).digest('hex').slice(0, 10)}`;
  }

  return { convert, hoisted: () => Object.fromEntries(hoisted) };
}

const JSON_VALUE_SHAPE = {
  anyOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'null' },
    { type: 'array', items: { $ref: '#self' } },
    { type: 'object', propertyNames: { type: 'string' }, additionalProperties: { $ref: '#self' } },
  ],
};

function rewriteReferences(value: unknown, names: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((entry) => rewriteReferences(entry, names));
  if (value === null || typeof value !== 'object') return value;
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const local = key === '$ref' && typeof child === 'string' ? /^#\/\$defs\/(.+)$/.exec(child)?.[1] : undefined;
    result[key] = local !== undefined && names.has(local) ? `#/components/schemas/${names.get(local)}` : rewriteReferences(child, names);
  }
  return result;
}

/** What fastify-type-provider-zod adjusts too: no empty branches in a union; dates answer as strings; nothing answers as null. */
function adjust(context: { zodSchema: unknown; jsonSchema: JsonSchema }, io: 'input' | 'output'): void {
  const definition = (context.zodSchema as { _zod: { def: { type: string } } })._zod.def;
  if (definition.type === 'union' && Array.isArray(context.jsonSchema.anyOf)) {
    const branches = (context.jsonSchema.anyOf as JsonSchema[]).filter((branch) => Object.keys(branch).length > 0);
    // A union with an unconstrained branch accepts anything: say so, rather than an empty anyOf.
    if (branches.length < (context.jsonSchema.anyOf as JsonSchema[]).length) delete context.jsonSchema.anyOf;
    else context.jsonSchema.anyOf = branches;
  }
  if (io === 'output' && definition.type === 'date') {
    context.jsonSchema.type = 'string';
    context.jsonSchema.format = 'date-time';
  }
  if (io === 'output' && definition.type === 'undefined') context.jsonSchema.type = 'null';
}
