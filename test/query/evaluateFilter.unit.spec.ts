import { describe, expect, it } from 'vitest';
import { compareCodePoints, compareNumeric } from '../../src/query/compareValues.ts';
import { evaluateFilter } from '../../src/query/evaluateFilter.ts';
import { jsonContains, jsonEquals, jsonHasKey, jsonPathGet } from '../../src/query/jsonValues.ts';
import type { FilterTree, ItemRecord } from '../../src/query/types.ts';
import { evaluateContext } from './fixtures.ts';

const items: ItemRecord[] = [
  { id: 'p1', status: 'published', createdAt: '2024-06-10T00:00:00.000Z', userCreated: 'u1', title: 'Hello World', views: 10, price: '1.50', big: '9007199254740993', published: true, publishedAt: '2024-06-14T12:00:00.000Z', day: '2024-06-14', at: '08:30:00', meta: { a: 1, tags: ['x', 'y'], nested: { b: 'deep' } }, author: 'a1' },
  { id: 'p2', status: 'draft', createdAt: '2024-06-01T00:00:00.000Z', userCreated: 'u2', title: '50% off_now', views: 2, price: '10', big: '9007199254740992', published: false, publishedAt: '2024-05-01T00:00:00.000Z', meta: null, author: 'a2' },
  { id: 'p3', status: null, title: null, views: null, meta: ['x', 'z'] },
];

const related: Record<string, ItemRecord[]> = {
  articles: items,
  authors: [
    { id: 'a1', name: 'Ann', age: 40 },
    { id: 'a2', name: 'Bob', age: 20, deletedAt: '2024-01-01T00:00:00.000Z' },
  ],
  comments: [
    { id: 'c1', article: 'p1', score: 3 },
    { id: 'c2', article: 'p2', score: 1 },
    { id: 'c3', article: 'p2', score: 5, deletedAt: '2024-01-01T00:00:00.000Z' },
  ],
};

function matching(filter: FilterTree, overrides = {}): string[] {
  const context = evaluateContext({ relatedItems: (collection: string) => related[collection] ?? [], ...overrides });
  return items.filter((item) => evaluateFilter(filter, item, context)).map((item) => String(item.id));
}

