// Hostile requests for one operation of the OpenAPI document, drawn from a seeded random source:
// malformed and oddly typed JSON, wrong types per body property, huge strings, deep nesting, the keys
// of Object.prototype, Unicode that databases refuse or that reorders text, over-long and badly
// encoded path parameters, wrong-typed and oddly shaped query parameters, missing credentials.
import {
  exampleFor,
  fillPath,
  resolveSchema,
  typesOf,
  type JsonSchema,
  type OpenApiDocument,
  type Operation,
  type Parameter,
} from './openapiOperations.ts';
import type { SeededRandom } from './seededRandom.ts';

export interface HostileRequest {
  /** What the case sends, for the failure message. */
  label: string;
  method: string;
  /** The path with its query, as the test service's request helper takes it. */
  path: string;
  token: string | null;
  rawBody?: string;
  contentType?: string;
  /** The operation needs credentials and the case sends none (or a forged one): 401 is the only answer. */
  refusesCredentials: boolean;
}

export interface HostileContext {
  document: OpenApiDocument;
  random: SeededRandom;
  /** The credentials the operation is called with: the site administrator's token, or the instance token. */
  token: string;
  /** A value of the site for a path parameter (a collection it has, its item), when there is one. */
  knownPathValue(operation: Operation, parameter: string): string | undefined;
}

const MEGABYTE = 1024 * 1024;

/** Malformed JSON texts. */
export const MALFORMED_JSON = ['{', '{"a":', '[1,2', '{"a":1,}', "{'a':1}", 'nul', '{"a":1}{"b":2}', '{"a":"\\ud800', '"unterminated', '{"a" 1}', '\u0000', '{"a":01}', '{"a":NaN}', '{"a":Infinity}', '{"\\u0000":1'];
/** Valid JSON that is not an object. */
export const NOT_AN_OBJECT = ['[]', 'null', '1', '"text"', 'true', '[{}]', '-0', '1e400'];

/** Strings with code points that storage refuses, or that reorder, hide or combine text. */
export const UNICODE_EDGES: { label: string; value: string }[] = [
  { label: 'lone high surrogate', value: 'a\ud800b' },
  { label: 'lone low surrogate', value: '\udc00' },
  { label: 'NUL', value: 'a\u0000b' },
  { label: 'right-to-left override', value: '\u202eevil.exe\u202c' },
  { label: 'right-to-left mark', value: '\u200fname\u200f' },
  { label: 'zero-width joiner', value: 'a\u200d\u200db' },
  { label: 'combining marks', value: 'e\u0301\u0301\u0301\u0301' },
  { label: 'byte order mark', value: '\ufeffname' },
  { label: 'noncharacter', value: '\uffff\ufffe' },
  { label: 'astral emoji', value: '\u{1f4a9}\u{1f468}\u200d\u{1f469}\u200d\u{1f467}' },
  { label: 'line separators', value: 'a\u2028b\u2029c\r\n' },
];

/** Path parameter values, percent-encoded as sent: over-long, prototype keys, badly encoded UTF-8, traversal, odd numbers. */
export const HOSTILE_PATH_VALUES: { label: string; raw: string }[] = [
  { label: '1001 characters (over the router limit)', raw: 'x'.repeat(1001) },
  { label: '999 characters', raw: 'y'.repeat(999) },
  { label: '6000 characters', raw: 'z'.repeat(6000) },
  { label: '__proto__', raw: '__proto__' },
  { label: 'constructor', raw: 'constructor' },
  { label: 'prototype', raw: 'prototype' },
  { label: 'hasOwnProperty', raw: 'hasOwnProperty' },
  { label: 'NUL', raw: 'a%00b' },
  { label: 'lone surrogate as CESU-8', raw: '%ED%A0%80' },
  { label: 'invalid UTF-8 byte', raw: '%FF%FE' },
  { label: 'overlong UTF-8 slash', raw: '%C0%AF' },
  { label: 'right-to-left override', raw: '%E2%80%AEtxt.exe' },
  { label: 'astral emoji', raw: '%F0%9F%98%80' },
  { label: 'encoded traversal', raw: '..%2F..%2Fetc%2Fpasswd' },
  { label: 'bad percent escape', raw: '%zz' },
  { label: 'lone percent', raw: '%' },
  { label: 'minus one', raw: '-1' },
  { label: 'number overflow', raw: '1e309' },
  { label: '30 digits', raw: '9'.repeat(30) },
  { label: 'nil UUID', raw: '00000000-0000-0000-0000-000000000000' },
  { label: 'max UUID', raw: 'ffffffff-ffff-ffff-ffff-ffffffffffff' },
  { label: 'upper-case UUID with braces', raw: '%7B0189F0E4-1D6A-7C1A-9D2B-0123456789AB%7D' },
  { label: 'SQL', raw: "1'%20OR%20'1'%3D'1" },
  { label: 'null', raw: 'null' },
];

