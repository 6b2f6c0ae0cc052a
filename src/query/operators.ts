// Which filter operator applies to which kind of field. One table, read by the validator, so the SQL
// compiler and the in-memory evaluator never see a misfit.
import { COMPARISON_OPERATORS, type ComparisonOperator, type FieldType, type ValueKind } from './types.ts';

/** A field's kind, or a dotted path into a jsonb field (whose leaf type is unknown until compared). */
export type TargetKind = ValueKind | 'jsonPath';

const EQUALITY = ['_eq', '_neq', '_in', '_nin', '_null', '_nnull'] as const;
const ORDERING = ['_lt', '_lte', '_gt', '_gte', '_between'] as const;
const TEXT_MATCHING = ['_contains', '_icontains', '_starts_with', '_ends_with'] as const;
const JSON_STRUCTURE = ['_json_contains', '_has_key', '_has_any_keys', '_has_all_keys'] as const;

const OPERATORS_BY_KIND: Record<TargetKind, ReadonlySet<ComparisonOperator>> = {
  text: new Set([...EQUALITY, ...ORDERING, ...TEXT_MATCHING]),
  numeric: new Set([...EQUALITY, ...ORDERING]),
  dateText: new Set([...EQUALITY, ...ORDERING]),
  timestamptz: new Set([...EQUALITY, ...ORDERING]),
  boolean: new Set(EQUALITY),
  json: new Set(['_eq', '_neq', '_null', '_nnull', ...JSON_STRUCTURE]),
  jsonPath: new Set([...EQUALITY, ...ORDERING, ...TEXT_MATCHING, ...JSON_STRUCTURE]),
};

const KNOWN: ReadonlySet<string> = new Set(COMPARISON_OPERATORS);

export function isComparisonOperator(key: string): key is ComparisonOperator {
  return KNOWN.has(key);
}

/**
 * A hash field stores a password hash: a query may ask only whether it is set. Any comparison would
 * be an oracle that reads the hash out one character at a time (`_starts_with`, `_gt`, ...).
 */
const HASH_FIELD_OPERATORS: ReadonlySet<ComparisonOperator> = new Set(['_null', '_nnull']);

export function operatorFits(operator: ComparisonOperator, kind: TargetKind, fieldType?: FieldType): boolean {
  if (fieldType === 'hash') return HASH_FIELD_OPERATORS.has(operator);
  return OPERATORS_BY_KIND[kind].has(operator);
}

export function operatorsFor(kind: TargetKind): ComparisonOperator[] {
  return [...OPERATORS_BY_KIND[kind]];
}
