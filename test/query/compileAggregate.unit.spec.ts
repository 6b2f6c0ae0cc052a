import { describe, expect, it } from 'vitest';
import { AppError } from '../../domain/shared/appError.ts';
import { compileAggregate, shapeAggregateRow } from '../../src/query/compileAggregate.ts';
import type { AggregateSpec } from '../../src/query/types.ts';
import { appErrorThrownBy } from '../support/appErrors.ts';
import { articleFields } from './fixtures.ts';

function failure(aggregate: AggregateSpec, groupBy: string[] = []): AppError {
  return appErrorThrownBy(() => compileAggregate(aggregate, groupBy, articleFields, 'i'));
}

describe('compileAggregate', () => {
  it('builds the select list from field expressions, and groups by their positions in it', () => {
    const compiled = compileAggregate({ count: ['*', 'title'], countDistinct: ['author'], sum: ['views'], avg: ['price'], min: ['publishedAt'], max: ['views'] }, ['author', 'status'], articleFields, 'i');
    expect(compiled.select.text).toBe(
      "(i.data->>'author') AS g0, i.status AS g1, count(*) AS a0, count((i.data->>'title')) AS a1, count(DISTINCT (i.data->>'author')) AS a2, sum(((i.data->>'views')::numeric)) AS a3, avg(((i.data->>'price')::numeric)) AS a4, min((i.data->>'publishedAt')) AS a5, max(((i.data->>'views')::numeric)) AS a6",
    );
    expect(compiled.groupBy?.text).toBe('1, 2');
    expect(compiled.columns.map((column) => column.alias)).toEqual(['g0', 'g1', 'a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
  });

  it('groups a translated field by position: its expression carries the languages as parameters', () => {
    const compiled = compileAggregate({ count: ['*'] }, ['headline'], articleFields, 'i');
    expect(compiled.select.text).toBe("(COALESCE((i.data->'headline'->>$1::text), (i.data->'headline'->>$2::text))) AS g0, count(*) AS a0");
    expect(compiled.select.values).toEqual(['fr', 'en']);
    expect(compiled.groupBy?.text).toBe('1');
  });

  it('has no GROUP BY without groupBy', () => {
    expect(compileAggregate({ count: ['*'] }, [], articleFields, 'i')).toMatchObject({ groupBy: null, select: { text: 'count(*) AS a0' } });
  });

  it('shapes rows into the response form', () => {
    const { columns } = compileAggregate({ count: ['*', 'title'], sum: ['views', 'big'], max: ['publishedAt'] }, ['author'], articleFields, 'i');
    const row = { g0: 'a1', a0: '3', a1: '2', a2: '17', a3: '9007199254740993', a4: '2024-06-01' };
    expect(shapeAggregateRow(row, columns)).toEqual({
      author: 'a1',
      count: { '*': 3, title: 2 },
      sum: { views: 17, big: '9007199254740993' },
      max: { publishedAt: '2024-06-01' },
    });
    expect(shapeAggregateRow({ a0: null }, compileAggregate({ sum: ['views'] }, [], articleFields, 'i').columns)).toEqual({ sum: { views: null } });
  });

  it.each<[AggregateSpec, string[], (string | number)[]]>([
    [{ sum: ['title'] }, [], ['aggregate', 'sum']],
    [{ avg: ['published'] }, [], ['aggregate', 'avg']],
    [{ max: ['meta'] }, [], ['aggregate', 'max']],
    [{ sum: ['*'] }, [], ['aggregate', 'sum']],
    [{ count: ['nope'] }, [], ['aggregate', 'count']],
    [{ count: ['comments'] }, [], ['aggregate', 'count']],
    [{ count: ['*'] }, ['nope'], ['groupBy']],
    [{ count: ['*'] }, ['meta'], ['groupBy']],
    [{}, [], ['aggregate']],
  ])('refuses %j grouped by %j', (aggregate, groupBy, path) => {
    expect(failure(aggregate, groupBy)).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, path });
  });
});