const NUMBER_VALUES = ['abc', '1.5', '-1', '0', '1e309', '99999999999999999999999', 'NaN', 'Infinity', '0x1F', '', '%201', '1%3BDROP%20TABLE%20events'];
const BOOLEAN_VALUES = ['maybe', '2', 'TRUE%20', ''];
const STRING_VALUES = [
  'q'.repeat(10_000),
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%FF',
  '%E2%80%AEevil',
  '%7B%22a%22%3A',
  "'%3B%20DROP%20TABLE%20events%3B%20--",
  '__proto__',
];

function wrongQueryValues(document: OpenApiDocument, parameter: Parameter): string[] {
  const types = typesOf(document, parameter.schema);
  const resolved = resolveSchema(document, parameter.schema);
  if (types.includes('number')) return NUMBER_VALUES;
  if (types.includes('boolean')) return BOOLEAN_VALUES;
  if (Array.isArray(resolved.enum)) return ['__not_listed__', '', ...STRING_VALUES.slice(0, 3)];
  return STRING_VALUES;
}

/** A JSON value of another type than the schema's. */
function wrongTypedValue(document: OpenApiDocument, schema: JsonSchema, random: SeededRandom): unknown {
  const types = typesOf(document, schema);
  const candidates: unknown[] = [12345, -1.5, 'text', true, null, [], [1, 'a', null], {}, { nested: { deeper: 1 } }, 2 ** 53 + 1, ''].filter((value) => {
    const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
    return !types.includes(type);
  });
  return candidates.length > 0 ? random.pick(candidates) : { unexpected: true };
}

function nestedArray(levels: number): unknown {
  let value: unknown = 'deep';
  for (let level = 0; level < levels; level += 1) value = [value];
  return value;
}

interface BodyShape {
  base: unknown;
  properties: Record<string, JsonSchema>;
  /** Properties that take strings, where text cases go. */
  stringProperties: string[];
}

function bodyShape(document: OpenApiDocument, operation: Operation): BodyShape | null {
  if (!operation.bodySchema) return null;
  const schema = resolveSchema(document, operation.bodySchema);
  const object = schema.properties ? schema : resolveSchema(document, (schema.anyOf ?? schema.oneOf)?.[0] ?? schema);
  const properties: Record<string, JsonSchema> = object.properties ?? {};
  const stringProperties = Object.keys(properties).filter((name) => typesOf(document, properties[name]!).includes('string'));
  return { base: exampleFor(document, operation.bodySchema), properties, stringProperties };
}

/** `base` (an object) with `name` set to a value, as JSON text. */
function withProperty(base: unknown, name: string, value: unknown): string {
  const object = typeof base === 'object' && base !== null && !Array.isArray(base) ? base : {};
  return JSON.stringify({ ...object, [name]: value });
}

