// Changing a field's type (docs/content.md "Changing a field's type"). The values items hold are
// converted by the read models when they fold the change (`field.updated` with `typeChange`): each
// value becomes the new type's value when it parses exactly, else null. The read models convert with
// the SQL function svc_convert_field_value (infra/postgres/functions/), set-based; an item loaded from
// its stream for a write is converted here by convertFieldValue, the same table in TypeScript (a
// parity test runs both over one corpus). This file also holds the rules that decide whether a
// change may run at all. Pure: what the database knows arrives as arguments.
import type { ContentField, FieldType } from './schemaModel.ts';

/** What the `field.updated` event of a type change carries beside the new definition. */
export interface TypeChange {
  from: FieldType;
  to: FieldType;
}

/** Why a type change is refused even with allowDestructive=true (409 CONFLICT, `extensions.reason`). */
export type TypeChangeRefusalReason = 'hash' | 'files' | 'sensitive' | 'translatable' | 'relation' | 'index';

export interface TypeChangeRefusal {
  reason: TypeChangeRefusalReason;
  message: string;
}

/** Types whose values cannot be converted to or from: a hash keeps no clear text, file ids point at registered files. */
const UNCONVERTIBLE: ReadonlySet<FieldType> = new Set(['hash', 'files']);

/** What the database says about the field before its type changes. */
export interface TypeChangeFacts {
  /** A relation stores item ids in the field. */
  storesRelationIds: boolean;
  /**
   * Kinds of the expression indexes the field has or had (`item_field_indexes`, any state). An index
   * of kind `numeric` or `boolean` casts every value it holds: a value of the new type could fail it.
   */
  indexKinds: readonly string[];
  /** The index kind the new definition asks for (projections/schemaProjection.ts indexKindOf). */
  nextIndexKind: string;
}

/** Index kinds whose expression casts the stored text (and so can fail on a value of another type). */
const CASTING_INDEX_KINDS: ReadonlySet<string> = new Set(['numeric', 'boolean']);

/** The refusal of a change from `current` to `next` (whose types differ), or null when its values can be converted. */
export function typeChangeRefusal(current: ContentField, next: ContentField, facts: TypeChangeFacts): TypeChangeRefusal | null {
  const change = `"${current.field}" cannot change from ${current.type} to ${next.type}`;
  for (const type of [current.type, next.type]) {
    if (UNCONVERTIBLE.has(type)) {
      const why = type === 'hash' ? 'a hash keeps no clear text to convert' : 'file ids point at registered files';
      return { reason: type === 'hash' ? 'hash' : 'files', message: `${change}: ${why}` };
    }
  }
  if (current.sensitivity || next.sensitivity) {
    return { reason: 'sensitive', message: `${change}: pii/phi values are sealed away (docs/privacy.md) and cannot be converted` };
  }
  if (current.options.translatable === true || next.options.translatable === true) {
    return { reason: 'translatable', message: `${change}: a translatable field's values are maps of languages` };
  }
  if (facts.storesRelationIds) {
    return { reason: 'relation', message: `${change}: it holds the item ids of a relation` };
  }
  const casting = facts.indexKinds.find((kind) => CASTING_INDEX_KINDS.has(kind) && kind !== facts.nextIndexKind);
  if (casting) {
    return {
      reason: 'index',
      message: `${change} while its ${casting} index exists: set indexed to false, wait until GET /fields/:collection/:field shows no index, then change the type`,
    };
  }
  // A new index that casts would be built over the rows' old versions too (PostgreSQL indexes the
  // versions a transaction may still see), and a text that was nulled would fail its build.
  if (next.indexed && CASTING_INDEX_KINDS.has(facts.nextIndexKind) && !facts.indexKinds.includes(facts.nextIndexKind)) {
    return { reason: 'index', message: `${change} and be indexed at once: change the type with indexed false, then index the field` };
  }
  return null;
}

/** The longest text the converted values may be (`string` fields default to 255, as writes do); null: no limit. */
export function conversionMaxLength(field: ContentField): number | null {
  return typeof field.options.maxLength === 'number' ? field.options.maxLength : null;
}

/** How many values a type change converts and how many it sets to null. */
export interface ConversionCounts {
  converted: number;
  nulled: number;
}

/** One type change to apply to an item's values: what the `field.updated` event of the change says. */
export interface FieldConversion {
  field: string;
  to: FieldType;
  /** conversionMaxLength of the field's new definition. */
  maxLength: number | null;
}

/** The conversion a `field.updated` event with `typeChange` asks for. */
export function conversionOf(field: ContentField): FieldConversion {
  return { field: field.field, to: field.type, maxLength: conversionMaxLength(field) };
}

