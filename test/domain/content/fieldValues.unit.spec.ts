import { describe, expect, it } from 'vitest';
import { checkFieldValue, HASH_MASK } from '../../../domain/content/fieldValues.ts';
import type { ContentField, FieldType } from '../../../domain/content/schemaModel.ts';
import { AppError } from '../../../domain/shared/appError.ts';

function field(type: FieldType, options: Record<string, unknown> = {}): ContentField {
  return { field: 'f', type, interface: null, display: null, options, required: false, sort: null, sensitivity: null, indexed: false, note: null };
}

function stored(type: FieldType, value: unknown, options: Record<string, unknown> = {}): unknown {
  const result = checkFieldValue(field(type, options), value, ['body', 'f']);
  if (!('value' in result)) throw new Error('expected a stored value');
  return result.value;
}

function refusal(type: FieldType, value: unknown, options: Record<string, unknown> = {}): AppError {
  try {
    checkFieldValue(field(type, options), value, ['body', 'f']);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error(`${type} accepted ${JSON.stringify(value)}`);
}

const cases: { type: FieldType; options?: Record<string, unknown>; good: [unknown, unknown][]; bad: unknown[] }[] = [
  { type: 'boolean', good: [[true, true], [false, false]], bad: ['true', 1, 0, {}] },
  {
    type: 'integer',
    good: [[0, 0], [-2_147_483_648, -2_147_483_648], [2_147_483_647, 2_147_483_647]],
    bad: [2_147_483_648, -2_147_483_649, 1.5, '12', Number.NaN, true],
  },
  { type: 'integer', options: { min: 1, max: 10 }, good: [[1, 1], [10, 10]], bad: [0, 11] },
  { type: 'float', good: [[1.5, 1.5], [-0.25, -0.25], [3, 3]], bad: ['1.5', Number.POSITIVE_INFINITY, {}] },
  {
    type: 'bigInteger',
    good: [['9223372036854775807', '9223372036854775807'], ['-9223372036854775808', '-9223372036854775808'], [42, '42'], ['+7', '7']],
    bad: ['9223372036854775808', '1.5', 'abc', 2 ** 60, []],
  },
  {
    type: 'decimal',
    good: [['12.50', '12.50'], [12.5, '12.5'], ['-0.001', '-0.001'], ['007.5', '7.5']],
    bad: ['1e5', 'abc', '1.2.3', Number.NaN, true],
  },
  { type: 'decimal', options: { precision: 5, scale: 2 }, good: [['123.45', '123.45']], bad: ['1234.5', '1.234'] },
  {
    type: 'dateTime',
    good: [
      ['2024-05-01T12:00:00Z', '2024-05-01T12:00:00.000Z'],
      ['2024-05-01T14:30:00+02:00', '2024-05-01T12:30:00.000Z'],
      ['2024-05-01T12:00:00.123456Z', '2024-05-01T12:00:00.123Z'],
      ['2024-05-01', '2024-05-01T00:00:00.000Z'],
    ],
    bad: ['2024-02-30T00:00:00Z', '2024-05-01T25:00:00Z', 'yesterday', 1714564800000, '2024-05-01T12:00:00+25:00'],
  },
  { type: 'timestamp', good: [['2020-02-29T23:59:59-01:00', '2020-03-01T00:59:59.000Z']], bad: ['2021-02-29T00:00:00Z'] },
  { type: 'date', good: [['2024-02-29', '2024-02-29']], bad: ['2023-02-29', '2024-13-01', '2024-05-01T00:00:00Z', 20240501] },
  { type: 'time', good: [['14:30', '14:30:00'], ['23:59:59', '23:59:59'], ['08:00:00.250', '08:00:00']], bad: ['24:00', '12:60', '2pm', 1430] },
  {
    type: 'uuid',
    good: [['0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D', '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d']],
    bad: ['0a1b2c3d-4e5f-4a6b-8c7d', 'not-a-uuid', 42],
  },
  { type: 'slug', good: [['hello-world', 'hello-world'], ['a_b-2', 'a_b-2']], bad: ['Hello', 'a--b', '-a', 'a b', 'é'] },
  { type: 'color', good: [['#FFAA00', '#ffaa00'], ['#abc', '#abc'], ['#11223344', '#11223344']], bad: ['ffaa00', '#ggg', '#12345', 'red'] },
  { type: 'csv', good: [['a, b,,c', 'a,b,c'], [['x', 'y'], 'x,y']], bad: [['a,b'], 42, [1, 2]] },
  {
    type: 'json',
    good: [[{ a: [1, 'b', null] }, { a: [1, 'b', null] }], ['text', 'text'], [3, 3]],
    bad: [{ a: Number.POSITIVE_INFINITY }, { a: 'nul\u0000' }],
  },
  {
    type: 'geometry',
    good: [
      [{ type: 'Point', coordinates: [2.35, 48.85] }, { type: 'Point', coordinates: [2.35, 48.85] }],
      [{ type: 'LineString', coordinates: [[0, 0], [1, 1]] }, { type: 'LineString', coordinates: [[0, 0], [1, 1]] }],
      [
        { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] },
        { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] },
      ],
      [
        { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [0, 0] }] },
        { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [0, 0] }] },
      ],
    ],
    bad: [
      { type: 'Point', coordinates: [1] },
      { type: 'Circle', coordinates: [0, 0] },
      { type: 'LineString', coordinates: [[0, 0]] },
      { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [2, 2]]] },
      'POINT(0 0)',
    ],
  },
  { type: 'files', good: [[['f1', 'f2'], ['f1', 'f2']], [[], []]], bad: ['f1', ['a/b'], ['f1', 'f1'], [1]] },
  { type: 'string', good: [['hello', 'hello'], ['x'.repeat(255), 'x'.repeat(255)]], bad: ['x'.repeat(256), 12, 'nul\u0000'] },
  { type: 'string', options: { maxLength: 3 }, good: [['abc', 'abc'], ['日本語', '日本語']], bad: ['abcd'] },
  { type: 'string', options: { choices: [{ value: 'a', text: 'A' }, 'b'] }, good: [['a', 'a'], ['b', 'b']], bad: ['c'] },
  { type: 'text', good: [['x'.repeat(10_000), 'x'.repeat(10_000)]], bad: [false, ['a']] },
  { type: 'code', good: [['const a = 1;', 'const a = 1;']], bad: [{ code: 1 }] },
];

