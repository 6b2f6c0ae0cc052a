// Reads an item body (create, PATCH or PUT) against the collection's fields: every value checked and
// normalised, unknown fields refused, read-only structural keys ignored, translations and hashes set
// apart. Errors carry the path of the offending key (`['body', 'title']`, bulk `['body', 3, 'title']`).
import { checkFieldValue, invalidValue, type ErrorPath } from './fieldValues.ts';
import { STRUCTURAL_KEY_SET, WRITABLE_STRUCTURAL_KEYS, type ContentField } from './schemaModel.ts';
import { MASKED, sealedIdOf } from '../privacy/sealedReference.ts';

export const ITEM_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
const LANGUAGE_SHAPE = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8}){0,4}$/;

/**
 * A language tag in its canonical form (`PT-br` → `pt-BR`, `iw` → `he`, as Intl.getCanonicalLocales
 * gives it), or null when it is not one. Header values and translation keys both go through it, so
 * `X-Svc-Locale: pt-br` reads what a `{ "pt-BR": … }` body wrote.
 */
export function canonicalLanguage(tag: string): string | null {
  if (!LANGUAGE_SHAPE.test(tag)) return null;
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    return null;
  }
}

const MAX_STATUS_LENGTH = 64;

export interface ItemInputContext {
  /** Declared fields of the collection (a declared `status` or `sort` gives the column its rules). */
  fields: ReadonlyMap<string, ContentField>;
  /** To-many alias fields of the collection: read-only here. */
  aliasFields: ReadonlySet<string>;
  mode: 'create' | 'patch' | 'replace';
  /** X-Svc-Locale: translatable fields take this language's value. */
  locale: string | null;
  /** The site's default language: a plain value for a translatable field without a locale is for it. */
  defaultLanguage: string;
  /** For PATCH/PUT: the item's id; a body `id` must match it. */
  itemId?: string;
}

export interface CheckedItemInput {
  /** A client-chosen id (create only). */
  id: string | null;
  /** Stored forms of `status`, `sort` and content fields given in the body. */
  values: Record<string, unknown>;
  /** Hash fields given in clear text: the caller hashes them and puts the hashes into `values`. */
  hashes: Record<string, string>;
  /** Hash and pii/phi fields sent back as their mask: the stored value is kept. */
  keepHashes: string[];
  /** Translatable fields: languages to set, merged into the stored `{ <lang>: value }` map. */
  translations: Record<string, Record<string, unknown>>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

export function isTranslatable(field: ContentField): boolean {
  return field.options.translatable === true;
}

export function checkItemInput(body: unknown, context: ItemInputContext, basePath: ErrorPath): CheckedItemInput {
  if (!isPlainObject(body)) throw invalidValue('An item must be a JSON object', basePath);
  const checked: CheckedItemInput = { id: null, values: {}, hashes: {}, keepHashes: [], translations: {} };
  for (const [key, value] of Object.entries(body)) {
    const path = [...basePath, key];
    if (key === 'id') {
      checked.id = checkId(value, context, path);
      continue;
    }
    if (STRUCTURAL_KEY_SET.has(key) && !WRITABLE_STRUCTURAL_KEYS.has(key)) continue;
    if (value === undefined) continue;
    const field = context.fields.get(key);
    if (key === 'status' || key === 'sort') {
      const stored = field ? storedValue(field, value, path, checked) : checkStructural(key, value, path);
      if (stored !== undefined) checked.values[key] = stored;
      continue;
    }
    if (context.aliasFields.has(key)) {
      throw invalidValue(`"${key}" is a to-many relation; write the related items instead`, path);
    }
    if (!field) throw invalidValue(`Unknown field "${key}"`, path);
    if (isTranslatable(field)) {
      checkTranslations(field, value, context, path, checked);
      continue;
    }
    const stored = storedValue(field, value, path, checked);
    if (stored !== undefined) checked.values[key] = stored;
  }
  checkRequired(checked, context, basePath);
  return checked;
}

function checkId(value: unknown, context: ItemInputContext, path: ErrorPath): string | null {
  if (context.mode !== 'create') {
    if (value !== undefined && value !== null && value !== context.itemId) throw invalidValue('The id of an item cannot change', path);
    return null;
  }
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !ITEM_ID_PATTERN.test(value)) {
    throw invalidValue('An item id is 1 to 128 letters, digits, - or _', path);
  }
  return value;
}

