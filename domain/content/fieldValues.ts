// Checks one value against its field's type and options, and returns it in its stored form:
// dates normalised to UTC ISO text, big integers and decimals as decimal strings, colours and uuids
// lower-cased, csv as "a,b,c". Pure: hashing of `hash` fields happens outside (it is costly I/O-like work).
import { AppError } from '../shared/appError.ts';
import { unstorableTextReason } from '../shared/storableText.ts';
import { isUuid } from '../shared/uuid.ts';
import type { ContentField, FieldType } from './schemaModel.ts';

export type ErrorPath = (string | number)[];

/** What reads show for a stored hash: the clear text never leaves the service. Sent back in a write, it keeps the stored hash. */
export const HASH_MASK = '**********';

const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const DEFAULT_STRING_LENGTH = 255;
const MAX_HASH_INPUT = 1024;

const SLUG_PATTERN = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;
const COLOR_PATTERN = /^#(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const DECIMAL_PATTERN = /^[+-]?(\d+)(?:\.(\d+))?$/;
const BIG_INTEGER_PATTERN = /^[+-]?\d+$/;
const DATE_TIME_PATTERN = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME_PATTERN = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?$/;
const FILE_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
/** An argon2 PHC string, as stored for hash fields (and carried by snapshots a revert replays). */
const ARGON2_PATTERN = /^\$argon2(?:id|i|d)\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;
const MAX_JSON_DEPTH = 32;

export function invalidValue(message: string, path: ErrorPath): AppError {
  return new AppError('VALIDATION_FAILED', message, { path });
}

/** A value to store, or a clear text the caller must hash before storing (hash fields). */
export type CheckedValue = { value: unknown } | { hashClearText: string } | { keepHash: true };

/** Checks a non-translated value of `field`. null is always accepted here (required is checked on the whole item). */
export function checkFieldValue(field: ContentField, value: unknown, path: ErrorPath): CheckedValue {
  if (value === null) return { value: null };
  if (field.type === 'hash') {
    if (typeof value !== 'string' || value.length === 0) throw invalidValue(`Field "${field.field}" expects a non-empty string`, path);
    if (value === HASH_MASK) return { keepHash: true };
    if (ARGON2_PATTERN.test(value)) return { value };
    if (value.length > MAX_HASH_INPUT) throw invalidValue(`Field "${field.field}" accepts at most ${MAX_HASH_INPUT} characters`, path);
    return { hashClearText: value };
  }
  const normalized = normalizeValue(field.type, field, value, path);
  checkChoices(field, normalized, path);
  return { value: normalized };
}

function normalizeValue(type: FieldType, field: ContentField, value: unknown, path: ErrorPath): unknown {
  const name = field.field;
  switch (type) {
    case 'boolean':
      if (typeof value !== 'boolean') throw invalidValue(`Field "${name}" expects true or false`, path);
      return value;
    case 'integer': {
      if (typeof value !== 'number' || !Number.isInteger(value)) throw invalidValue(`Field "${name}" expects an integer`, path);
      if (value < INT32_MIN || value > INT32_MAX) throw invalidValue(`Field "${name}" expects a 32-bit integer`, path);
      checkRange(field, value, path);
      return value;
    }
    case 'float': {
      if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidValue(`Field "${name}" expects a number`, path);
      checkRange(field, value, path);
      return value;
    }
    case 'bigInteger':
      return normalizeBigInteger(field, value, path);
    case 'decimal':
      return normalizeDecimal(field, value, path);
    case 'dateTime':
    case 'timestamp':
      return normalizeDateTime(name, value, path);
    case 'date':
      return normalizeDate(name, value, path);
    case 'time':
      return normalizeTime(name, value, path);
    case 'uuid':
      if (!isUuid(value)) throw invalidValue(`Field "${name}" expects a UUID`, path);
      return value.toLowerCase();
    case 'slug': {
      const text = checkText(field, value, path);
      if (!SLUG_PATTERN.test(text)) throw invalidValue(`Field "${name}" expects a slug: lowercase letters and digits separated by - or _`, path);
      return text;
    }
    case 'color':
      if (typeof value !== 'string' || !COLOR_PATTERN.test(value)) throw invalidValue(`Field "${name}" expects a hex colour such as #1a2b3c`, path);
      return value.toLowerCase();
    case 'csv':
      return normalizeCsv(field, value, path);
    case 'string':
    case 'text':
    case 'code':
      return checkText(field, value, path);
    case 'json':
      checkJson(value, path, 0);
      return value;
    case 'geometry':
      checkGeometry(value, path, name);
      return value;
    case 'files':
      return normalizeFiles(name, value, path);
    case 'hash':
      throw new Error('hash fields are checked by checkFieldValue');
  }
}

function checkText(field: ContentField, value: unknown, path: ErrorPath): string {
  if (typeof value !== 'string') throw invalidValue(`Field "${field.field}" expects text`, path);
  const unstorable = unstorableTextReason(value);
  if (unstorable !== null) throw invalidValue(`Field "${field.field}" ${unstorable}`, path);
  const maxLength = typeof field.options.maxLength === 'number' ? field.options.maxLength : field.type === 'string' ? DEFAULT_STRING_LENGTH : null;
  if (maxLength !== null && [...value].length > maxLength) {
    throw invalidValue(`Field "${field.field}" accepts at most ${maxLength} characters`, path);
  }
  return value;
}

