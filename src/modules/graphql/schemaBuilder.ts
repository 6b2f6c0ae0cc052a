// Builds a site's GraphQL schema from its content schema and what the caller may do (docs/graphql.md):
// for every collection it may read, an item type, `X(filter, sort, limit, offset, status, search)`,
// `X_by_id(id)` and the subscription `X_events`; `create_X`, `update_X` (their `data` typed by
// `create_X_input`, `update_X_input`: the fields it may write) and `delete_X` where it may write;
// `_collections` and `_schemaWarnings` at the root. An item type holds only the fields the caller may
// read (a hidden field is absent, not null: introspection does not name it). Built once per (site,
// schema version, exposure) by ./schemaCache.ts, never per request. Each item field carries how it is
// read (`extensions.svc`), which ./selection.ts turns into the REST field list the one read path runs.
import {
  GraphQLBoolean,
  GraphQLError,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLScalarType,
} from 'graphql';
import type { FieldType } from '../../../domain/content/schemaModel.ts';
import type { CollectionSchema, SiteSchema } from '../../schema/siteSchema.ts';
import { MASKED } from '../../../domain/privacy/sealedReference.ts';
import { uniqueNames } from './names.ts';
import { createResolver, deleteResolver, eventsSubscriber, listResolver, byIdResolver, toManyResolver, updateResolver, type GraphqlContext } from './resolvers.ts';
import { BigIntegerScalar, DateTimeScalar, DecimalScalar, JSONScalar } from './scalars.ts';
import type { ItemFieldInfo, ItemTypeInfo } from './selection.ts';

/** What the caller may do, by collection: the part of the schema it is shown. */
export interface Exposure {
  read: ReadonlySet<string>;
  create: ReadonlySet<string>;
  update: ReadonlySet<string>;
  delete: ReadonlySet<string>;
  /** The fields it may read, per readable collection; absent or null: every field. */
  fields: ReadonlyMap<string, ReadonlySet<string> | null>;
  /** The fields it may write, per collection it may create in (update in); absent or null: every field. */
  createFields: ReadonlyMap<string, ReadonlySet<string> | null>;
  updateFields: ReadonlyMap<string, ReadonlySet<string> | null>;
}

export interface BuiltSchema {
  schema: GraphQLSchema;
  /** Names that had to change (collisions), for `_schemaWarnings` and the logs. */
  warnings: string[];
}

const SCALAR_OF: Record<FieldType, GraphQLScalarType> = {
  boolean: GraphQLBoolean,
  integer: GraphQLInt,
  float: GraphQLFloat,
  decimal: GraphQLFloat,
  bigInteger: GraphQLString,
  dateTime: DateTimeScalar,
  date: DateTimeScalar,
  time: DateTimeScalar,
  timestamp: DateTimeScalar,
  string: GraphQLString,
  text: GraphQLString,
  uuid: GraphQLString,
  hash: GraphQLString,
  slug: GraphQLString,
  code: GraphQLString,
  color: GraphQLString,
  json: JSONScalar,
  csv: JSONScalar,
  geometry: JSONScalar,
  files: JSONScalar,
};

/** A write takes a decimal or 64-bit integer as a string or a number (REST's body does), so no digit is lost. */
const INPUT_SCALAR_OF: Record<FieldType, GraphQLScalarType> = { ...SCALAR_OF, decimal: DecimalScalar, bigInteger: BigIntegerScalar };

const STRUCTURAL: [string, GraphQLOutputType][] = [
  ['id', new GraphQLNonNull(GraphQLID)],
  ['status', GraphQLString],
  ['sort', GraphQLInt],
  ['createdAt', DateTimeScalar],
  ['updatedAt', DateTimeScalar],
  ['userCreated', GraphQLString],
  ['userUpdated', GraphQLString],
  ['_data', JSONScalar],
];
const STRUCTURAL_NAMES = new Set(STRUCTURAL.map(([name]) => name));
/** Shown whatever the field rules say: every visible item keeps its id, and `_data` is the item as the caller may read it. */
const ALWAYS_SHOWN = new Set(['id', '_data']);

