import { describe, expect, it } from 'vitest';
import { AppError } from '../../domain/shared/appError.ts';
import { raw, sql } from '../../infra/postgres/sql.ts';
import { compileFilter } from '../../src/query/compileFilter.ts';
import { fieldExpression } from '../../src/query/fieldExpressions.ts';
import { operatorsFor } from '../../src/query/operators.ts';
import { COMPARISON_OPERATORS, FIELD_TYPES, type FieldType, type FilterTree } from '../../src/query/types.ts';
import { appErrorThrownBy } from '../support/appErrors.ts';
import { compileContext, resolveFields } from './fixtures.ts';

function compile(filter: FilterTree, overrides = {}) {
  return compileFilter(filter, compileContext(overrides));
}

function failure(filter: unknown, overrides = {}): AppError {
  return appErrorThrownBy(() => compileFilter(filter as FilterTree, compileContext(overrides)));
}

describe('fieldExpression', () => {
  const expected: Record<FieldType, string> = {
    string: "(i.data->>'f')",
    text: "(i.data->>'f')",
    uuid: "(i.data->>'f')",
    slug: "(i.data->>'f')",
    code: "(i.data->>'f')",
    color: "(i.data->>'f')",
    hash: "(i.data->>'f')",
    csv: "(i.data->>'f')",
    integer: "((i.data->>'f')::numeric)",
    float: "((i.data->>'f')::numeric)",
    decimal: "((i.data->>'f')::numeric)",
    bigInteger: "((i.data->>'f')::numeric)",
    boolean: "((i.data->>'f')::boolean)",
    dateTime: "(i.data->>'f')",
    timestamp: "(i.data->>'f')",
    date: "(i.data->>'f')",
    time: "(i.data->>'f')",
    json: "(i.data->'f')",
    geometry: "(i.data->'f')",
    files: "(i.data->'f')",
  };

  it.each(FIELD_TYPES)('gives the indexable expression for %s fields', (type) => {
    expect(fieldExpression('i', { field: 'f', type })).toMatchObject({ text: expected[type], values: [] });
  });

  it('maps structural keys to their columns, and gives the unqualified form for indexes', () => {
    expect(fieldExpression('i', { field: 'createdAt', type: 'string' }).text).toBe('i.created_at');
    expect(fieldExpression('i', { field: 'userUpdated', type: 'string' }).text).toBe('i.user_updated');
    expect(fieldExpression(null, { field: 'views', type: 'integer' }).text).toBe("((data->>'views')::numeric)");
  });

  it('refuses names that could break out of the literal', () => {
    expect(() => fieldExpression('i', { field: "x') OR 1=1 --", type: 'string' })).toThrow();
    expect(() => fieldExpression('i; DROP', { field: 'x', type: 'string' })).toThrow();
  });
});

