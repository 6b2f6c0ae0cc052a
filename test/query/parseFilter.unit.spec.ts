import { describe, expect, it } from 'vitest';
import { coerceBracketScalar, parseBracketKey } from '../../src/query/bracketParams.ts';
import { parseFilterParam } from '../../src/query/parseFilter.ts';
import { appErrorThrownBy } from '../support/appErrors.ts';

describe('bracket coercion', () => {
  it.each([
    ['true', true],
    ['false', false],
    ['null', null],
    ['42', 42],
    ['-7', -7],
    ['0', 0],
    ['3.25', 3.25],
    ['-0.5', -0.5],
    ['007', '007'],
    ['00.5', '00.5'],
    ['1.50', '1.50'],
    ['-0', '-0'],
    ['1e3', '1e3'],
    ['.5', '.5'],
    ['12345678901234567890', '12345678901234567890'],
    ['abc', 'abc'],
    ['', ''],
    ['True', 'True'],
    [' 5', ' 5'],
  ])('coerces %j to %j', (text, expected) => {
    expect(coerceBracketScalar(text)).toStrictEqual(expected);
  });
});

describe('parseBracketKey', () => {
  it('splits well-formed keys into segments', () => {
    expect(parseBracketKey('filter[title][_eq]', 'filter')).toEqual(['title', '_eq']);
    expect(parseBracketKey('filter[_and][0][status][_eq]', 'filter')).toEqual(['_and', '0', 'status', '_eq']);
    expect(parseBracketKey('filter[meta.a.b][_gt]', 'filter')).toEqual(['meta.a.b', '_gt']);
    expect(parseBracketKey('filter[id][_in][]', 'filter')).toEqual(['id', '_in']);
  });

  it.each(['filter[title', 'filter[title]x', 'filter[]', 'filter[a][][_eq]', 'filter[a[b]][_eq]', 'filters[a][_eq]', 'filter[__proto__][_eq]', 'filter'])(
    'treats %s as malformed',
    (key) => {
      expect(parseBracketKey(key, 'filter')).toBeNull();
    },
  );
});

describe('parseFilterParam', () => {
  it('reads the bracket form with coerced values', () => {
    const filter = parseFilterParam({
      'filter[title][_eq]': 'Hello',
      'filter[views][_gt]': '10',
      'filter[published][_eq]': 'true',
      'filter[deletedBy][_eq]': 'null',
      'filter[code][_eq]': '007',
    });
    expect(filter).toEqual({
      title: { _eq: 'Hello' },
      views: { _gt: 10 },
      published: { _eq: true },
      deletedBy: { _eq: null },
      code: { _eq: '007' },
    });
  });

  it('splits array operators on commas and coerces each value', () => {
    const filter = parseFilterParam({
      'filter[id][_in]': 'a,007,3,true',
      'filter[views][_nin]': '1,2',
      'filter[views][_between]': '1,10',
      'filter[meta][_has_any_keys]': 'x,y',
      'filter[meta][_has_all_keys]': 'x',
    });
    expect(filter).toEqual({
      id: { _in: ['a', '007', 3, true] },
      views: { _nin: [1, 2], _between: [1, 10] },
      meta: { _has_any_keys: ['x', 'y'], _has_all_keys: ['x'] },
    });
  });

  it('collects repeated and indexed array values', () => {
    expect(parseFilterParam({ 'filter[id][_in]': ['a', 'b,c'] })).toEqual({ id: { _in: ['a', 'b', 'c'] } });
    expect(parseFilterParam({ 'filter[id][_in][1]': 'b', 'filter[id][_in][0]': 'a' })).toEqual({ id: { _in: ['a', 'b'] } });
    expect(parseFilterParam({ 'filter[id][_in]': '' })).toEqual({ id: { _in: [] } });
  });

  it('builds logical groups from index segments', () => {
    const filter = parseFilterParam({
      'filter[_and][0][status][_eq]': 'published',
      'filter[_and][1][_or][0][views][_gt]': '5',
      'filter[_and][1][_or][1][title][_null]': 'true',
    });
    expect(filter).toEqual({
      _and: [{ status: { _eq: 'published' } }, { _or: [{ views: { _gt: 5 } }, { title: { _null: true } }] }],
    });
  });

  it('reads JSON inside a bracket _json_contains', () => {
    expect(parseFilterParam({ 'filter[meta][_json_contains]': '{"a":[1]}' })).toEqual({ meta: { _json_contains: { a: [1] } } });
    expect(parseFilterParam({ 'filter[meta][_json_contains]': 'plain' })).toEqual({ meta: { _json_contains: 'plain' } });
  });

  it('ignores malformed bracket keys and keeps the rest', () => {
    const filter = parseFilterParam({ 'filter[title': 'x', 'filter[]': 'y', 'filter[views][_gt]': '1', 'filter[a]b]': 'z' });
    expect(filter).toEqual({ views: { _gt: 1 } });
  });

  it('ignores a deeper key that clashes with a value', () => {
    expect(parseFilterParam({ 'filter[title]': 'x', 'filter[title][_eq]': 'y' })).toEqual({ title: 'x' });
  });

  it('accepts an already nested filter object', () => {
    expect(parseFilterParam({ filter: { title: { _eq: '5' }, _or: { 0: { id: { _in: '1,2' } } } } })).toEqual({
      title: { _eq: 5 },
      _or: [{ id: { _in: [1, 2] } }],
    });
  });

  it('reads the JSON form without coercing its values', () => {
    expect(parseFilterParam({ filter: '{"title":{"_eq":"5"},"views":{"_gt":5}}' })).toEqual({
      title: { _eq: '5' },
      views: { _gt: 5 },
    });
  });

  it('prefers the JSON form when both are supplied', () => {
    expect(parseFilterParam({ filter: '{"a":{"_eq":1}}', 'filter[b][_eq]': '2' })).toEqual({ a: { _eq: 1 } });
  });

  it('gives null without a filter', () => {
    expect(parseFilterParam({})).toBeNull();
    expect(parseFilterParam({ filter: '' })).toBeNull();
  });

  it.each(['{"title":', 'not json', '[1,2]', '"text"', '5', 'null'])('refuses the malformed JSON filter %s with VALIDATION', (text) => {
    const error = appErrorThrownBy(() => parseFilterParam({ filter: text }));
    expect(error.code).toBe('VALIDATION');
    expect(error.status).toBe(400);
    expect(error.path).toEqual(['filter']);
  });
});
