import { describe, expect, it } from 'vitest';
import { AppError } from '../../domain/shared/appError.ts';
import { parseListQuery } from '../../src/query/parseListQuery.ts';
import { appErrorThrownBy } from '../support/appErrors.ts';

function failure(query: Record<string, unknown>): AppError {
  return appErrorThrownBy(() => parseListQuery(query));
}

describe('parseListQuery', () => {
  it('gives the defaults for an empty querystring', () => {
    expect(parseListQuery({})).toEqual({
      fields: null,
      filter: null,
      sort: [],
      limit: 25,
      offset: 0,
      page: null,
      meta: 'total_count',
      aggregate: null,
      groupBy: [],
      deep: {},
      search: null,
    });
  });

  it('reads limit, offset and meta', () => {
    const query = parseListQuery({ limit: '200', offset: '40', meta: 'none' });
    expect(query).toMatchObject({ limit: 200, offset: 40, meta: 'none', page: null });
    expect(parseListQuery({ limit: '1' }).limit).toBe(1);
  });

  it('turns a 1-indexed page into an offset, ahead of any offset', () => {
    expect(parseListQuery({ page: '3', limit: '10', offset: '5' })).toMatchObject({ page: 3, offset: 20, limit: 10 });
    expect(parseListQuery({ page: '1' })).toMatchObject({ page: 1, offset: 0 });
  });

  it.each(['0', '201', '-1', 'abc', '1.5', '1e2'])('refuses limit=%s', (limit) => {
    expect(failure({ limit })).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, path: ['limit'] });
  });

  it('treats an empty limit as the default', () => {
    expect(parseListQuery({ limit: '' }).limit).toBe(25);
  });

  it.each([
    [{ offset: '-1' }, ['offset']],
    [{ offset: 'x' }, ['offset']],
    [{ page: '0' }, ['page']],
    [{ page: '-2' }, ['page']],
    [{ meta: 'filter_count' }, ['meta']],
    [{ fields: 'a,b c' }, ['fields']],
    [{ fields: 'a.*.b' }, ['fields']],
    [{ fields: 'blocks.item:headings:texts.title' }, ['fields']],
    [{ fields: 'blocks.item:.title' }, ['fields']],
    [{ fields: '*:headings' }, ['fields']],
    [{ sort: 'title,--views' }, ['sort']],
    [{ sort: 'ti tle' }, ['sort']],
    [{ sort: 'title', nulls: 'middle' }, ['nulls']],
    [{ sort: 'title', nulls: 'LAST' }, ['nulls']],
    [{ 'deep[author][_nulls]': 'none' }, ['deep', 'author', '_nulls']],
    [{ groupBy: 'a.b' }, ['groupBy']],
    [{ 'aggregate[median]': 'views' }, ['aggregate', 'median']],
    [{ 'aggregate[sum]': 'a-b' }, ['aggregate', 'sum']],
    [{ 'deep[author][limit]': '500' }, ['deep', 'author', 'limit']],
    [{ 'deep[author][_offset]': '-1' }, ['deep', 'author', '_offset']],
    [{ 'deep[blocks][item:headings:texts][filter][a][_eq]': '1' }, ['deep', 'blocks', 'item:headings:texts']],
    [{ 'deep[blocks][item:][filter][a][_eq]': '1' }, ['deep', 'blocks', 'item:']],
    [{ 'deep[blocks][:headings][filter][a][_eq]': '1' }, ['deep', 'blocks', ':headings']],
    [{ 'deep[blocks][item.headings][filter][a][_eq]': '1' }, ['deep', 'blocks', 'item.headings']],
    [{ deep: '{"blocks":{"item:a:b":{"_filter":{}}}}' }, ['deep', 'blocks', 'item:a:b']],
    [{ 'deep[blocks][item:headings][limit]': '0' }, ['deep', 'blocks', 'item:headings', 'limit']],
  ])('refuses %j with a path', (query, path) => {
    expect(failure(query)).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, path });
  });

  it('reads fields as a comma list, repeated keys or fields[]', () => {
    expect(parseListQuery({ fields: 'title, author.name,*,author.*' }).fields).toEqual(['title', 'author.name', '*', 'author.*']);
    expect(parseListQuery({ fields: ['a', 'b,c'] }).fields).toEqual(['a', 'b', 'c']);
    expect(parseListQuery({ 'fields[]': ['a', 'b'] }).fields).toEqual(['a', 'b']);
    // Directus' scoped selection of an m2a item field's target collection.
    expect(parseListQuery({ fields: 'blocks.item:headings.title,blocks.item:texts.*' }).fields).toEqual(['blocks.item:headings.title', 'blocks.item:texts.*']);
  });

  it('reads sort with descending terms', () => {
    expect(parseListQuery({ sort: '-publishedAt,title,meta.rank' }).sort).toEqual([
      { field: 'publishedAt', direction: 'desc' },
      { field: 'title', direction: 'asc' },
      { field: 'meta.rank', direction: 'asc' },
    ]);
  });

  it('reads the filter in both forms', () => {
    expect(parseListQuery({ 'filter[views][_gte]': '3' }).filter).toEqual({ views: { _gte: 3 } });
    expect(parseListQuery({ filter: '{"views":{"_gte":"3"}}' }).filter).toEqual({ views: { _gte: '3' } });
    expect(failure({ filter: '{oops' })).toMatchObject({ code: 'VALIDATION', path: ['filter'] });
  });

  it('reads aggregates in bracket and JSON forms, and groupBy', () => {
    const query = parseListQuery({ 'aggregate[count]': '*', 'aggregate[sum]': 'views,likes', 'aggregate[max]': ['a', 'b'], groupBy: 'author,status' });
    expect(query.aggregate).toEqual({ count: ['*'], sum: ['views', 'likes'], max: ['a', 'b'] });
    expect(query.groupBy).toEqual(['author', 'status']);
    expect(parseListQuery({ aggregate: '{"countDistinct":"author","avg":"views"}' }).aggregate).toEqual({
      countDistinct: ['author'],
      avg: ['views'],
    });
  });

  it('reads deep relation parameters, underscored or not, with nested relations', () => {
    const query = parseListQuery({
      'deep[author][fields]': 'a,b',
      'deep[author][limit]': '5',
      'deep[author][_sort]': '-name',
      'deep[author][filter][name][_eq]': 'Ann',
      'deep[comments][_page]': '2',
      'deep[comments][_offset]': '4',
      'deep[comments][replies][_limit]': '3',
    });
    expect(query.deep).toEqual({
      author: {
        fields: ['a', 'b'],
        filter: { name: { _eq: 'Ann' } },
        sort: [{ field: 'name', direction: 'desc' }],
        limit: 5,
        offset: null,
        page: null,
        deep: {},
      },
      comments: {
        fields: null,
        filter: null,
        sort: [],
        limit: null,
        offset: 4,
        page: 2,
        deep: { replies: { fields: null, filter: null, sort: [], limit: 3, offset: null, page: null, deep: {} } },
      },
    });
  });

  it('reads nulls=first|last onto every sort term, and leaves the terms as they were without it', () => {
    expect(parseListQuery({ sort: '-views,title', nulls: 'first' }).sort).toEqual([
      { field: 'views', direction: 'desc', nulls: 'first' },
      { field: 'title', direction: 'asc', nulls: 'first' },
    ]);
    expect(parseListQuery({ sort: '-views', nulls: 'last' }).sort).toEqual([{ field: 'views', direction: 'desc', nulls: 'last' }]);
    expect(parseListQuery({ sort: '-views' }).sort).toEqual([{ field: 'views', direction: 'desc' }]);
    expect(parseListQuery({ nulls: 'first' }).sort).toEqual([]);
  });

  it('reads deep[rel][nulls] onto the sort of that relation, before or after its sort key', () => {
    const query = parseListQuery({ 'deep[author][_nulls]': 'first', 'deep[author][_sort]': '-age', 'deep[comments][sort]': 'at' });
    expect(query.deep.author!.sort).toEqual([{ field: 'age', direction: 'desc', nulls: 'first' }]);
    expect(query.deep.comments!.sort).toEqual([{ field: 'at', direction: 'asc' }]);
    expect(parseListQuery({ deep: '{"author":{"_sort":["name"],"_nulls":"first"}}' }).deep.author!.sort).toEqual([{ field: 'name', direction: 'asc', nulls: 'first' }]);
  });

  it('reads deep in the JSON form, keeping typed filter values', () => {
    const query = parseListQuery({ deep: '{"author":{"_limit":2,"_filter":{"age":{"_eq":"7"}}}}' });
    expect(query.deep.author).toMatchObject({ limit: 2, filter: { age: { _eq: '7' } } });
  });


  it('reads every value of deep fields and sort: repeated bracket keys and JSON arrays', () => {
    expect(parseListQuery({ 'deep[author][fields]': ['name', 'email,age'] }).deep.author).toMatchObject({ fields: ['name', 'email', 'age'] });
    const query = parseListQuery({ deep: '{"author":{"_fields":["name","email"],"_sort":["-age","name"]}}' });
    expect(query.deep.author).toMatchObject({
      fields: ['name', 'email'],
      sort: [
        { field: 'age', direction: 'desc' },
        { field: 'name', direction: 'asc' },
      ],
    });
  });

  it('refuses a __proto__ deep key in the JSON form, with its path (the bracket form drops such segments)', () => {
    expect(failure({ deep: '{"__proto__":{"_limit":1}}' }).path).toEqual(['deep', '__proto__']);
    expect(failure({ deep: '{"author":{"_deep":{"__proto__":{"_limit":1}}}}' }).path).toEqual(['deep', 'author', '__proto__']);
    expect(parseListQuery({ 'deep[__proto__][limit]': '1' }).deep).toEqual({});
  });
  it('reads deep parameters of m2a targets keyed <field>:<collection>, in the bracket, [deep] and JSON forms', () => {
    const target = { fields: null, filter: { level: { _eq: 1 } }, sort: [], limit: null, offset: null, page: null, deep: {} };
    const expected = { blocks: { fields: null, filter: null, sort: [], limit: null, offset: null, page: null, deep: { 'item:headings': target } } };
    expect(parseListQuery({ 'deep[blocks][item:headings][filter][level][_eq]': '1' }).deep).toEqual(expected);
    expect(parseListQuery({ 'deep[blocks][deep][item:headings][_filter][level][_eq]': '1' }).deep).toEqual(expected);
    expect(parseListQuery({ deep: '{"blocks":{"item:headings":{"_filter":{"level":{"_eq":1}}}}}' }).deep).toEqual(expected);
    // Unscoped `item`, fields, and a target's own relations; list parameters are parsed here and refused against the schema.
    const query = parseListQuery({
      'deep[blocks][item][filter][title][_nnull]': 'true',
      'deep[blocks][item:quotes][fields]': 'quote,author.name',
      'deep[blocks][item:quotes][author][filter][name][_eq]': 'Ann',
      'deep[blocks][item:texts][limit]': '2',
    });
    expect(query.deep.blocks!.deep).toEqual({
      item: { ...target, filter: { title: { _nnull: true } } },
      'item:quotes': {
        ...target,
        fields: ['quote', 'author.name'],
        filter: null,
        deep: { author: { ...target, filter: { name: { _eq: 'Ann' } } } },
      },
      'item:texts': { ...target, filter: null, limit: 2 },
    });
  });

  it('reads search as trimmed text', () => {
    expect(parseListQuery({ search: '  phở  ' }).search).toBe('phở');
    expect(parseListQuery({ search: '   ' }).search).toBeNull();
  });
});