const RESERVED_TYPES = new Set(['Query', 'Mutation', 'Subscription', 'JSON', 'DateTime', 'Decimal', 'BigInteger', 'ItemEvent', 'String', 'Int', 'Float', 'Boolean', 'ID']);
const ROOT_SUFFIXES = ['', '_by_id', '_events'];
const ROOT_PREFIXES = ['create_', 'update_', 'delete_'];
const ROOT_FIXED = new Set(['_collections', '_schemaWarnings']);
/** The input types of a collection's writes. */
const inputNamesOf = (name: string) => [`create_${name}_input`, `update_${name}_input`];

const itemEvent = new GraphQLObjectType({
  name: 'ItemEvent',
  fields: {
    action: { type: new GraphQLNonNull(GraphQLString), description: 'create, update or delete' },
    itemId: { type: new GraphQLNonNull(GraphQLID) },
    item: { type: JSONScalar, description: 'The item as the subscriber may read it now (null once deleted or out of reach)' },
  },
});

/** Type names for the collections, unique among themselves, the fixed types and each other's root fields. */
function collectionNames(collections: readonly string[], warnings: string[]): Map<string, string> {
  const names = new Map<string, string>();
  const rootFields = new Set(ROOT_FIXED);
  const typeNames = new Set(RESERVED_TYPES);
  for (const [original, base] of uniqueNames(collections, new Set(), 'Collection', warnings)) {
    const rootsOf = (name: string) => [...ROOT_SUFFIXES.map((suffix) => `${name}${suffix}`), ...ROOT_PREFIXES.map((prefix) => `${prefix}${name}`)];
    let name = base;
    const taken = (candidate: string) => [candidate, ...inputNamesOf(candidate)].some((type) => typeNames.has(type)) || rootsOf(candidate).some((root) => rootFields.has(root));
    for (let suffix = 2; taken(name); suffix += 1) name = `${base}_${suffix}`;
    if (name !== base) warnings.push(`Collection "${original}" is exposed as "${name}": "${base}" collides with another name of the schema`);
    names.set(original, name);
    for (const type of [name, ...inputNamesOf(name)]) typeNames.add(type);
    for (const root of rootsOf(name)) rootFields.add(root);
  }
  return names;
}

/** A to-many field's arguments: REST's deep[<field>][limit|offset|filter|sort]. */
const toManyArgs = {
  limit: { type: GraphQLInt },
  offset: { type: GraphQLInt },
  filter: { type: JSONScalar },
  sort: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)) },
};

/** Whether the field rules decide if `field` is shown (every field of an item type but `id` and `_data`). */
export function isRuledField(collection: CollectionSchema, field: string): boolean {
  if (ALWAYS_SHOWN.has(field)) return false;
  return STRUCTURAL_NAMES.has(field) || collection.fields.has(field) || collection.aliasFields.has(field);
}

/**
 * The item type of a collection with the fields the caller may read (`readable`; null: all);
 * relations to collections the caller cannot read stay ids (m2o) or are left out (o2m).
 */
