// Date buckets of an aggregate (dashboard panels, docs/insights.md) and the code a filter's unknown
// field is refused with (INVALID_FIELD for panel queries, VALIDATION_FAILED elsewhere).
import { describe, expect, it } from 'vitest';
import { compileAggregate } from '../../src/query/compileAggregate.ts';
import { resolveFilter } from '../../src/query/resolveFilter.ts';
import { appErrorThrownBy } from '../support/appErrors.ts';
import { articleFields } from './fixtures.ts';

describe('aggregate date buckets', () => {
  it('groups first by the date field truncated in UTC, then by groupBy, both by position', () => {
    const compiled = compileAggregate({ count: ['*'] }, ['author'], articleFields, 'i', { field: 'publishedAt', unit: 'day' });
    expect(compiled.select.text).toBe(
      "date_trunc('day', ((i.data->>'publishedAt'))::timestamptz, 'UTC') AS g0, (i.data->>'author') AS g1, count(*) AS a0",
    );
    expect(compiled.groupBy?.text).toBe('1, 2');
    expect(compiled.columns.slice(0, 2)).toEqual([
      { alias: 'g0', role: 'group', field: 'publishedAt' },
      { alias: 'g1', role: 'group', field: 'author' },
    ]);
  });

  it('truncates structural times as they are and stored dates as midnight UTC', () => {
    expect(compileAggregate({ count: ['*'] }, [], articleFields, 'i', { field: 'createdAt', unit: 'month' }).select.text).toBe(
      "date_trunc('month', i.created_at, 'UTC') AS g0, count(*) AS a0",
    );
    expect(compileAggregate({ count: ['*'] }, [], articleFields, 'i', { field: 'day', unit: 'week' }).select.text).toBe(
      "date_trunc('week', (((i.data->>'day'))::date)::timestamp AT TIME ZONE 'UTC', 'UTC') AS g0, count(*) AS a0",
    );
  });

  it.each([
    ['title', 'day'],
    ['at', 'hour'],
    ['publishedAt', "day'; drop table items; --"],
  ])('refuses a bucket of %s by %s', (field, unit) => {
    const error = appErrorThrownBy(() => compileAggregate({ count: ['*'] }, [], articleFields, 'i', { field, unit: unit as 'day' }));
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', path: ['bucket'] });
  });
});

describe('the code of an unknown filter field', () => {
  const context = { fields: articleFields, now: new Date(), userId: null, roleId: null };

  it('is VALIDATION_FAILED by default', () => {
    expect(appErrorThrownBy(() => resolveFilter({ nope: { _eq: 1 } }, context))).toMatchObject({ code: 'VALIDATION_FAILED', path: ['filter', 'nope'] });
  });

  it.each([{ nope: { _eq: 1 } }, { 'title"; drop table items': { _eq: 1 } }, { _or: [{ "data->>'x'": { _eq: 1 } }] }, { author: { name: { _eq: 'a' } } }])(
    'is the context’s code when asked: %j',
    (filter) => {
      const error = appErrorThrownBy(() => resolveFilter(filter, { ...context, unknownFieldCode: 'INVALID_FIELD', path: ['body', 'query', 'filter'] }));
      expect(error.code).toBe('INVALID_FIELD');
      expect(error.status).toBe(400);
      expect(error.path.slice(0, 3)).toEqual(['body', 'query', 'filter']);
    },
  );
});