function checkStructural(key: 'status' | 'sort', value: unknown, path: ErrorPath): unknown {
  if (value === null) return null;
  if (key === 'status') {
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_STATUS_LENGTH || value.includes('\u0000')) {
      throw invalidValue(`"status" expects text of 1 to ${MAX_STATUS_LENGTH} characters`, path);
    }
    return value;
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < -2_147_483_648 || value > 2_147_483_647) {
    throw invalidValue('"sort" expects a 32-bit integer', path);
  }
  return value;
}

/** The stored form of a value, or undefined for hash fields (their clear text goes to `hashes`) and for a hash or pii/phi field's mask (to `keepHashes`). */
function storedValue(field: ContentField, value: unknown, path: ErrorPath, checked: CheckedItemInput): unknown {
  // A pii/phi field sent back as the mask its reader saw keeps its stored value.
  if (field.sensitivity && value === MASKED) {
    checked.keepHashes.push(field.field);
    return undefined;
  }
  // A sealed value's reference (a revert, a promotion, a release bringing back an earlier value) is
  // stored as it is: the event sealer accepts it only if the record's field holds it.
  if (field.sensitivity && sealedIdOf(value) !== null) return value;
  const result = checkFieldValue(field, value, path);
  if ('hashClearText' in result) {
    checked.hashes[field.field] = result.hashClearText;
    return undefined;
  }
  if ('keepHash' in result) {
    checked.keepHashes.push(field.field);
    return undefined;
  }
  return result.value;
}

function checkTranslations(field: ContentField, value: unknown, context: ItemInputContext, path: ErrorPath, checked: CheckedItemInput): void {
  const plain = (raw: unknown, at: ErrorPath) => {
    const result = checkFieldValue(field, raw, at);
    return 'value' in result ? result.value : null;
  };
  if (context.locale !== null) {
    checked.translations[field.field] = { [context.locale]: plain(value, path) };
    return;
  }
  if (value === null) {
    checked.values[field.field] = null;
    return;
  }
  // Without a locale: a map { <lang>: value } replaces the languages it names, a plain value is the
  // default language's (a JSON field's value is always read as the map).
  if (isPlainObject(value) && (field.type === 'json' || Object.keys(value).every((key) => canonicalLanguage(key) !== null))) {
    const languages: Record<string, unknown> = {};
    for (const [key, translated] of Object.entries(value)) {
      const language = canonicalLanguage(key);
      if (language === null) throw invalidValue(`"${key}" is not a language code`, [...path, key]);
      languages[language] = plain(translated, [...path, key]);
    }
    checked.translations[field.field] = languages;
    return;
  }
  checked.translations[field.field] = { [context.defaultLanguage]: plain(value, path) };
}

function checkRequired(checked: CheckedItemInput, context: ItemInputContext, basePath: ErrorPath): void {
  for (const field of context.fields.values()) {
    if (!field.required) continue;
    const name = field.field;
    const given =
      (checked.values[name] !== undefined && checked.values[name] !== null) ||
      name in checked.hashes ||
      (context.mode === 'replace' && checked.keepHashes.includes(name)) ||
      (name in checked.translations && Object.values(checked.translations[name]!).some((value) => value !== null));
    if (context.mode === 'patch') {
      if (name in checked.values && checked.values[name] === null && !(name in checked.hashes)) {
        throw invalidValue(`Field "${name}" is required`, [...basePath, name]);
      }
      continue;
    }
    if (!given) throw invalidValue(`Field "${name}" is required`, [...basePath, name]);
  }
}
