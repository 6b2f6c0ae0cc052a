import { describe, expect, it } from 'vitest';
import { AppError } from '../../domain/shared/appError.ts';
import { compileFilter, prefixUpperBound } from '../../src/query/compileFilter.ts';
import { readModelFields } from '../../src/query/readModelFields.ts';
import type { FilterTree } from '../../src/query/types.ts';
import { appErrorThrownBy } from '../support/appErrors.ts';

const fields = readModelFields({
  action: { column: 'action', kind: 'text', operators: ['_eq', '_in', '_starts_with'] },
  occurredAt: { column: 'occurred_at', kind: 'timestamptz', operators: ['_gt', '_lte'] },
});

function compile(filter: FilterTree) {
  return compileFilter(filter, { fields, alias: 'a', now: new Date('2024-05-01T12:00:00Z') });
}

function failure(filter: FilterTree): AppError {
  return appErrorThrownBy(() => compile(filter));
}

describe('read model field maps', () => {
  it('compile a field to its column, compared as the column kind', () => {
    expect(compile({ action: { _eq: 'site.created' } })).toMatchObject({
      text: '(a.action IS NOT NULL AND a.action = $1::text)',
      values: ['site.created'],
    });
    expect(compile({ occurredAt: { _gt: '$NOW(-1 day)', _lte: '2024-05-01T14:00:00+02:00' } })).toMatchObject({
      text: '((a.occurred_at IS NOT NULL AND a.occurred_at > $1::timestamptz) AND (a.occurred_at IS NOT NULL AND a.occurred_at <= $2::timestamptz))',
      values: ['2024-04-30T12:00:00.000Z', '2024-05-01T12:00:00.000Z'],
    });
  });

  it("know no field but their columns: not the items' structural ones", () => {
    for (const name of ['id', 'status', 'createdAt', 'data']) {
      expect(failure({ [name]: { _eq: 'x' } })).toMatchObject({ code: 'VALIDATION_FAILED', path: ['filter', name] });
    }
  });

  it('refuse an operator the field does not list, with its path', () => {
    expect(failure({ action: { _neq: 'x' } })).toMatchObject({ code: 'VALIDATION_FAILED', path: ['filter', 'action', '_neq'] });
    expect(failure({ _or: [{ occurredAt: { _eq: '2024-01-01' } }] })).toMatchObject({ path: ['filter', '_or', 0, 'occurredAt', '_eq'] });
    expect(failure({ action: { _neq: 'x' } }).message).toContain('_eq, _in, _starts_with');
  });

  it('compile _starts_with to a byte range an index can answer, beside the literal LIKE', () => {
    expect(compile({ action: { _starts_with: 'site_' } })).toMatchObject({
      text: '(a.action IS NOT NULL AND a.action ~>=~ $1::text AND a.action ~<~ $2::text AND a.action LIKE $3::text)',
      values: ['site_', 'site`', 'site\\_%'],
    });
    expect(compile({ action: { _starts_with: '' } })).toMatchObject({
      text: '(a.action IS NOT NULL AND a.action ~>=~ $1::text AND TRUE AND a.action LIKE $2::text)',
      values: ['', '%'],
    });
  });

  it('refuse to be declared with an operator that does not fit the kind, or a bad column name', () => {
    expect(() => readModelFields({ at: { column: 'at', kind: 'timestamptz', operators: ['_starts_with'] } })).toThrow(/_starts_with/);
    expect(() => readModelFields({ at: { column: 'at; DROP', kind: 'text', operators: ['_eq'] } })).toThrow(/column name/);
  });
});

describe('prefixUpperBound', () => {
  it('gives the least text above every text with the prefix, in code point order', () => {
    expect(prefixUpperBound('abc')).toBe('abd');
    expect(prefixUpperBound('session.')).toBe('session/');
    expect(prefixUpperBound('é')).toBe('ê');
    expect(prefixUpperBound('a\u{10FFFF}')).toBe('b');
    expect(prefixUpperBound('a\u{D7FF}')).toBe('a\u{E000}');
    expect(prefixUpperBound('x😀')).toBe('x😁');
  });

  it('has none for the empty prefix or one of only the last code point', () => {
    expect(prefixUpperBound('')).toBeNull();
    expect(prefixUpperBound('\u{10FFFF}\u{10FFFF}')).toBeNull();
  });
});