function checkRange(field: ContentField, value: number | bigint, path: ErrorPath): void {
  const { min, max } = field.options;
  if (typeof min === 'number' && value < min) throw invalidValue(`Field "${field.field}" must be at least ${min}`, path);
  if (typeof max === 'number' && value > max) throw invalidValue(`Field "${field.field}" must be at most ${max}`, path);
}

function normalizeBigInteger(field: ContentField, value: unknown, path: ErrorPath): string {
  const fail = () => invalidValue(`Field "${field.field}" expects a 64-bit integer as a decimal string`, path);
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw fail();
    text = String(value);
  } else if (typeof value === 'string' && BIG_INTEGER_PATTERN.test(value.trim())) {
    text = value.trim();
  } else {
    throw fail();
  }
  const parsed = BigInt(text);
  if (parsed < INT64_MIN || parsed > INT64_MAX) throw fail();
  checkRange(field, parsed, path);
  return parsed.toString();
}

function normalizeDecimal(field: ContentField, value: unknown, path: ErrorPath): string {
  const fail = (detail = 'a decimal number') => invalidValue(`Field "${field.field}" expects ${detail}`, path);
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw fail();
    text = String(value);
    if (/e/i.test(text)) throw fail('a decimal number without exponent; send it as a string');
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    throw fail();
  }
  const match = DECIMAL_PATTERN.exec(text);
  if (!match) throw fail();
  const whole = (match[1] ?? '').replace(/^0+(?=\d)/, '');
  const fraction = match[2] ?? '';
  const { precision, scale } = field.options;
  if (typeof scale === 'number' && fraction.length > scale) throw fail(`at most ${scale} decimal places`);
  if (typeof precision === 'number') {
    const digits = whole.replace(/^0+/, '').length + (typeof scale === 'number' ? scale : fraction.length);
    if (digits > precision) throw fail(`at most ${precision} significant digits`);
  }
  const negative = text.startsWith('-') && /[1-9]/.test(whole + fraction);
  const normalized = `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
  const numeric = Number(normalized);
  if (typeof field.options.min === 'number' && numeric < field.options.min) throw fail(`a value of at least ${field.options.min}`);
  if (typeof field.options.max === 'number' && numeric > field.options.max) throw fail(`a value of at most ${field.options.max}`);
  return normalized;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function validCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const days = [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day <= days;
}

/** ISO 8601 date-time (offset optional, UTC assumed) → `YYYY-MM-DDTHH:mm:ss.sssZ` in UTC. */
function normalizeDateTime(name: string, value: unknown, path: ErrorPath): string {
  const fail = () => invalidValue(`Field "${name}" expects an ISO 8601 date-time such as 2024-05-01T12:00:00Z`, path);
  if (typeof value !== 'string') throw fail();
  const match = DATE_TIME_PATTERN.exec(value.trim());
  if (!match) throw fail();
  const [, y = '', mo = '', d = '', h = '0', mi = '0', s = '0', fraction = '', zone = 'Z'] = match;
  const [year, month, day, hours, minutes, seconds] = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  if (!validCalendarDate(year, month, day) || hours > 23 || minutes > 59 || seconds > 59) throw fail();
  let offsetMinutes = 0;
  if (zone.toUpperCase() !== 'Z') {
    const zoneMatch = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
    if (!zoneMatch || Number(zoneMatch[2]) > 23 || Number(zoneMatch[3]) > 59) throw fail();
    offsetMinutes = (zoneMatch[1] === '-' ? -1 : 1) * (Number(zoneMatch[2]) * 60 + Number(zoneMatch[3]));
  }
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hours, minutes, seconds, Number(fraction.slice(0, 3).padEnd(3, '0')));
  const instant = new Date(utc.getTime() - offsetMinutes * 60_000);
  const instantYear = instant.getUTCFullYear();
  if (instantYear < 0 || instantYear > 9999) throw fail();
  return instant.toISOString();
}

function normalizeDate(name: string, value: unknown, path: ErrorPath): string {
  const fail = () => invalidValue(`Field "${name}" expects an ISO 8601 date such as 2024-05-01`, path);
  if (typeof value !== 'string') throw fail();
  const match = DATE_PATTERN.exec(value.trim());
  if (!match || !validCalendarDate(Number(match[1]), Number(match[2]), Number(match[3]))) throw fail();
  return value.trim();
}

function normalizeTime(name: string, value: unknown, path: ErrorPath): string {
  const fail = () => invalidValue(`Field "${name}" expects an ISO 8601 time such as 14:30:00`, path);
  if (typeof value !== 'string') throw fail();
  const match = TIME_PATTERN.exec(value.trim());
  if (!match) throw fail();
  const [, hours = '', minutes = '', seconds = '00'] = match;
  if (Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 59) throw fail();
  return `${hours}:${minutes}:${seconds}`;
}

function normalizeCsv(field: ContentField, value: unknown, path: ErrorPath): string {
  let parts: string[];
  if (typeof value === 'string') {
    parts = value.split(',').map((part) => part.trim());
  } else if (Array.isArray(value) && value.every((part) => typeof part === 'string')) {
    if (value.some((part) => part.includes(','))) throw invalidValue(`Values of the csv field "${field.field}" must not contain commas`, path);
    parts = value.map((part) => part.trim());
  } else {
    throw invalidValue(`Field "${field.field}" expects comma-separated text or an array of strings`, path);
  }
  return checkText(field, parts.filter((part) => part !== '').join(','), path);
}

function normalizeFiles(name: string, value: unknown, path: ErrorPath): string[] {
  if (!Array.isArray(value)) throw invalidValue(`Field "${name}" expects an array of file ids`, path);
  value.forEach((id, index) => {
    if (typeof id !== 'string' || !FILE_ID_PATTERN.test(id)) throw invalidValue(`Field "${name}" expects file ids (letters, digits, - and _)`, [...path, index]);
  });
  if (new Set(value).size !== value.length) throw invalidValue(`Field "${name}" lists a file twice`, path);
  return value as string[];
}

function checkJson(value: unknown, path: ErrorPath, depth: number): void {
  if (depth > MAX_JSON_DEPTH) throw invalidValue('JSON value is nested too deeply', path);
  if (value === null || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalidValue('Numbers must be finite', path);
    return;
  }
  if (typeof value === 'string') {
    const unstorable = unstorableTextReason(value);
    if (unstorable !== null) throw invalidValue(`Text ${unstorable}`, path);
    return;
  }
  if (Array.isArray(value)) {
    for (const element of value) checkJson(element, path, depth + 1);
    return;
  }
  if (typeof value === 'object') {
    for (const [key, element] of Object.entries(value)) {
      const unstorable = unstorableTextReason(key);
      if (unstorable !== null) throw invalidValue(`Keys ${unstorable}`, path);
      checkJson(element, path, depth + 1);
    }
    return;
  }
  throw invalidValue('Expected a JSON value', path);
}

const GEOMETRY_TYPES = new Set(['Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon', 'GeometryCollection']);

/** A GeoJSON geometry (RFC 7946 §3.1): its type and the nesting and size of its coordinates. */
function checkGeometry(value: unknown, path: ErrorPath, name: string, depth = 0): void {
  const fail = (detail: string) => invalidValue(`Field "${name}" expects a GeoJSON geometry: ${detail}`, path);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw fail('an object with type and coordinates');
  const geometry = value as { type?: unknown; coordinates?: unknown; geometries?: unknown };
  if (typeof geometry.type !== 'string' || !GEOMETRY_TYPES.has(geometry.type)) throw fail(`unknown type ${String(geometry.type)}`);
  checkJson(value, path, 0);
  if (geometry.type === 'GeometryCollection') {
    if (!Array.isArray(geometry.geometries) || depth > 4) throw fail('a GeometryCollection needs geometries');
    for (const member of geometry.geometries) checkGeometry(member, path, name, depth + 1);
    return;
  }
  const coordinates = geometry.coordinates;
  const isPosition = (position: unknown) =>
    Array.isArray(position) && position.length >= 2 && position.length <= 3 && position.every((n) => typeof n === 'number' && Number.isFinite(n));
  const positions = (list: unknown, min: number) => Array.isArray(list) && list.length >= min && list.every(isPosition);
  const ring = (list: unknown) => {
    if (!positions(list, 4)) return false;
    const points = list as number[][];
    const first = points[0]!;
    const last = points.at(-1)!;
    return first.length === last.length && first.every((n, index) => n === last[index]);
  };
  const ok = (() => {
    switch (geometry.type) {
      case 'Point':
        return isPosition(coordinates);
      case 'MultiPoint':
        return positions(coordinates, 0);
      case 'LineString':
        return positions(coordinates, 2);
      case 'MultiLineString':
        return Array.isArray(coordinates) && coordinates.every((line) => positions(line, 2));
      case 'Polygon':
        return Array.isArray(coordinates) && coordinates.length >= 1 && coordinates.every(ring);
      case 'MultiPolygon':
        return Array.isArray(coordinates) && coordinates.every((polygon) => Array.isArray(polygon) && polygon.length >= 1 && polygon.every(ring));
      default:
        return false;
    }
  })();
  if (!ok) throw fail(`invalid coordinates for a ${geometry.type}`);
}

function checkChoices(field: ContentField, value: unknown, path: ErrorPath): void {
  const choices = field.options.choices;
  if (!Array.isArray(choices) || value === null) return;
  const allowed = choices.map((choice) => (typeof choice === 'object' && choice !== null ? (choice as { value: unknown }).value : choice));
  if (!allowed.some((choice) => choice === value)) {
    throw invalidValue(`Field "${field.field}" must be one of ${allowed.map((choice) => JSON.stringify(choice)).join(', ')}`, path);
  }
}