/**
 * The values of `body` after the type changes, in order, as the read models converted them: a field
 * that holds a value other than null gets its converted value, or null. Other keys are kept as they are.
 */
export function convertBody<Body extends Record<string, unknown>>(body: Body, conversions: readonly FieldConversion[]): Body {
  let converted = body;
  for (const { field, to, maxLength } of conversions) {
    const value = converted[field];
    if (value === null || value === undefined) continue;
    converted = { ...converted, [field]: convertFieldValue(value, to, maxLength) };
  }
  return converted;
}

// ---------- the conversion table (the twin of svc_convert_field_value; keep them in step) ----------

const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const FLOAT_MAX_DIGITS = '17976931348623157';
const GEOMETRY_TYPES = new Set(['Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon']);

/** PostgreSQL's btrim(text): spaces only (String.prototype.trim also takes tabs and newlines). */
function trimSpaces(text: string): string {
  return text.replace(/^ +| +$/g, '');
}

/** The text PostgreSQL's numeric gives for a JSON number (never an exponent: 1e21 is 1 and 21 zeros). */
function numericText(value: number): string {
  const text = String(value === 0 ? 0 : value);
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** PostgreSQL's text of a jsonb value: keys by length then bytes, `": "` and `", "` between. */
function jsonbText(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return numericText(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return jsonbString(value);
  if (Array.isArray(value)) return `[${value.map(jsonbText).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => compareJsonbKeys(a, b));
  return `{${entries.map(([key, element]) => `${jsonbString(key)}: ${jsonbText(element)}`).join(', ')}}`;
}

function compareJsonbKeys(a: string, b: string): number {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length !== right.length ? left.length - right.length : Buffer.compare(left, right);
}

const JSON_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function jsonbString(text: string): string {
  const escaped = text.replace(/["\\\u0000-\u001f]/g, (char) => JSON_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `"${escaped}"`;
}

function characters(text: string): number {
  return [...text].length;
}

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

/** Whether a decimal text (digits, an optional fraction and exponent) is beyond the largest double, as numeric compares it. */
function beyondDouble(text: string): boolean {
  const [, whole = '', fraction = '', exponent = '0'] = /^[+-]?([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/.exec(text) ?? [];
  const digits = whole + fraction;
  const significant = digits.replace(/^0+/, '').replace(/0+$/, '');
  if (significant === '') return false;
  // The value is 0.<significant digits> × 10^magnitude; the largest double is 0.17976931348623157 × 10^309.
  const magnitude = whole.length - (digits.length - digits.replace(/^0+/, '').length) + Number(exponent);
  if (magnitude !== 309) return magnitude > 309;
  const length = Math.max(significant.length, FLOAT_MAX_DIGITS.length);
  return significant.padEnd(length, '0') > FLOAT_MAX_DIGITS.padEnd(length, '0');
}

function toText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return numericText(value);
  if (typeof value === 'boolean') return String(value);
  return null;
}

function twoDigits(value: number): string {
  return String(value).padStart(2, '0');
}

const DATE_TIME = /^([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(?:[T ]([01][0-9]|2[0-3]):([0-5][0-9])(?::([0-5][0-9])(?:\.([0-9]{1,9}))?)?(Z|[+-](?:[01][0-9]|2[0-3]):?[0-5][0-9])?)?$/i;

function convertDateTime(text: string): string | null {
  const match = DATE_TIME.exec(text);
  if (!match) return null;
  const [, y = '', mo = '', d = '', h = '0', mi = '0', s = '0', fraction = '', zone = 'Z'] = match;
  const [year, month, day] = [Number(y), Number(mo), Number(d)];
  if (year < 1 || day > daysInMonth(year, month)) return null;
  let offset = 0;
  if (zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    offset = (zone.startsWith('-') ? -1 : 1) * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
  }
  const instant = new Date(0);
  instant.setUTCFullYear(year, month - 1, day);
  instant.setUTCHours(Number(h), Number(mi), Number(s), Number(fraction.slice(0, 3).padEnd(3, '0')));
  const utc = new Date(instant.getTime() - offset * 60_000);
  const date = `${String(utc.getUTCFullYear()).padStart(4, '0')}-${twoDigits(utc.getUTCMonth() + 1)}-${twoDigits(utc.getUTCDate())}`;
  const time = `${twoDigits(utc.getUTCHours())}:${twoDigits(utc.getUTCMinutes())}:${twoDigits(utc.getUTCSeconds())}`;
  return `${date}T${time}.${String(utc.getUTCMilliseconds()).padStart(3, '0')}Z`;
}

function convertCsv(value: unknown, maxLength: number | null): string | null {
  let parts: string[];
  if (typeof value === 'string') parts = value.split(',');
  else if (Array.isArray(value) && value.every((part) => typeof part === 'string' && !part.includes(','))) parts = value as string[];
  else return null;
  const text = parts.map(trimSpaces).filter((part) => part !== '').join(',');
  return maxLength !== null && maxLength < characters(text) ? null : text;
}

/**
 * A stored value as a field of type `to` stores it when it parses exactly, else null: the table of
 * docs/content.md "Changing a field's type", exactly as svc_convert_field_value applies it (null
 * stays null; hash and files are never converted to).
 */
export function convertFieldValue(value: unknown, to: FieldType, maxLength: number | null): unknown {
  if (value === null || value === undefined) return value ?? null;
  const kind = Array.isArray(value) ? 'array' : typeof value;
  const text = toText(value);
  switch (to) {
    case 'json':
      return value;
    case 'string':
    case 'text':
    case 'code': {
      const asText = kind === 'object' || kind === 'array' ? jsonbText(value) : text;
      if (asText === null) return null;
      const limit = maxLength ?? (to === 'string' ? 255 : null);
      return limit !== null && limit < characters(asText) ? null : asText;
    }
    case 'integer':
    case 'bigInteger': {
      let digits: string;
      if (typeof value === 'number') {
        if (!Number.isInteger(value)) return null;
        digits = numericText(value);
      } else if (typeof value === 'string' && /^[+-]?[0-9]+$/.test(trimSpaces(value))) {
        digits = trimSpaces(value);
      } else {
        return null;
      }
      const whole = BigInt(digits);
      if (to === 'integer') return whole < BigInt(INT32_MIN) || whole > BigInt(INT32_MAX) ? null : Number(whole);
      return whole < INT64_MIN || whole > INT64_MAX ? null : whole.toString();
    }
    case 'float': {
      if (typeof value === 'number') return value === 0 ? 0 : value;
      if (typeof value !== 'string') return null;
      const trimmed = trimSpaces(value);
      if (!/^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]{1,3})?$/.test(trimmed) || beyondDouble(trimmed)) return null;
      const number = Number(trimmed);
      return number === 0 ? 0 : number;
    }
    case 'decimal': {
      if (typeof value === 'number') return numericText(value);
      if (typeof value !== 'string') return null;
      const match = /^([+-]?)([0-9]+)(?:\.([0-9]+))?$/.exec(trimSpaces(value));
      if (!match) return null;
      const [, sign = '', whole = '', fraction] = match;
      const digits = whole.replace(/^0+(?=[0-9])/, '');
      const negative = sign === '-' && /[1-9]/.test(whole + (fraction ?? ''));
      return `${negative ? '-' : ''}${digits}${fraction === undefined ? '' : `.${fraction}`}`;
    }
    case 'boolean': {
      if (typeof value === 'boolean') return value;
      const lowered = typeof value === 'string' ? trimSpaces(value).toLowerCase() : null;
      return lowered === 'true' ? true : lowered === 'false' ? false : null;
    }
    case 'date': {
      if (typeof value !== 'string') return null;
      const trimmed = trimSpaces(value);
      const match = /^([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/.exec(trimmed);
      if (!match) return null;
      const year = Number(match[1]);
      return year >= 1 && Number(match[3]) <= daysInMonth(year, Number(match[2])) ? trimmed : null;
    }
    case 'dateTime':
    case 'timestamp':
      return typeof value === 'string' ? convertDateTime(trimSpaces(value)) : null;
    case 'time': {
      if (typeof value !== 'string') return null;
      const trimmed = trimSpaces(value);
      if (!/^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,9})?)?$/.test(trimmed)) return null;
      return `${trimmed.slice(0, 5)}:${trimmed.slice(6, 8) || '00'}`;
    }
    case 'uuid':
      return typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value) ? value.toLowerCase() : null;
    case 'slug':
      return typeof value === 'string' && /^[a-z0-9]+([-_][a-z0-9]+)*$/.test(value) && (maxLength ?? 255) >= characters(value) ? value : null;
    case 'color':
      return typeof value === 'string' && /^#([0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i.test(value) ? value.toLowerCase() : null;
    case 'csv':
      return convertCsv(value, maxLength);
    case 'geometry': {
      if (kind !== 'object') return null;
      const geometry = value as { type?: unknown; coordinates?: unknown; geometries?: unknown };
      if (typeof geometry.type === 'string' && GEOMETRY_TYPES.has(geometry.type) && Array.isArray(geometry.coordinates)) return value;
      if (geometry.type === 'GeometryCollection' && Array.isArray(geometry.geometries)) return value;
      return null;
    }
    case 'hash':
    case 'files':
      return null;
  }
}
