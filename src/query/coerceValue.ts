// Turns a filter value into the form its field is stored and compared in, or refuses it with the
// path of the offending key. Dates are normalised the way writers store them.
import { AppError } from '../../domain/shared/appError.ts';
import { unstorableTextReason } from '../../domain/shared/storableText.ts';
import { isDecimalText } from './compareValues.ts';
import type { ErrorPath, FilterTarget } from './types.ts';

const MAX_DECIMAL_LENGTH = 100;
const MAX_EXPONENT = 1000;
const MAX_JSON_DEPTH = 32;

export function invalidValue(message: string, path: ErrorPath): AppError {
  return new AppError('VALIDATION_FAILED', message, { path });
}

/** A non-null scalar in the target's comparison form (see FilterScalar). */
export function coerceScalar(value: unknown, target: FilterTarget, path: ErrorPath): string | boolean | number {
  const name = target.field.field;
  switch (target.kind) {
    case 'text':
      return coerceText(value, path, `Field "${name}" expects text`);
    case 'numeric':
      return coerceNumeric(value, path, name);
    case 'boolean':
      if (value === true || value === 'true') return true;
      if (value === false || value === 'false') return false;
      throw invalidValue(`Field "${name}" expects true or false`, path);
    case 'timestamptz':
      return normalizeDate(value, 'dateTime', path, name);
    case 'dateText':
      return normalizeDate(value, target.dateShape ?? 'dateTime', path, name);
    case 'json':
      return coerceJsonScalar(value, path);
  }
}

/** Text for text operators (contains, keys): numbers and booleans from the bracket form become their text. */
export function coerceText(value: unknown, path: ErrorPath, message = 'Expected text'): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') throw invalidValue(message, path);
  assertStorable(value, path);
  return value;
}

function coerceNumeric(value: unknown, path: ErrorPath, name: string): string {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : null;
  if (text === null || !isDecimalText(text) || text.length > MAX_DECIMAL_LENGTH || exponentOf(text) > MAX_EXPONENT) {
    throw invalidValue(`Field "${name}" expects a number`, path);
  }
  return text;
}

function exponentOf(text: string): number {
  const match = /[eE]([+-]?\d+)$/.exec(text);
  return match?.[1] ? Math.abs(Number(match[1])) : 0;
}

// Inside a JSON path the leaf's type is unknown, so values keep their JSON type; ranges need numbers or text.
function coerceJsonScalar(value: unknown, path: ErrorPath): string | number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string') {
    assertStorable(value, path);
    return value;
  }
  throw invalidValue('Comparing inside a JSON value needs a number or a string', path);
}

/** Checks a value can become jsonb (finite numbers, storable text, bounded depth). */
export function assertJsonValue(value: unknown, path: ErrorPath, depth = 0): void {
  if (depth > MAX_JSON_DEPTH) throw invalidValue('JSON value is nested too deeply', path);
  if (value === null || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalidValue('Numbers must be finite', path);
    return;
  }
  if (typeof value === 'string') return assertStorable(value, path);
  if (Array.isArray(value)) {
    for (const element of value) assertJsonValue(element, path, depth + 1);
    return;
  }
  if (isPlainObject(value)) {
    for (const [key, element] of Object.entries(value)) {
      assertStorable(key, path);
      assertJsonValue(element, path, depth + 1);
    }
    return;
  }
  throw invalidValue('Expected a JSON value', path);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

// What PostgreSQL's text and jsonb cannot hold is refused here, so that compiled SQL never fails on it.
function assertStorable(text: string, path: ErrorPath): void {
  const unstorable = unstorableTextReason(text);
  if (unstorable !== null) throw invalidValue(`Text ${unstorable}`, path);
}

const DATE_TIME_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;
const TIME_PATTERN = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/;

/** ISO-8601 UTC `YYYY-MM-DDTHH:mm:ss.sssZ`, `YYYY-MM-DD` or `HH:mm:ss`, as writers store them. */
export function normalizeDate(value: unknown, shape: 'dateTime' | 'date' | 'time', path: ErrorPath, name: string): string {
  const fail = () => invalidValue(`Field "${name}" expects an ISO-8601 ${shape === 'time' ? 'time' : 'date'}`, path);
  if (typeof value !== 'string') throw fail();
  const text = value.trim();
  if (shape === 'time') {
    const time = TIME_PATTERN.exec(text);
    if (time) {
      const [, hours = '', minutes = '', seconds = '00'] = time;
      if (Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 59) throw fail();
      return `${hours}:${minutes}:${seconds}`;
    }
  }
  const instant = parseInstant(text);
  if (instant === null) throw fail();
  const iso = instant.toISOString();
  if (shape === 'date') return iso.slice(0, 10);
  if (shape === 'time') return iso.slice(11, 19);
  return iso;
}

function parseInstant(text: string): Date | null {
  const match = DATE_TIME_PATTERN.exec(text);
  if (!match) return null;
  const [, year = '', month = '', day = '', hours = '0', minutes = '0', seconds = '0', fraction = '', zone = 'Z'] = match;
  const parts = [Number(year), Number(month), Number(day), Number(hours), Number(minutes), Number(seconds)] as const;
  const [y, mo, d, h, mi, s] = parts;
  const daysInMonth = new Date(Date.UTC(2000, mo, 0)).getUTCDate() - (mo === 2 && !isLeapYear(y) ? 1 : 0);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth || h > 23 || mi > 59 || s > 59) return null;
  const milliseconds = Number(fraction.slice(0, 3).padEnd(3, '0'));
  const utc = new Date(0);
  utc.setUTCFullYear(y, mo - 1, d);
  utc.setUTCHours(h, mi, s, milliseconds);
  const offset = zone.toUpperCase() === 'Z' ? 0 : zoneOffsetMinutes(zone);
  if (offset === null) return null;
  const instant = new Date(utc.getTime() - offset * 60_000);
  const year4 = instant.getUTCFullYear();
  return year4 < 0 || year4 > 9999 ? null : instant;
}

function zoneOffsetMinutes(zone: string): number | null {
  const match = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (!match) return null;
  const [, sign, hours = '', minutes = ''] = match;
  if (Number(hours) > 23 || Number(minutes) > 59) return null;
  return (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes));
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
