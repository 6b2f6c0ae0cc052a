// Evaluates a filter against an item in memory with the same semantics as the compiled SQL
// (used by realtime subscription filters and to check the compiler in tests).
import { compareCodePoints, compareNumeric, isDecimalText } from './compareValues.ts';
import { jsonContains, jsonEquals, jsonHasKey, jsonPathGet } from './jsonValues.ts';
import { resolveFilter, type FilterContext } from './resolveFilter.ts';
import type { ConditionNode, FilterNode, FilterScalar, FilterTarget, FilterTree, ItemRecord } from './types.ts';

export interface EvaluateFilterContext extends FilterContext {
  /**
   * Items of a related collection, for relational filters: same site, in API form. Items whose
   * `deletedAt` is set are skipped, like the SQL does.
   */
  relatedItems?: (collection: string) => Iterable<ItemRecord>;
}

type RelatedItems = EvaluateFilterContext['relatedItems'];

export function evaluateFilter(filter: FilterTree | null | undefined, item: ItemRecord, context: EvaluateFilterContext): boolean {
  return evaluateFilterNode(resolveFilter(filter, context), item, context.relatedItems);
}

/** Evaluates an already validated filter (see resolveFilter); validate once, evaluate many items. */
export function evaluateFilterNode(node: FilterNode, item: ItemRecord, relatedItems?: RelatedItems): boolean {
  switch (node.kind) {
    case 'constant':
      return node.value;
    case 'and':
      return node.children.every((child) => evaluateFilterNode(child, item, relatedItems));
    case 'or':
      return node.children.some((child) => evaluateFilterNode(child, item, relatedItems));
    case 'relation': {
      if (!relatedItems) throw new Error('Evaluating a relational filter needs relatedItems');
      const candidates = [...relatedItems(node.collection)].filter((related) => related.deletedAt == null);
      if (node.direction === 'toOne') {
        const relatedId = textOf(item[node.field.field]);
        if (relatedId === null) return false;
        return candidates.some((related) => textOf(related.id) === relatedId && evaluateFilterNode(node.child, related, relatedItems));
      }
      const ownId = textOf(item.id);
      return candidates.some(
        (related) => textOf(related[node.relatedField ?? '']) === ownId && ownId !== null && evaluateFilterNode(node.child, related, relatedItems),
      );
    }
    default:
      return evaluateCondition(node, item);
  }
}

function evaluateCondition(node: ConditionNode, item: ItemRecord): boolean {
  const { target } = node;
  const value = readValue(item, target);
  switch (node.kind) {
    case 'isNull':
      return (value === null) === node.isNull;
    case 'compare': {
      if (node.operator === '_neq') return value === null || !equals(value, node.value, target);
      if (value === null) return false;
      if (node.operator === '_eq') return equals(value, node.value, target);
      const order = compare(value, node.value, target);
      if (order === null) return false;
      return { _lt: order < 0, _lte: order <= 0, _gt: order > 0, _gte: order >= 0 }[node.operator];
    }
    case 'in': {
      if (value === null) return node.negated ? !node.includesNull : node.includesNull;
      const found = node.values.some((candidate) => equals(value, candidate, target));
      return node.negated ? !found : found;
    }
    case 'between': {
      if (value === null) return false;
      const low = compare(value, node.low, target);
      const high = compare(value, node.high, target);
      return low !== null && high !== null && low >= 0 && high <= 0;
    }
    case 'like': {
      if (typeof value !== 'string') return false;
      if (node.mode === 'startsWith') return value.startsWith(node.value);
      if (node.mode === 'endsWith') return value.endsWith(node.value);
      if (node.mode === 'icontains') return value.toLowerCase().includes(node.value.toLowerCase());
      return value.includes(node.value);
    }
    case 'jsonContains':
      return value !== null && jsonContains(value, node.value);
    case 'hasKeys': {
      if (value === null) return false;
      if (node.mode === 'all') return node.keys.every((key) => jsonHasKey(value, key));
      return node.keys.some((key) => jsonHasKey(value, key));
    }
  }
}

/** The item's value in the form the SQL compares it in; null where SQL sees NULL (or JSON null). */
/** A translatable field's value in the first of `languages` that has one (as the SQL's COALESCE). */
function translated(stored: unknown, languages: readonly string[]): unknown {
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return undefined;
  const byLanguage = stored as Record<string, unknown>;
  for (const language of languages) {
    const value = Object.hasOwn(byLanguage, language) ? byLanguage[language] : undefined;
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

function readValue(item: ItemRecord, target: FilterTarget): unknown {
  const own = Object.hasOwn(item, target.field.field) ? item[target.field.field] : undefined;
  const stored = target.field.languages ? translated(own, target.field.languages) : own;
  if (target.jsonPath) return jsonPathGet(stored, target.jsonPath) ?? null;
  switch (target.kind) {
    case 'json':
      return stored ?? null;
    case 'numeric': {
      const text = textOf(stored);
      return text !== null && isDecimalText(text) ? text : null;
    }
    case 'boolean':
      return stored === true || stored === 'true' ? true : stored === false || stored === 'false' ? false : null;
    case 'timestamptz':
      return timeOf(stored);
    case 'dateText':
      return stored instanceof Date ? stored.toISOString() : textOf(stored);
    default:
      return textOf(stored);
  }
}

/** What `->>` gives for a stored JSON value. */
function textOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value);
}

function timeOf(value: unknown): number | null {
  if (value instanceof Date) return value.getTime();
  if (typeof value !== 'string') return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : time;
}

function equals(value: unknown, wanted: FilterScalar, target: FilterTarget): boolean {
  if (target.jsonPath || target.kind === 'json') return jsonEquals(value, wanted);
  if (target.kind === 'numeric') return compareNumeric(value, wanted) === 0;
  if (target.kind === 'timestamptz') return value === timeOf(wanted);
  return value === wanted;
}

/** Ordering like the SQL: numbers numerically, text in byte order; null when the types do not meet. */
function compare(value: unknown, wanted: FilterScalar, target: FilterTarget): number | null {
  if (target.jsonPath) {
    if (typeof wanted === 'number') return typeof value === 'number' ? compareNumeric(value, wanted) : null;
    return typeof value === 'string' && typeof wanted === 'string' ? compareCodePoints(value, wanted) : null;
  }
  switch (target.kind) {
    case 'numeric':
      return compareNumeric(value, wanted);
    case 'timestamptz': {
      const time = timeOf(wanted);
      return typeof value === 'number' && time !== null ? Math.sign(value - time) : null;
    }
    default:
      return typeof value === 'string' && typeof wanted === 'string' ? compareCodePoints(value, wanted) : null;
  }
}
