// The operations of the service's own OpenAPI document, as the sweeping tests (fuzz, tenancy) walk
// them: the document is fetched from the running service, so a route added later is walked too.
// Also a plain value for a JSON schema, to build a request that gets past validation.
import type { TestService } from './testService.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Who may call an operation, as its `security` says: none, a site's bearer, the instance token, the site alone. */
export type OperationAccess = 'public' | 'site' | 'bearer' | 'instance';

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  method: string;
  /** The document's path, `/api/v1/items/{collection}`. */
  path: string;
  /** The path the test service's request helper takes: without `/api/v1`. */
  apiPath: string;
  key: string;
  /** The operation's first tag (its area in the document). */
  tag: string;
  access: OperationAccess;
  pathParameters: Parameter[];
  queryParameters: Parameter[];
  /** The JSON body's schema, when the operation takes a JSON body. */
  bodySchema: JsonSchema | null;
  /** Other body types it takes (a raw upload), when it takes no JSON. */
  otherBodyTypes: string[];
}

export type JsonSchema = Record<string, any>;

export interface OpenApiDocument {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, JsonSchema> };
}

export async function fetchOpenApiDocument(service: TestService): Promise<OpenApiDocument> {
  const response = await service.request('GET', '/openapi.json');
  if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}`);
  return response.body as OpenApiDocument;
}

function accessOf(security: Record<string, unknown>[] | undefined): OperationAccess {
  const schemes = new Set((security ?? []).flatMap((requirement) => Object.keys(requirement)));
  if (schemes.has('bearer')) return schemes.has('site') ? 'bearer' : 'instance';
  return schemes.has('site') ? 'site' : 'public';
}

export function listOperations(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map((method) => {
      const operation = item[method];
      const parameters: Parameter[] = (operation.parameters ?? []).map((parameter: any) => ({
        name: parameter.name,
        in: parameter.in,
        required: parameter.required === true,
        schema: parameter.schema ?? {},
      }));
      const content: Record<string, { schema?: JsonSchema }> = operation.requestBody?.content ?? {};
      return {
        method: method.toUpperCase(),
        path,
        apiPath: path.replace(/^\/api\/v1/, ''),
        key: `${method.toUpperCase()} ${path}`,
        tag: operation.tags?.[0] ?? 'untagged',
        access: accessOf(operation.security),
        pathParameters: parameters.filter((parameter) => parameter.in === 'path'),
        queryParameters: parameters.filter((parameter) => parameter.in === 'query'),
        bodySchema: content['application/json']?.schema ?? null,
        otherBodyTypes: Object.keys(content).filter((type) => type !== 'application/json'),
      };
    }),
  );
}

/** The path with its parameters filled (each value percent-encoded unless `raw`). */
export function fillPath(operation: Operation, values: Record<string, string>, raw: ReadonlySet<string> = new Set()): string {
  return operation.apiPath.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name] ?? '';
    return raw.has(name) ? value : encodeURIComponent(value);
  });
}

export function resolveSchema(document: OpenApiDocument, schema: JsonSchema | undefined): JsonSchema {
  let current = schema ?? {};
  for (let hops = 0; current.$ref && hops < 20; hops += 1) {
    current = document.components.schemas[String(current.$ref).replace('#/components/schemas/', '')] ?? {};
  }
  if (Array.isArray(current.allOf)) {
    const parts = current.allOf.map((part: JsonSchema) => resolveSchema(document, part));
    const merged: JsonSchema = { type: 'object', properties: {}, required: [] };
    for (const part of [current, ...parts]) {
      Object.assign(merged.properties, part.properties ?? {});
      merged.required.push(...(part.required ?? []));
    }
    return merged;
  }
  return current;
}

/** The schema's types (`type` may be a list; `nullable` adds null). */
export function typesOf(document: OpenApiDocument, schema: JsonSchema): string[] {
  const resolved = resolveSchema(document, schema);
  const options: JsonSchema[] = resolved.anyOf ?? resolved.oneOf ?? [resolved];
  const types = new Set<string>();
  for (const option of options) {
    const one = resolveSchema(document, option);
    const listed = Array.isArray(one.type) ? one.type : one.type ? [one.type] : one.properties ? ['object'] : [];
    for (const type of listed) types.add(type === 'integer' ? 'number' : type);
    if (one.nullable) types.add('null');
    if (one.enum) for (const value of one.enum) types.add(value === null ? 'null' : typeof value);
  }
  return [...types];
}

const STRING_CANDIDATES = ['notes', 'abc123', 'a', 'fuzz-value', 'Fuzz Value', 'x', '1', 'en', 'abcdefgh', 'title'];

function stringFor(schema: JsonSchema): string {
  switch (schema.format) {
    case 'email':
      return 'fuzz@example.test';
    case 'uuid':
      return '01890f4e-1d6a-7c1a-9d2b-0123456789ab';
    case 'date-time':
      return '2030-01-01T00:00:00.000Z';
    case 'date':
      return '2030-01-01';
    case 'uri':
    case 'url':
      return 'https://example.test/fuzz';
    default:
      break;
  }
  const minimum = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const fits = (value: string) =>
    value.length >= minimum &&
    (schema.maxLength === undefined || value.length <= schema.maxLength) &&
    (schema.pattern === undefined || new RegExp(schema.pattern, 'u').test(value));
  const found = STRING_CANDIDATES.find(fits);
  if (found !== undefined) return found;
  return 'a'.repeat(Math.max(1, minimum));
}

/**
 * A plain value the schema takes (as best a few rules can): required properties only, the first enum
 * value or option, a string meeting its format, pattern and length where one of a few candidates
 * does. Good enough to get past validation to the handler; nothing relies on it being accepted.
 */
export function exampleFor(document: OpenApiDocument, schema: JsonSchema | undefined, depth = 0): unknown {
  const resolved = resolveSchema(document, schema);
  if (depth > 8) return null;
  if ('const' in resolved) return resolved.const;
  if (Array.isArray(resolved.enum) && resolved.enum.length > 0) return resolved.enum[0];
  if ('default' in resolved && resolved.default !== undefined) return resolved.default;
  const options: JsonSchema[] | undefined = resolved.anyOf ?? resolved.oneOf;
  if (options) {
    const chosen = options.map((option) => resolveSchema(document, option)).find((option) => option.type !== 'null') ?? options[0];
    return exampleFor(document, chosen, depth + 1);
  }
  const type = Array.isArray(resolved.type) ? (resolved.type.find((one: string) => one !== 'null') ?? 'null') : resolved.type;
  switch (type ?? (resolved.properties ? 'object' : undefined)) {
    case 'string':
      return stringFor(resolved);
    case 'integer':
    case 'number':
      return typeof resolved.minimum === 'number' ? resolved.minimum : typeof resolved.exclusiveMinimum === 'number' ? resolved.exclusiveMinimum + 1 : 1;
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array': {
      const count = typeof resolved.minItems === 'number' ? resolved.minItems : 0;
      return Array.from({ length: count }, () => exampleFor(document, resolved.items, depth + 1));
    }
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const name of resolved.required ?? []) value[name] = exampleFor(document, resolved.properties?.[name], depth + 1);
      return value;
    }
    default:
      return {};
  }
}