describe('compileFilter SQL', () => {
  it('sends every value as a parameter', () => {
    const query = compile({ title: { _eq: "Robert'); DROP TABLE items; --" } });
    expect(query.text).toBe("((i.data->>'title') IS NOT NULL AND (i.data->>'title') = $1::text)");
    expect(query.values).toEqual(["Robert'); DROP TABLE items; --"]);
  });

  it('compiles each operator', () => {
    const cases: [FilterTree, string, unknown[]][] = [
      [{ views: { _gt: 5 } }, "(((i.data->>'views')::numeric) IS NOT NULL AND ((i.data->>'views')::numeric) > $1::numeric)", ['5']],
      [{ views: { _lte: '7.5' } }, "(((i.data->>'views')::numeric) IS NOT NULL AND ((i.data->>'views')::numeric) <= $1::numeric)", ['7.5']],
      [{ title: { _lt: 'm' } }, `((i.data->>'title') IS NOT NULL AND (i.data->>'title') COLLATE "C" < $1::text)`, ['m']],
      [{ title: { _neq: 'x' } }, "(i.data->>'title') IS DISTINCT FROM $1::text", ['x']],
      [{ title: { _null: true } }, "(i.data->>'title') IS NULL", []],
      [{ title: { _nnull: true } }, "(i.data->>'title') IS NOT NULL", []],
      [{ title: { _null: false } }, "(i.data->>'title') IS NOT NULL", []],
      [{ title: { _eq: null } }, "(i.data->>'title') IS NULL", []],
      [{ title: { _neq: null } }, "(i.data->>'title') IS NOT NULL", []],
      [{ title: { _in: ['a', 'b'] } }, "((i.data->>'title') IS NOT NULL AND (i.data->>'title') = ANY($1::text[]))", [['a', 'b']]],
      [{ title: { _nin: ['a'] } }, "((i.data->>'title') IS NULL OR (i.data->>'title') <> ALL($1::text[]))", [['a']]],
      [{ views: { _between: [1, 9] } }, "(((i.data->>'views')::numeric) IS NOT NULL AND ((i.data->>'views')::numeric) BETWEEN $1::numeric AND $2::numeric)", ['1', '9']],
      [{ title: { _icontains: 'AbC' } }, "((i.data->>'title') IS NOT NULL AND (i.data->>'title') ILIKE $1::text)", ['%AbC%']],
      [{ title: { _starts_with: 'a' } }, "((i.data->>'title') IS NOT NULL AND (i.data->>'title') LIKE $1::text)", ['a%']],
      [{ title: { _ends_with: 'z' } }, "((i.data->>'title') IS NOT NULL AND (i.data->>'title') LIKE $1::text)", ['%z']],
      [{ published: { _eq: true } }, "(((i.data->>'published')::boolean) IS NOT NULL AND ((i.data->>'published')::boolean) = $1::boolean)", [true]],
      [{ createdAt: { _gte: '2024-01-01' } }, '(i.created_at IS NOT NULL AND i.created_at >= $1::timestamptz)', ['2024-01-01T00:00:00.000Z']],
      [{ meta: { _json_contains: { a: [1] } } }, "(((i.data->'meta') IS NOT NULL AND (i.data->'meta') <> 'null'::jsonb) AND (i.data->'meta') @> $1::jsonb)", ['{"a":[1]}']],
      [{ meta: { _has_key: 'a' } }, "(((i.data->'meta') IS NOT NULL AND (i.data->'meta') <> 'null'::jsonb) AND (i.data->'meta') ? $1::text)", ['a']],
      [{ meta: { _has_any_keys: ['a', 'b'] } }, "(((i.data->'meta') IS NOT NULL AND (i.data->'meta') <> 'null'::jsonb) AND (i.data->'meta') ?| $1::text[])", [['a', 'b']]],
      [{ meta: { _has_all_keys: ['a'] } }, "(((i.data->'meta') IS NOT NULL AND (i.data->'meta') <> 'null'::jsonb) AND (i.data->'meta') ?& $1::text[])", [['a']]],
      [{ meta: { _null: true } }, "((i.data->'meta') IS NULL OR (i.data->'meta') = 'null'::jsonb)", []],
    ];
    for (const [filter, text, values] of cases) {
      expect(compile(filter), JSON.stringify(filter)).toMatchObject({ text, values });
    }
  });

  it('escapes LIKE wildcards and the escape character in the value', () => {
    expect(compile({ title: { _contains: '50%_off\\' } }).values).toEqual(['%50\\%\\_off\\\\%']);
  });

  it('adds null to _in and _nin lists as an IS NULL test', () => {
    expect(compile({ title: { _in: ['a', null] } }).text).toBe(
      "(((i.data->>'title') IS NOT NULL AND (i.data->>'title') = ANY($1::text[])) OR (i.data->>'title') IS NULL)",
    );
    expect(compile({ title: { _nin: ['a', null] } }).text).toBe(
      "((i.data->>'title') IS NOT NULL AND (i.data->>'title') <> ALL($1::text[]))",
    );
  });

  it('reaches into JSON with a parameter array path', () => {
    const query = compile({ 'meta.author.name': { _eq: 'Ann' } });
    expect(query.text).toBe(
      "((((i.data->'meta') #> $1::text[]) IS NOT NULL AND ((i.data->'meta') #> $2::text[]) <> 'null'::jsonb) AND ((i.data->'meta') #> $3::text[]) = $4::jsonb)",
    );
    expect(query.values).toEqual([['author', 'name'], ['author', 'name'], ['author', 'name'], '"Ann"']);
    expect(compile({ 'meta.a.b.c.d.e.f.g.h': { _null: true } }).values[0]).toHaveLength(8);
    expect(compile({ 'meta.rank': { _gt: 3 } }).text).toContain("jsonb_typeof(((i.data->'meta') #> $1::text[])) = 'number'");
    expect(compile({ 'meta.name': { _lt: 'm' } }).text).toContain("= 'string'");
  });

  it('joins several keys with AND and compiles logical groups', () => {
    expect(compile({ title: { _eq: 'a' }, views: { _gt: 1 } }).text).toMatch(/^\(.* AND .*\)$/);
    const query = compile({ _or: [{ status: { _eq: 'draft' } }, { _and: [{ sort: { _gt: 1 } }, { sort: { _lt: 5 } }] }] });
    expect(query.text).toBe(
      '((i.status IS NOT NULL AND i.status = $1::text) OR ((i.sort IS NOT NULL AND i.sort > $2::numeric) AND (i.sort IS NOT NULL AND i.sort < $3::numeric)))',
    );
    expect(compile({ _and: [] }).text).toBe('TRUE');
    expect(compile({ _or: [] }).text).toBe('FALSE');
    expect(compile({}).text).toBe('TRUE');
    expect(compileFilter(null, compileContext()).text).toBe('TRUE');
  });

  it('lets the structural column win over a content field of the same name', () => {
    expect(compile({ status: { _eq: 'draft' } }).text).toBe('(i.status IS NOT NULL AND i.status = $1::text)');
  });

  it('compiles an m2o filter to EXISTS over the related collection of the same site', () => {
    const query = compile({ author: { name: { _eq: 'Ann' } } });
    expect(query.text).toBe(
      "EXISTS (SELECT 1 FROM items r1 WHERE r1.site_id = i.site_id AND r1.collection = $1::text AND r1.id = (i.data->>'author') AND r1.deleted_at IS NULL AND ((r1.data->>'name') IS NOT NULL AND (r1.data->>'name') = $2::text))",
    );
    expect(query.values).toEqual(['authors', 'Ann']);
    expect(compile({ 'author.name': { _eq: 'Ann' } })).toEqual(query);
  });

  it('compiles operators on the m2o id itself next to related fields', () => {
    const query = compile({ author: { _nnull: true, age: { _gt: 3 } } });
    expect(query.text).toMatch(/^\(\(i\.data->>'author'\) IS NOT NULL AND EXISTS \(/);
  });

  it('compiles o2m and m2m filters to EXISTS over the rows pointing back', () => {
    expect(compile({ comments: { score: { _gt: 2 } } }).text).toContain("AND (r1.data->>'article') = i.id AND");
    expect(compile({ tagLinks: { tag: { _eq: 'x' } } }).values[0]).toBe('articles_tags');
  });

  it('numbers nested relation aliases and honours a table name', () => {
    const query = compile({ comments: { article: { author: { name: { _eq: 'x' } } } } }, { table: raw('public.items') });
    expect(query.text).toContain('FROM public.items r1');
    expect(query.text).toContain('r2.id = (r1.data->>\'article\')');
    expect(query.text).toContain("r3.id = (r2.data->>'author')");
  });

  it("reads related rows from a derived table, its parameters numbered with the filter's", () => {
    const moment = '2024-05-01T00:00:00.000Z';
    const table = sql`(SELECT * FROM item_history WHERE validity @> ${moment}::timestamptz)`;
    const query = compile({ author: { name: { _eq: 'Ann' } } }, { table });
    expect(query.text).toContain('EXISTS (SELECT 1 FROM (SELECT * FROM item_history WHERE validity @> $1::timestamptz) r1');
    expect(query.text).toContain("(r1.data->>'name') = $3::text");
    expect(query.values).toEqual([moment, 'authors', 'Ann']);
  });

  it('substitutes dynamic values', () => {
    expect(compile({ createdAt: { _gte: '$NOW(-7 days)' } }).values).toEqual(['2024-06-08T12:00:00.000Z']);
    expect(compile({ publishedAt: { _lt: '$NOW' } }).values).toEqual(['2024-06-15T12:00:00.000Z']);
    expect(compile({ day: { _eq: '$NOW(+1 year)' } }).values).toEqual(['2025-06-15']);
    expect(compile({ userCreated: { _eq: '$CURRENT_USER' } }).values).toEqual(['u1']);
    expect(compile({ userCreated: { _in: ['$CURRENT_ROLE'] } }).values).toEqual([['r1']]);
  });

  it('matches nothing when a variable resolves to null, rather than matching nulls', () => {
    expect(compile({ userCreated: { _eq: '$CURRENT_USER' } }, { userId: null }).text).toBe('FALSE');
    expect(compile({ userCreated: { _in: ['$CURRENT_USER'] } }, { userId: undefined }).values).toEqual([[]]);
    expect(compile({ userCreated: { _neq: '$CURRENT_USER' } }, { userId: null }).text).toBe('i.user_created IS NOT NULL');
  });

  it('normalises date values the way writers store them', () => {
    expect(compile({ publishedAt: { _eq: '2024-03-01T10:00:00+02:00' } }).values).toEqual(['2024-03-01T08:00:00.000Z']);
    expect(compile({ publishedAt: { _gt: '2024-03-01 10:00' } }).values).toEqual(['2024-03-01T10:00:00.000Z']);
    expect(compile({ stamp: { _gt: '2024-03-01T10:00:00.123456Z' } }).values).toEqual(['2024-03-01T10:00:00.123Z']);
    expect(compile({ day: { _eq: '2024-03-01T23:30:00-01:00' } }).values).toEqual(['2024-03-02']);
    expect(compile({ at: { _gte: '08:30' } }).values).toEqual(['08:30:00']);
    expect(compile({ at: { _gte: '2024-01-01T08:30:15.5Z' } }).values).toEqual(['08:30:15']);
  });

  it('turns bracket-coerced numbers and booleans into text for text fields', () => {
    expect(compile({ title: { _eq: 7 } }).values).toEqual(['7']);
    expect(compile({ title: { _contains: true } }).values).toEqual(['%true%']);
    expect(compile({ meta: { _has_any_keys: [1, 'b'] } }).values).toEqual([['1', 'b']]);
  });

  it('keeps big integers exact', () => {
    expect(compile({ big: { _eq: '9007199254740993' } }).values).toEqual(['9007199254740993']);
  });
});

describe('compileFilter errors', () => {
  it.each([
    [{ nope: { _eq: 1 } }, ['filter', 'nope'], /Unknown field "nope"/],
    [{ 'ti-tle': { _eq: 1 } }, ['filter', 'ti-tle'], /Unknown field/],
    [{ _and: [{ title: { _eq: 'a' } }, { missing: { _eq: 1 } }] }, ['filter', '_and', 1, 'missing'], /Unknown field/],
    [{ author: { nope: { _eq: 1 } } }, ['filter', 'author', 'nope'], /Unknown field "nope"/],
    [{ title: { _foo: 1 } }, ['filter', 'title', '_foo'], /Unknown operator/],
    [{ _eq: 1 }, ['filter', '_eq'], /put it under a field/],
    [{ _not: {} }, ['filter', '_not'], /Unknown filter key/],
    [{ title: 'x' }, ['filter', 'title'], /needs an object of operators/],
    [{ _and: { title: { _eq: 1 } } }, ['filter', '_and'], /expects an array/],
    [{ _or: ['x'] }, ['filter', '_or', 0], /must be an object/],
    [{ views: { _eq: 'ten' } }, ['filter', 'views', '_eq'], /expects a number/],
    [{ views: { _in: [1, 'x'] } }, ['filter', 'views', '_in', 1], /expects a number/],
    [{ views: { _gt: null } }, ['filter', 'views', '_gt'], /needs a value/],
    [{ views: { _gt: '1e99999' } }, ['filter', 'views', '_gt'], /expects a number/],
    [{ views: { _between: [1] } }, ['filter', 'views', '_between'], /two values/],
    [{ views: { _between: [1, null] } }, ['filter', 'views', '_between', 1], /non-null/],
    [{ views: { _in: 1 } }, ['filter', 'views', '_in'], /expects an array/],
    [{ published: { _eq: 'yes' } }, ['filter', 'published', '_eq'], /true or false/],
    [{ title: { _null: 'maybe' } }, ['filter', 'title', '_null'], /true or false/],
    [{ publishedAt: { _gt: 'yesterday' } }, ['filter', 'publishedAt', '_gt'], /ISO-8601/],
    [{ publishedAt: { _gt: '2024-02-30' } }, ['filter', 'publishedAt', '_gt'], /ISO-8601/],
    [{ at: { _gt: '25:00' } }, ['filter', 'at', '_gt'], /ISO-8601 time/],
    [{ publishedAt: { _gt: '$NOW(-7 fortnights)' } }, ['filter', 'publishedAt', '_gt'], /\$NOW/],
    [{ title: { _eq: { a: 1 } } }, ['filter', 'title', '_eq'], /expects text/],
    [{ title: { _eq: 'a\u0000b' } }, ['filter', 'title', '_eq'], /NUL/],
    [{ meta: { _json_contains: { a: 'x\u0000' } } }, ['filter', 'meta', '_json_contains'], /NUL/],
    // jsonb refuses a lone surrogate (JSON.stringify writes it back as \ud800).
    [{ meta: { _json_contains: { a: 'x\ud800' } } }, ['filter', 'meta', '_json_contains'], /lone surrogate/],
    [{ meta: { _json_contains: { ['\udc00']: 1 } } }, ['filter', 'meta', '_json_contains'], /lone surrogate/],
    [{ title: { _eq: 'a\udbffb' } }, ['filter', 'title', '_eq'], /lone surrogate/],
    [{ 'title.x': { _eq: 1 } }, ['filter', 'title.x'], /not a JSON field/],
    [{ 'meta.a.b.c.d.e.f.g.h.i': { _eq: 1 } }, ['filter', 'meta.a.b.c.d.e.f.g.h.i'], /deeper than 8/],
    [{ 'meta.a-b': { _eq: 1 } }, ['filter', 'meta.a-b'], /Unknown field/],
    [{ 'meta.a': { _gt: true } }, ['filter', 'meta.a', '_gt'], /number or a string/],
    [{ 'meta.a': { _between: [1, 'b'] } }, ['filter', 'meta.a', '_between'], /Both/],
    [{ comments: { _eq: 'x' } }, ['filter', 'comments', '_eq'], /to-many/],
    [{ comments: 'x' }, ['filter', 'comments'], /object of operators or related fields/],
  ])('refuses %j at %j', (filter, path, message) => {
    const error = failure(filter);
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.status).toBe(400);
    expect(error.path).toEqual(path);
    expect(error.message).toMatch(message);
  });

  it('refuses every operator that does not fit the field type, naming the operator', () => {
    const samples: Record<string, string> = { text: 'title', numeric: 'views', boolean: 'published', dateText: 'publishedAt', timestamptz: 'createdAt', json: 'meta' };
    let refused = 0;
    for (const [kind, field] of Object.entries(samples)) {
      const fitting = new Set(operatorsFor(kind as 'text'));
      for (const operator of COMPARISON_OPERATORS.filter((candidate) => !fitting.has(candidate))) {
        const error = failure({ [field]: { [operator]: 'x' } });
        expect(error.path).toEqual(['filter', field, operator]);
        expect(error.message).toMatch(/does not apply/);
        refused += 1;
      }
    }
    expect(refused).toBeGreaterThan(30);
  });

  it.each([
    ['_contains', 'views'],
    ['_gt', 'published'],
    ['_json_contains', 'title'],
    ['_has_key', 'views'],
    ['_contains', 'meta'],
    ['_gt', 'meta'],
    ['_in', 'meta'],
    ['_starts_with', 'publishedAt'],
  ])('refuses %s on %s', (operator, field) => {
    expect(failure({ [field]: { [operator]: 'x' } }).path).toEqual(['filter', field, operator]);
  });

  it('caps relational nesting', () => {
    const tooDeep = { comments: { article: { comments: { article: { comments: { text: { _eq: 'x' } } } } } } };
    const error = failure(tooDeep);
    expect(error.path).toEqual(['filter', 'comments', 'article', 'comments', 'article', 'comments']);
    expect(error.message).toMatch(/at most 4/);
  });

  it('caps logical nesting', () => {
    let filter: FilterTree = { title: { _eq: 'x' } };
    for (let level = 0; level < 40; level += 1) filter = { _and: [filter] };
    expect(failure(filter).message).toMatch(/nested deeper/);
  });

  it('refuses relational filters when the related collection is unknown', () => {
    expect(failure({ author: { name: { _eq: 'x' } } }, { resolveFields: () => undefined }).path).toEqual(['filter', 'author']);
    expect(resolveFields('authors')).toBeDefined();
  });

  it('uses the path root given by the caller', () => {
    expect(failure({ nope: { _eq: 1 } }, { path: ['permissions', 0, 'filter'] }).path).toEqual(['permissions', 0, 'filter', 'nope']);
  });
});