describe('evaluateFilter operators', () => {
  it.each<[FilterTree, string[]]>([
    [{ title: { _eq: 'Hello World' } }, ['p1']],
    [{ title: { _neq: 'Hello World' } }, ['p2', 'p3']],
    [{ title: { _eq: null } }, ['p3']],
    [{ title: { _neq: null } }, ['p1', 'p2']],
    [{ views: { _lt: 10 } }, ['p2']],
    [{ views: { _lte: 10 } }, ['p1', 'p2']],
    [{ views: { _gt: '2' } }, ['p1']],
    [{ views: { _gte: 2 } }, ['p1', 'p2']],
    [{ views: { _in: [2, 3] } }, ['p2']],
    [{ views: { _in: [] } }, []],
    [{ views: { _in: [2, null] } }, ['p2', 'p3']],
    [{ views: { _nin: [2] } }, ['p1', 'p3']],
    [{ views: { _nin: [2, null] } }, ['p1']],
    [{ views: { _nin: [] } }, ['p1', 'p2', 'p3']],
    [{ views: { _null: true } }, ['p3']],
    [{ views: { _nnull: true } }, ['p1', 'p2']],
    [{ views: { _nnull: false } }, ['p3']],
    [{ views: { _between: [2, 9] } }, ['p2']],
    [{ views: { _between: [9, 2] } }, []],
    [{ price: { _gt: '1.5' } }, ['p2']],
    [{ price: { _eq: 1.5 } }, ['p1']],
    [{ big: { _gt: '9007199254740992' } }, ['p1']],
    [{ title: { _contains: 'o' } }, ['p1', 'p2']],
    [{ title: { _contains: '% off_' } }, ['p2']],
    [{ title: { _contains: '%' } }, ['p2']],
    [{ title: { _icontains: 'WORLD' } }, ['p1']],
    [{ title: { _starts_with: '50%' } }, ['p2']],
    [{ title: { _ends_with: 'World' } }, ['p1']],
    [{ title: { _lt: 'a' } }, ['p1', 'p2']],
    [{ published: { _eq: false } }, ['p2']],
    [{ published: { _in: [true] } }, ['p1']],
    [{ publishedAt: { _gte: '2024-06-01' } }, ['p1']],
    [{ publishedAt: { _lt: '$NOW(-1 month)' } }, ['p2']],
    [{ day: { _eq: '2024-06-14T10:00:00Z' } }, ['p1']],
    [{ at: { _lt: '09:00' } }, ['p1']],
    [{ createdAt: { _between: ['2024-06-01', '2024-06-05'] } }, ['p2']],
    [{ createdAt: { _gt: '2024-06-05T00:00:00+02:00' } }, ['p1']],
    [{ userCreated: { _eq: '$CURRENT_USER' } }, ['p1']],
    [{ status: { _in: ['draft', 'published'] } }, ['p1', 'p2']],
    [{ id: { _eq: 'p3' } }, ['p3']],
  ])('%j selects %j', (filter, expected) => {
    expect(matching(filter)).toEqual(expected);
  });

  it.each<[FilterTree, string[]]>([
    [{ meta: { _null: true } }, ['p2']],
    [{ meta: { _eq: { tags: ['x', 'y'], a: 1, nested: { b: 'deep' } } } }, ['p1']],
    [{ meta: { _neq: ['x', 'z'] } }, ['p1', 'p2']],
    [{ meta: { _json_contains: { tags: ['y'] } } }, ['p1']],
    [{ meta: { _json_contains: 'x' } }, ['p3']],
    [{ meta: { _json_contains: ['z', 'x'] } }, ['p3']],
    [{ meta: { _has_key: 'a' } }, ['p1']],
    [{ meta: { _has_key: 'x' } }, ['p3']],
    [{ meta: { _has_any_keys: ['a', 'z'] } }, ['p1', 'p3']],
    [{ meta: { _has_all_keys: ['a', 'tags'] } }, ['p1']],
    [{ meta: { _has_all_keys: [] } }, ['p1', 'p3']],
    [{ 'meta.a': { _eq: 1 } }, ['p1']],
    [{ 'meta.a': { _gt: 0 } }, ['p1']],
    [{ 'meta.a': { _gt: '0' } }, []],
    [{ 'meta.a': { _neq: 1 } }, ['p2', 'p3']],
    [{ 'meta.nested.b': { _starts_with: 'de' } }, ['p1']],
    [{ 'meta.tags': { _json_contains: 'y' } }, ['p1']],
    [{ 'meta.1': { _eq: 'z' } }, ['p3']],
    [{ 'meta.tags.0': { _in: ['x', 'q'] } }, ['p1']],
    [{ 'meta.missing': { _null: true } }, ['p1', 'p2', 'p3']],
  ])('JSON: %j selects %j', (filter, expected) => {
    expect(matching(filter)).toEqual(expected);
  });

  it.each<[FilterTree, string[]]>([
    [{ author: { name: { _eq: 'Ann' } } }, ['p1']],
    [{ 'author.name': { _starts_with: 'B' } }, []], // Bob is soft-deleted
    [{ author: { _eq: 'a2' } }, ['p2']],
    [{ author: { _null: true } }, ['p3']],
    [{ comments: { score: { _gte: 1 } } }, ['p1', 'p2']],
    [{ comments: { score: { _gte: 4 } } }, []],
    [{ comments: { article: { author: { age: { _gt: 30 } } } } }, ['p1']],
  ])('relations: %j selects %j', (filter, expected) => {
    expect(matching(filter)).toEqual(expected);
  });

  it('combines keys and groups', () => {
    expect(matching({ views: { _gt: 1 }, status: { _eq: 'draft' } })).toEqual(['p2']);
    expect(matching({ _or: [{ status: { _eq: 'draft' } }, { views: { _null: true } }] })).toEqual(['p2', 'p3']);
    expect(matching({ _and: [] })).toEqual(['p1', 'p2', 'p3']);
    expect(matching({ _or: [] })).toEqual([]);
    expect(matching({ views: { _gt: 1, _lt: 5 } })).toEqual(['p2']);
  });

  it('matches nothing for $CURRENT_USER without a user', () => {
    expect(matching({ userCreated: { _eq: '$CURRENT_USER' } }, { userId: null })).toEqual([]);
    expect(matching({ userCreated: { _neq: '$CURRENT_USER' } }, { userId: null })).toEqual(['p1', 'p2']);
    expect(matching({ status: { _eq: '$CURRENT_ROLE' } }, { roleId: 'draft' })).toEqual(['p2']);
  });

  it('needs related items for relational filters', () => {
    expect(() => evaluateFilter({ author: { name: { _eq: 'x' } } }, items[0] ?? {}, evaluateContext())).toThrow(/relatedItems/);
  });
});

