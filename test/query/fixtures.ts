// A small typed schema shared by the query tests: articles with one field of every kind, their
// authors (m2o) and comments (o2m).
import type { FieldDefinition, FieldMap, FieldType, FieldRelation } from '../../src/query/types.ts';
import type { CompileFilterContext } from '../../src/query/compileFilter.ts';
import type { EvaluateFilterContext } from '../../src/query/evaluateFilter.ts';

function fieldMap(definitions: [string, FieldType, FieldRelation?][]): FieldMap {
  return new Map(
    definitions.map(([field, type, relation]): [string, FieldDefinition] => [field, relation ? { field, type, relation } : { field, type }]),
  );
}

/** Translatable fields as a request in French sees them (X-Svc-Locale: fr, site default en). */
const IN_FRENCH = ['fr', 'en'];

export const articleFields: FieldMap = new Map([
  ...fieldMap([
    ['title', 'string'],
    ['body', 'text'],
    ['slug', 'slug'],
    ['tags', 'csv'],
    ['views', 'integer'],
    ['rating', 'float'],
    ['price', 'decimal'],
    ['big', 'bigInteger'],
    ['published', 'boolean'],
    ['publishedAt', 'dateTime'],
    ['stamp', 'timestamp'],
    ['day', 'date'],
    ['at', 'time'],
    ['meta', 'json'],
    ['location', 'geometry'],
    ['gallery', 'files'],
    ['author', 'uuid', { kind: 'm2o', relatedCollection: 'authors' }],
    ['comments', 'string', { kind: 'o2m', relatedCollection: 'comments', relatedField: 'article' }],
    ['tagLinks', 'string', { kind: 'm2m', relatedCollection: 'articles_tags', relatedField: 'articles_id' }],
    ['status', 'integer'], // a content field named like a structural column: the column wins
  ]),
  ['headline', { field: 'headline', type: 'string', languages: IN_FRENCH }],
  ['rank', { field: 'rank', type: 'integer', languages: IN_FRENCH }],
]);

export const authorFields = fieldMap([
  ['name', 'string'],
  ['age', 'integer'],
  ['meta', 'json'],
  ['articles', 'string', { kind: 'o2m', relatedCollection: 'articles', relatedField: 'author' }],
]);

export const commentFields = fieldMap([
  ['article', 'string', { kind: 'm2o', relatedCollection: 'articles' }],
  ['text', 'string'],
  ['score', 'integer'],
]);

export const articleTagFields = fieldMap([
  ['articles_id', 'string', { kind: 'm2o', relatedCollection: 'articles' }],
  ['tag', 'string'],
]);

export const collections = new Map<string, FieldMap>([
  ['articles', articleFields],
  ['authors', authorFields],
  ['comments', commentFields],
  ['articles_tags', articleTagFields],
]);

export const resolveFields = (collection: string): FieldMap | undefined => collections.get(collection);

export const NOW = new Date('2024-06-15T12:00:00.000Z');

export function compileContext(overrides: Partial<CompileFilterContext> = {}): CompileFilterContext {
  return { alias: 'i', fields: articleFields, resolveFields, now: NOW, userId: 'u1', roleId: 'r1', ...overrides };
}

export function evaluateContext(overrides: Partial<EvaluateFilterContext> = {}): EvaluateFilterContext {
  return { fields: articleFields, resolveFields, now: NOW, userId: 'u1', roleId: 'r1', ...overrides };
}