function itemTypeOf(
  collection: CollectionSchema,
  typeName: string,
  readable: ReadonlySet<string> | null,
  types: Map<string, GraphQLObjectType>,
  warnings: string[],
): GraphQLObjectType {
  const shown = (name: string) => readable === null || ALWAYS_SHOWN.has(name) || readable.has(name);
  return new GraphQLObjectType({
    name: typeName,
    extensions: { svc: { collection: collection.name } satisfies ItemTypeInfo },
    fields: () => {
      const fields: GraphQLFieldConfigMap<Record<string, unknown>, GraphqlContext> = {};
      const value = (source: string, type: GraphQLOutputType, kind: ItemFieldInfo['kind'] = 'value', related?: string): GraphQLFieldConfig<Record<string, unknown>, GraphqlContext> => ({
        type,
        extensions: { svc: { kind, source, ...(related ? { related } : {}) } satisfies ItemFieldInfo },
        resolve: kind === 'data' ? (item) => item : (item) => item[source] ?? null,
      });
      for (const [name, type] of STRUCTURAL) if (shown(name)) fields[name] = value(name, type, name === '_data' ? 'data' : 'value');
      const declared = [...new Set([...collection.fields.keys(), ...collection.aliasFields])].filter((name) => !STRUCTURAL_NAMES.has(name) && shown(name));
      const names = uniqueNames(declared, STRUCTURAL_NAMES, `Field of "${collection.name}"`, warnings);
      for (const [original, name] of names) {
        const field = collection.fields.get(original) ?? collection.queryFields.get(original);
        const relation = collection.queryFields.get(original)?.relation;
        const relatedType = relation ? types.get(relation.relatedCollection) : undefined;
        if (relation?.kind === 'm2o') {
          fields[name] = relatedType ? value(original, relatedType, 'm2o', relation.relatedCollection) : value(original, GraphQLString);
        } else if (relation?.kind === 'o2m') {
          if (!relatedType) continue;
          fields[name] = {
            ...value(original, new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(relatedType))), 'o2m', relation.relatedCollection),
            args: toManyArgs,
            resolve: toManyResolver(original),
          };
        } else if (relation || collection.aliasFields.has(original)) {
          // m2m and m2a are read through `_data`.
          continue;
        } else {
          const scalar = (field && SCALAR_OF[field.type]) ?? JSONScalar;
          const config = value(original, scalar);
          // A masked pii/phi value (no read_decrypted) is a string: a number, date or boolean field shows null.
          const masksAsNull = collection.sensitiveFields.has(original) && scalar !== GraphQLString && scalar !== JSONScalar;
          fields[name] = masksAsNull ? { ...config, resolve: (item) => (item[original] === MASKED ? null : (item[original] ?? null)) } : config;
        }
      }
      return fields;
    },
  });
}

/** The input type of a collection's creates or updates, and the field each of its GraphQL names writes. */
export interface WriteInput {
  type: GraphQLInputObjectType;
  /** GraphQL name → the REST body's key. */
  sources: ReadonlyMap<string, string>;
}

/**
 * `create_X_input` / `update_X_input`: the fields the caller may write (`writable`; null: all), typed
 * as the item type shows them, m2o relations by id. A create's required fields are non-null; an
 * update takes every field as optional. To-many relations are written from the related side, and
 * the structural fields the service keeps (`createdAt`, …) are not written at all, so neither is here.
 */
function writeInputOf(collection: CollectionSchema, typeName: string, mode: 'create' | 'update', writable: ReadonlySet<string> | null, warnings: string[]): WriteInput {
  const allowed = (name: string) => writable === null || writable.has(name);
  const fields: GraphQLInputFieldConfigMap = {};
  const sources = new Map<string, string>();
  const put = (name: string, source: string, type: GraphQLInputType, description?: string) => {
    fields[name] = { type, ...(description ? { description } : {}) };
    sources.set(name, source);
  };
  if (mode === 'create' && allowed('id')) put('id', 'id', GraphQLID, 'A client-chosen id (1 to 128 letters, digits, - or _); a new one when absent');
  for (const [name, fallback] of [['status', GraphQLString], ['sort', GraphQLInt]] as const) {
    const declared = collection.fields.get(name);
    if (allowed(name)) put(name, name, declared ? INPUT_SCALAR_OF[declared.type] : fallback);
  }
  const candidates = [...new Set([...collection.fields.keys(), ...collection.aliasFields])].filter((name) => !STRUCTURAL_NAMES.has(name) && allowed(name));
  for (const [original, name] of uniqueNames(candidates, STRUCTURAL_NAMES, `Field of "${collection.name}"`, warnings)) {
    const field = collection.fields.get(original);
    if (!field || collection.aliasFields.has(original)) continue;
    const relation = collection.queryFields.get(original)?.relation;
    const scalar = relation?.kind === 'm2o' ? GraphQLID : INPUT_SCALAR_OF[field.type];
    put(name, original, mode === 'create' && field.required ? new GraphQLNonNull(scalar) : scalar);
  }
  const description = mode === 'create' ? `A new item of "${collection.name}"` : `The fields of an item of "${collection.name}" to change (the others keep their values)`;
  return { type: new GraphQLInputObjectType({ name: `${mode}_${typeName}_input`, description, fields }), sources };
}