/** Every hostile case of the operation (the caller samples them). `unauthenticated` comes first. */
export function hostileRequests(operation: Operation, context: HostileContext): HostileRequest[] {
  const { document, random, token } = context;
  const needsCredentials = operation.access === 'bearer' || operation.access === 'instance';
  const pathValues: Record<string, string> = {};
  const safeToUseKnown = operation.method === 'GET' || operation.bodySchema !== null;
  for (const parameter of operation.pathParameters) {
    pathValues[parameter.name] = (safeToUseKnown ? context.knownPathValue(operation, parameter.name) : undefined) ?? random.uuid();
  }
  const basePath = fillPath(operation, pathValues);
  const shape = bodyShape(document, operation);
  const baseBody = shape ? JSON.stringify(shape.base) : undefined;
  const baseObjectMembers = baseBody?.startsWith('{') && baseBody !== '{}' ? `,${baseBody.slice(1, -1)}` : '';
  const request = (label: string, overrides: Partial<HostileRequest> = {}): HostileRequest => ({
    label,
    method: operation.method,
    path: basePath,
    token,
    ...(baseBody === undefined ? {} : { rawBody: baseBody }),
    refusesCredentials: false,
    ...overrides,
  });

  const cases: HostileRequest[] = [
    request('unauthenticated', { token: null, refusesCredentials: needsCredentials }),
    request('forged bearer token', { token: random.pick(['not.a.jwt', 'svk_' + 'A'.repeat(40), 'eyJhbGciOiJub25lIn0.e30.', 'Bearer']), refusesCredentials: needsCredentials }),
  ];

  for (const parameter of operation.pathParameters) {
    const hostile = random.pick(HOSTILE_PATH_VALUES);
    const raw = new Set([parameter.name]);
    cases.push(request(`path ${parameter.name} = ${hostile.label}`, { path: fillPath(operation, { ...pathValues, [parameter.name]: hostile.raw }, raw) }));
  }

  for (const parameter of operation.queryParameters) {
    const value = random.pick(wrongQueryValues(document, parameter));
    cases.push(request(`query ${parameter.name} = ${value.slice(0, 40)}`, { path: `${basePath}?${parameter.name}=${value}` }));
  }
  // One odd shape of query string per operation: each is sent with an otherwise valid request, which may do real work.
  const someQueryName = operation.queryParameters.length > 0 ? random.pick(operation.queryParameters).name : 'limit';
  cases.push(
    random.pick([
      request('query prototype keys', { path: `${basePath}?__proto__[fuzzPolluted]=1&constructor[prototype][fuzzPolluted]=1&prototype=1` }),
      request(`query ${someQueryName} nested in brackets`, { path: `${basePath}?${someQueryName}${'[a]'.repeat(200)}=1` }),
      request(`query ${someQueryName} repeated and as an object`, { path: `${basePath}?${someQueryName}=1&${someQueryName}=2&${someQueryName}[x]=3` }),
    ]),
  );

  if (operation.method === 'GET') return cases;
  if (!shape) {
    // No JSON body declared: one sent anyway is parsed (or refused) before the route sees it.
    cases.push(
      request('unexpected JSON body', { rawBody: '{"__proto__":{"fuzzPolluted":true},"unexpected":1}' }),
      request('malformed JSON body', { rawBody: random.pick(MALFORMED_JSON) }),
    );
    return cases;
  }

  const stringTarget = shape.stringProperties.length > 0 ? random.pick(shape.stringProperties) : 'title';
  const unicode = random.pick(UNICODE_EDGES);
  const hugeLength = random.pick([MEGABYTE + 16, Math.floor(0.9 * MEGABYTE)]);
  const depth = random.pick([65, 1_000, 100_000]);
  cases.push(
    request('malformed JSON', { rawBody: random.pick(MALFORMED_JSON) }),
    request('JSON that is not an object', { rawBody: random.pick(NOT_AN_OBJECT) }),
    request('body as another content type', { contentType: random.pick(['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) }),
    request(`${depth} levels of [ ]`, { rawBody: '['.repeat(depth) + ']'.repeat(depth) }),
    request(`${stringTarget} nested 70 levels`, { rawBody: withProperty(shape.base, stringTarget, nestedArray(70)) }),
    request(`${stringTarget} a string of ${hugeLength} bytes`, { rawBody: withProperty(shape.base, stringTarget, 'A'.repeat(hugeLength)) }),
    request(`${stringTarget} with ${unicode.label}`, { rawBody: withProperty(shape.base, stringTarget, unicode.value) }),
    request(`a key with ${unicode.label}`, { rawBody: withProperty(shape.base, unicode.value, 'x') }),
    request('prototype keys at the top', {
      rawBody: `{"__proto__":{"fuzzPolluted":true},"constructor":{"prototype":{"fuzzPolluted":true}},"prototype":{"fuzzPolluted":true}${baseObjectMembers}}`,
    }),
    request(`prototype keys inside ${stringTarget}`, { rawBody: withProperty(shape.base, stringTarget, JSON.parse('{"__proto__":{"fuzzPolluted":true},"constructor":{"prototype":{"fuzzPolluted":true}}}')) }),
  );
  for (const name of Object.keys(shape.properties)) {
    const value = wrongTypedValue(document, shape.properties[name]!, random);
    cases.push(request(`wrong type: ${name} = ${JSON.stringify(value)}`, { rawBody: withProperty(shape.base, name, value) }));
  }
  return cases;
}

/**
 * The cases to send: `unauthenticated`, one malformed JSON and one wrong-typed property (when the
 * operation takes a body), then a random sample of the rest, `count` in all.
 */
export function sampleHostileRequests(cases: HostileRequest[], random: SeededRandom, count: number): HostileRequest[] {
  const must = [cases[0]!];
  for (const start of ['malformed JSON', 'wrong type: ']) {
    const ofKind = cases.filter((one) => one.label.startsWith(start));
    if (ofKind.length > 0) must.push(random.pick(ofKind));
  }
  const rest = cases.filter((one) => !must.includes(one));
  return [...new Set([...must, ...random.sample(rest, Math.max(0, count - must.length))])];
}
