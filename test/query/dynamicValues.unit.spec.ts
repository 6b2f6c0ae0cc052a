import { describe, expect, it } from 'vitest';
import { AppError } from '../../domain/shared/appError.ts';
import { normalizeDate } from '../../src/query/coerceValue.ts';
import { resolveDynamicValue } from '../../src/query/dynamicValues.ts';

const context = { now: new Date('2024-01-31T10:00:00.000Z'), userId: 'u1', roleId: null };
const resolve = (value: unknown) => resolveDynamicValue(value, context, ['filter', 'x', '_eq']).value;

describe('dynamic values', () => {
  it.each([
    ['$NOW', '2024-01-31T10:00:00.000Z'],
    ['$NOW(-7 days)', '2024-01-24T10:00:00.000Z'],
    ['$NOW(+2 hours)', '2024-01-31T12:00:00.000Z'],
    ['$NOW(1 hour)', '2024-01-31T11:00:00.000Z'],
    ['$NOW(-30 seconds)', '2024-01-31T09:59:30.000Z'],
    ['$NOW(-1 second)', '2024-01-31T09:59:59.000Z'],
    ['$NOW(+15 minutes)', '2024-01-31T10:15:00.000Z'],
    ['$NOW(-2 weeks)', '2024-01-17T10:00:00.000Z'],
    ['$NOW(+1 month)', '2024-02-29T10:00:00.000Z'],
    ['$NOW(-2 months)', '2023-11-30T10:00:00.000Z'],
    ['$NOW(+1 year)', '2025-01-31T10:00:00.000Z'],
    ['$NOW( - 3 Days )', '2024-01-28T10:00:00.000Z'],
  ])('resolves %s', (text, expected) => {
    expect(resolve(text)).toBe(expected);
  });

  it('resolves the current user and role, null when absent', () => {
    expect(resolveDynamicValue('$CURRENT_USER', context, [])).toEqual({ value: 'u1', fromVariable: true });
    expect(resolveDynamicValue('$CURRENT_ROLE', context, [])).toEqual({ value: null, fromVariable: true });
    expect(resolveDynamicValue('$CURRENT_ROLE', { now: context.now }, []).value).toBeNull();
  });

  it('leaves other values alone', () => {
    expect(resolveDynamicValue('$5 off', context, [])).toEqual({ value: '$5 off', fromVariable: false });
    expect(resolveDynamicValue(5, context, []).value).toBe(5);
    expect(resolveDynamicValue('$NOWHERE', context, []).value).toBe('$NOWHERE');
  });

  it.each(['$NOW(-7 fortnights)', '$NOW(7)', '$NOW(-days)', '$NOW()'])('refuses %s with the value path', (text) => {
    let error: unknown;
    try {
      resolve(text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, path: ['filter', 'x', '_eq'] });
  });
});

describe('normalizeDate', () => {
  it.each<[string, 'dateTime' | 'date' | 'time', string]>([
    ['2024-02-29', 'dateTime', '2024-02-29T00:00:00.000Z'],
    ['2024-02-29T23:00:00-02:00', 'dateTime', '2024-03-01T01:00:00.000Z'],
    ['2024-02-29T23:00:00+0530', 'dateTime', '2024-02-29T17:30:00.000Z'],
    ['2024-02-29t05:06:07.89z', 'dateTime', '2024-02-29T05:06:07.890Z'],
    ['2024-02-29', 'date', '2024-02-29'],
    ['2024-02-29T23:00:00-02:00', 'date', '2024-03-01'],
    ['07:05', 'time', '07:05:00'],
    ['07:05:09.123', 'time', '07:05:09'],
    ['2024-02-29T07:05:09+01:00', 'time', '06:05:09'],
  ])('normalises %s as %s to %s', (value, shape, expected) => {
    expect(normalizeDate(value, shape, [], 'f')).toBe(expected);
  });

  it.each(['2023-02-29', '2024-13-01', '2024-01-01T24:00', 'tomorrow', '10000-01-01', '2024-1-1'])('refuses %s', (value) => {
    expect(() => normalizeDate(value, 'dateTime', ['filter'], 'f')).toThrow(AppError);
  });
});