describe('jsonb semantics', () => {
  it('follows PostgreSQL containment', () => {
    expect(jsonContains({ a: 1, b: [1, 2] }, { b: [2] })).toBe(true);
    expect(jsonContains([1, 2, [1, 3]], [1, 3])).toBe(false);
    expect(jsonContains([1, 2, [1, 3]], [[1, 3]])).toBe(true);
    expect(jsonContains(['foo', 'bar'], 'foo')).toBe(true);
    expect(jsonContains('foo', ['foo'])).toBe(false);
    expect(jsonContains({ a: ['x'] }, { a: 'x' })).toBe(false);
    expect(jsonContains([[1, 3]], [1])).toBe(false);
    expect(jsonContains({}, {})).toBe(true);
    expect(jsonContains([], {})).toBe(false);
    expect(jsonContains(1, 1.0)).toBe(true);
  });

  it('follows PostgreSQL equality, key existence and paths', () => {
    expect(jsonEquals({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(jsonEquals([1, 2], [2, 1])).toBe(false);
    expect(jsonEquals(1, '1')).toBe(false);
    expect(jsonHasKey(['a', 1], 'a')).toBe(true);
    expect(jsonHasKey('a', 'a')).toBe(true);
    expect(jsonHasKey({ a: null }, 'a')).toBe(true);
    expect(jsonHasKey([['a']], 'a')).toBe(false);
    expect(jsonPathGet({ a: [{ b: 1 }] }, ['a', '0', 'b'])).toBe(1);
    expect(jsonPathGet({ a: [1] }, ['a', 'x'])).toBeUndefined();
    expect(jsonPathGet({ a: 'text' }, ['a', 'b'])).toBeUndefined();
  });
});

describe('orderings', () => {
  it('compares decimals exactly', () => {
    expect(compareNumeric('9007199254740993', '9007199254740992')).toBe(1);
    expect(compareNumeric('1.50', 1.5)).toBe(0);
    expect(compareNumeric('-0.10', '-0.1')).toBe(0);
    expect(compareNumeric('1e3', '999.9')).toBe(1);
    expect(compareNumeric(-2, '0')).toBe(-1);
    expect(compareNumeric('0', '-0')).toBe(0);
    expect(compareNumeric(1e21, '1000000000000000000001')).toBe(-1);
    expect(compareNumeric('abc', 1)).toBeNull();
  });

  it('compares text in code-point order like COLLATE "C"', () => {
    expect(compareCodePoints('B', 'a')).toBe(-1);
    expect(compareCodePoints('é', 'z')).toBe(1);
    expect(compareCodePoints('\uFFFF', '😀')).toBe(-1); // UTF-16 order would say the opposite
    expect(compareCodePoints('ab', 'a')).toBe(1);
  });
});