describe('field values', () => {
  for (const testCase of cases) {
    const label = `${testCase.type}${testCase.options ? ` ${JSON.stringify(testCase.options)}` : ''}`;
    it(`${label}: stores good values normalised`, () => {
      for (const [input, expected] of testCase.good) expect(stored(testCase.type, input, testCase.options)).toEqual(expected);
    });
    it(`${label}: refuses bad values with VALIDATION_FAILED at the field's path`, () => {
      for (const input of testCase.bad) {
        const error = refusal(testCase.type, input, testCase.options);
        expect(error.code).toBe('VALIDATION_FAILED');
        expect(error.status).toBe(400);
        expect(error.path.slice(0, 2)).toEqual(['body', 'f']);
      }
    });
  }

  it('accepts null for every type (required is checked on the whole item)', () => {
    for (const testCase of cases) expect(stored(testCase.type, null, testCase.options)).toBeNull();
  });

  it('hash: clear text is set apart for hashing, the mask keeps the stored hash, a PHC string is kept as is', () => {
    expect(checkFieldValue(field('hash'), 'secret', ['body', 'f'])).toEqual({ hashClearText: 'secret' });
    expect(checkFieldValue(field('hash'), HASH_MASK, ['body', 'f'])).toEqual({ keepHash: true });
    const phc = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo';
    expect(checkFieldValue(field('hash'), phc, ['body', 'f'])).toEqual({ value: phc });
    expect(refusal('hash', '').code).toBe('VALIDATION_FAILED');
    expect(refusal('hash', 42).code).toBe('VALIDATION_FAILED');
    expect(refusal('hash', 'x'.repeat(1025)).code).toBe('VALIDATION_FAILED');
  });
});
