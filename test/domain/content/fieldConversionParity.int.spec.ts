// The conversion of a field type change has two implementations that must agree: the SQL function
// svc_convert_field_value (the read models convert with it, set-based) and convertFieldValue in
// domain/content/fieldTypeChange.ts (an item loaded for a write is converted with it). One corpus of
// stored values goes through both, for every field type and a few text limits: every answer is equal.
import { describe, expect, it } from 'vitest';
import { convertFieldValue } from '../../../domain/content/fieldTypeChange.ts';
import { FIELD_TYPES, type FieldType } from '../../../domain/content/schemaModel.ts';
import { canonicalJson } from '../../../domain/shared/canonicalJson.ts';
import { connectOwnerClientForFile } from '../../support/databases.ts';

const owner = await connectOwnerClientForFile();

/** Values items may hold: each type's stored forms, texts that parse or nearly parse, and the odd shapes. */
const CORPUS: unknown[] = [
  // numbers
  0, 1, -1, 12, 12.5, -12.5, 0.1, 1e21, 1.5e-7, 123456789012, 2147483647, 2147483648, -2147483648, -2147483649,
  9007199254740991, 1.7976931348623157e308, 3.14159, 100,
  // numeric texts
  '12', ' 12 ', '+12', '-0', '007', '12.5', '12.50', '-0.00', '.5', '5.', '1.5e3', '1e400', '-1e-400', '1.7976931348623158e308',
  '1.7976931348623157e308', '9223372036854775807', '9223372036854775808', '-9223372036854775808', '99999999999', '12abc', '1 2', '\t12',
  // booleans
  true, false, 'true', ' TRUE ', 'False', 'yes', '1',
  // dates and times
  '2024-02-29', '2023-02-29', '2024-02-30', '0000-01-01', '0001-01-01', ' 2024-05-01 ', '2024-5-1', '2024-05-01T10:00:00Z',
  '2024-05-01T10:00:00.1239+02:00', '2024-05-01 10:00', '2024-05-01T23:30:00-0130', '2024-05-01t10:00:00z', '2024-05-01T10:00:00.1Z',
  '2024-12-31T23:59:59.999-05:00', '2024-05-01T24:00:00Z', '0999-06-15T12:00:00Z', '10:30', '10:30:15', '10:30:15.5', '24:00', '9:30',
  // identifiers, slugs, colours, csv
  '0190B7E4-1C2D-7A3B-8C4D-5E6F7A8B9C0D', '0190b7e4-1c2d-7a3b-8c4d-5e6f7a8b9c0d', ' 0190b7e4-1c2d-7a3b-8c4d-5e6f7a8b9c0d', 'not-a-uuid',
  'keep-me', 'Not A Slug', 'a_b-c', 'a--b', 'x'.repeat(256), 'y'.repeat(300), '#ABC', '#abcd', '#A1B2C3', '#a1b2c3d4', '#abcde', 'red',
  ' a, ,b ', 'a,b', '', ' ', 'ab,cd,ef', 'été, ça', 'a\tb',
  // texts
  'abc', 'Ünïcödé ✓', '😀'.repeat(5), 'line\nbreak', 'quote " and \\ backslash',
  // arrays and objects
  ['a', 'b'], ['a,b', 'c'], ['a', 1], [], [1, 2, 3], [' x ', ''], { a: 1 }, { b: [1, 2], a: 'x', aa: null, ä: true }, {},
  { key: 'va\nlue', nested: { z: 1e21, y: -0.5 } }, { type: 'Point', coordinates: [1, 2] }, { type: 'Point', coordinates: 'x' },
  { type: 'GeometryCollection', geometries: [] }, { type: 'Circle', coordinates: [] }, { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] },
  null,
];

const MAX_LENGTHS = [null, 3, 12];

describe('the conversion of a field type change', () => {
  it('gives the same value in TypeScript as in PostgreSQL for every stored value, type and length', async () => {
    const cases: { i: number; v: unknown; t: FieldType; m: number | null }[] = [];
    for (const type of FIELD_TYPES) {
      for (const maxLength of MAX_LENGTHS) {
        for (const value of CORPUS) cases.push({ i: cases.length, v: value, t: type, m: maxLength });
      }
    }
    const { rows } = await owner.query<{ i: number; converted: unknown }>(
      `SELECT r.i, svc_convert_field_value(r.v, r.t, r.m) AS converted
         FROM jsonb_to_recordset($1::jsonb) AS r(i integer, v jsonb, t text, m integer) ORDER BY r.i`,
      [JSON.stringify(cases)],
    );
    expect(rows).toHaveLength(cases.length);
    const mismatches = cases
      .map((entry) => ({ ...entry, sql: rows[entry.i]!.converted, ts: convertFieldValue(entry.v, entry.t, entry.m) }))
      // Keys in any order: jsonb orders an object's keys its own way.
      .filter((entry) => canonicalJson(entry.sql) !== canonicalJson(entry.ts))
      .map(({ v, t, m, sql, ts }) => `${JSON.stringify(v)} → ${t} (${m}): SQL ${JSON.stringify(sql)}, TS ${JSON.stringify(ts)}`);
    expect(mismatches).toEqual([]);
  });
});
