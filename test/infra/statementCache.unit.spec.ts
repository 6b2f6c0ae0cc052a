import { describe, expect, it } from 'vitest';
import { StatementCache, statementName } from '../../infra/postgres/statementCache.ts';

describe('a connection`s prepared statements', () => {
  it('parse a text once, and not again once its pipeline completed', () => {
    const cache = new StatementCache(10);
    expect(cache.plan(['SELECT 1']).statements).toEqual([{ name: statementName('SELECT 1'), close: false, parse: true }]);
    cache.completed();
    expect(cache.plan(['SELECT 1']).statements).toEqual([{ name: statementName('SELECT 1'), close: false, parse: false }]);
  });

  it('parse a text used twice in one pipeline only the first time', () => {
    const cache = new StatementCache(10);
    expect(cache.plan(['SELECT 1', 'SELECT 1']).statements.map((statement) => statement.parse)).toEqual([true, false]);
  });

  it('close and parse again every text of a pipeline that failed, prepared before it or by it', () => {
    const cache = new StatementCache(10);
    cache.plan(['SELECT 1']);
    cache.completed();
    cache.plan(['SELECT 1', 'SELECT 2']);
    cache.failed();
    expect(cache.plan(['SELECT 2', 'SELECT 1']).statements).toEqual([
      { name: statementName('SELECT 2'), close: true, parse: true },
      { name: statementName('SELECT 1'), close: true, parse: true },
    ]);
    cache.completed();
    expect(cache.plan(['SELECT 1', 'SELECT 2']).statements.map((statement) => statement.parse)).toEqual([false, false]);
  });

  it('close the least recently used past their capacity, never one the pipeline uses', () => {
    const cache = new StatementCache(2);
    cache.plan(['SELECT 1', 'SELECT 2']);
    cache.completed();
    cache.plan(['SELECT 1']);
    cache.completed();
    // SELECT 2 is now the least recently used.
    expect(cache.plan(['SELECT 3']).evicted).toEqual([statementName('SELECT 2')]);
    cache.completed();
    expect(cache.size).toBe(2);
    const crowded = cache.plan(['SELECT 4', 'SELECT 5', 'SELECT 6']);
    expect(crowded.evicted).toEqual([statementName('SELECT 1'), statementName('SELECT 3')]);
    expect(crowded.statements.every((statement) => statement.parse)).toBe(true);
    cache.completed();
    // An evicted text is new again: parsed, not closed (its Close went first in the pipeline that evicted it).
    expect(cache.plan(['SELECT 2']).statements).toEqual([{ name: statementName('SELECT 2'), close: false, parse: true }]);
  });
});