/** A subscription's payload; a stream whose credential or permissions changed ends with its error. */
function eventOrError(event: unknown): unknown {
  if (event instanceof GraphQLError) throw event;
  return event;
}

const listArgs = {
  filter: { type: JSONScalar },
  sort: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)) },
  limit: { type: GraphQLInt },
  offset: { type: GraphQLInt },
  status: { type: GraphQLString },
  search: { type: GraphQLString },
};

const writeArgs = (input: WriteInput) => ({ data: { type: input.type }, status: { type: GraphQLString }, sort: { type: GraphQLInt } });

export function buildGraphqlSchema(site: SiteSchema, exposure: Exposure): BuiltSchema {
  const warnings: string[] = [];
  const readable = [...site.collections.keys()].filter((name) => exposure.read.has(name)).sort();
  const typeNames = collectionNames(readable, warnings);
  const types = new Map<string, GraphQLObjectType>();
  for (const name of readable) types.set(name, itemTypeOf(site.collections.get(name)!, typeNames.get(name)!, exposure.fields.get(name) ?? null, types, warnings));

  const query: GraphQLFieldConfigMap<unknown, GraphqlContext> = {
    _collections: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))), resolve: () => readable },
    _schemaWarnings: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))), resolve: () => warnings },
  };
  const mutation: GraphQLFieldConfigMap<unknown, GraphqlContext> = {};
  const subscription: GraphQLFieldConfigMap<unknown, GraphqlContext> = {};
  for (const collection of readable) {
    const name = typeNames.get(collection)!;
    const type = types.get(collection)!;
    query[name] = { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type))), args: listArgs, resolve: listResolver(collection) };
    query[`${name}_by_id`] = { type, args: { id: { type: new GraphQLNonNull(GraphQLID) } }, resolve: byIdResolver(collection) };
    subscription[`${name}_events`] = { type: new GraphQLNonNull(itemEvent), subscribe: eventsSubscriber(collection), resolve: eventOrError };
    const model = site.collections.get(collection)!;
    if (exposure.create.has(collection)) {
      const input = writeInputOf(model, name, 'create', exposure.createFields.get(collection) ?? null, warnings);
      mutation[`create_${name}`] = { type: new GraphQLNonNull(type), args: writeArgs(input), resolve: createResolver(collection, input.sources) };
    }
    if (exposure.update.has(collection)) {
      const input = writeInputOf(model, name, 'update', exposure.updateFields.get(collection) ?? null, warnings);
      mutation[`update_${name}`] = { type: new GraphQLNonNull(type), args: { id: { type: new GraphQLNonNull(GraphQLID) }, ...writeArgs(input) }, resolve: updateResolver(collection, input.sources) };
    }
    if (exposure.delete.has(collection)) {
      mutation[`delete_${name}`] = { type: new GraphQLNonNull(GraphQLBoolean), args: { id: { type: new GraphQLNonNull(GraphQLID) } }, resolve: deleteResolver(collection) };
    }
  }
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: query }),
    ...(Object.keys(mutation).length > 0 ? { mutation: new GraphQLObjectType({ name: 'Mutation', fields: mutation }) } : {}),
    ...(Object.keys(subscription).length > 0 ? { subscription: new GraphQLObjectType({ name: 'Subscription', fields: subscription }) } : {}),
  });
  // A field renamed alike in the item type and the input types is told once.
  const unique = [...new Set(warnings)];
  warnings.splice(0, warnings.length, ...unique);
  return { schema, warnings };
}
