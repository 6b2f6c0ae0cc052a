// The shapes shared by the query language: field definitions, the raw filter tree, parsed list
// queries, and the validated filter that both the SQL compiler and the in-memory evaluator consume.

import { FIELD_TYPES, type FieldType } from '../../domain/content/schemaModel.ts';

export { FIELD_TYPES, type FieldType };

export type RelationKind = 'm2o' | 'o2m' | 'm2m' | 'm2a';

export interface FieldRelation {
  kind: RelationKind;
  /** m2o: the collection pointed at. o2m/m2m/m2a: the collection holding the rows that point back (for m2m/m2a the junction). */
  relatedCollection: string;
  /** o2m/m2m/m2a: the field on `relatedCollection` that stores this item's id. */
  relatedField?: string;
}

/**
 * The item field of an m2a junction: it holds the id of an item of the collection that the row's
 * `collectionField` names, one of `allowedCollections`. Filters treat it as a plain stored value;
 * field selections can expand it (`blocks.item.title`, `blocks.item:headings.title`).
 */
export interface AnyItemReference {
  collectionField: string;
  allowedCollections: readonly string[];
}

export interface FieldDefinition {
  field: string;
  type: FieldType;
  relation?: FieldRelation;
  anyItem?: AnyItemReference;
  /**
   * A translatable field read in a language (X-Svc-Locale): it stores `{ "<lang>": value }` and
   * compares as the value of the first of these languages that has one. Dotted paths
   * (`summary.fr`) still reach into the stored map.
   */
  languages?: readonly string[];
  /** A column of a read model other than items (see readModelFields.ts); items' fields have none. */
  column?: ReadModelColumn;
  /**
   * A pii/phi field: items store references to its sealed values (docs/privacy.md), so SQL can tell
   * only whether it is set (`_null`, `_nnull`); it cannot be compared, sorted or aggregated.
   */
  sealed?: boolean;
}

/**
 * A field that is a column of a read model's table: compared as `kind`, and filtered only with
 * `operators`, the ones its indexes serve.
 */
export interface ReadModelColumn {
  name: string;
  kind: ValueKind;
  operators: readonly ComparisonOperator[];
}

export type FieldMap = ReadonlyMap<string, FieldDefinition>;

/** Gives the fields of another collection (for relational filters and nested field selections). */
export type ResolveFields = (collection: string) => FieldMap | undefined;

/** A filter as the client wrote it (JSON form, or bracket form after coercion). Validated when compiled. */
export type FilterTree = { readonly [key: string]: unknown };

export type ErrorPath = (string | number)[];

export const COMPARISON_OPERATORS = [
  '_eq',
  '_neq',
  '_lt',
  '_lte',
  '_gt',
  '_gte',
  '_in',
  '_nin',
  '_null',
  '_nnull',
  '_contains',
  '_icontains',
  '_starts_with',
  '_ends_with',
  '_between',
  '_json_contains',
  '_has_key',
  '_has_any_keys',
  '_has_all_keys',
] as const;

export type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];
export type LogicalOperator = '_and' | '_or';

/** Operators whose value is a list; in bracket form they take comma-separated values. */
export const ARRAY_OPERATORS: ReadonlySet<string> = new Set(['_in', '_nin', '_between', '_has_any_keys', '_has_all_keys']);

/** Where a sort puts items without a value: `last` unless asked (`nulls=first`), in both directions. */
export type NullsPlacement = 'first' | 'last';
export const NULLS_PLACEMENTS: readonly NullsPlacement[] = ['first', 'last'];

export interface SortSpec {
  field: string;
  direction: 'asc' | 'desc';
  /** Absent: last. */
  nulls?: NullsPlacement;
}

export const AGGREGATE_FUNCTIONS = ['count', 'countDistinct', 'sum', 'avg', 'min', 'max'] as const;
export type AggregateFunction = (typeof AGGREGATE_FUNCTIONS)[number];
export type AggregateSpec = Partial<Record<AggregateFunction, string[]>>;

export const DATE_BUCKETS = ['hour', 'day', 'week', 'month', 'year'] as const;
export type DateBucket = (typeof DATE_BUCKETS)[number];
/** A group by a date field truncated to `unit` (UTC, weeks from Monday), answered as an ISO time under the field's name. */
export interface GroupBucket {
  field: string;
  unit: DateBucket;
}

/**
 * Per-relation query parameters (`deep[author][limit]=5`); nested relations sit in `deep`, keyed by
 * field name, or for the item field of an m2a junction also by `<field>:<collection>`
 * (`deep[blocks][item:headings][filter]...`, see anyItemDeep.ts).
 */
export interface DeepQuery {
  fields: string[] | null;
  filter: FilterTree | null;
  sort: SortSpec[];
  limit: number | null;
  offset: number | null;
  page: number | null;
  deep: Record<string, DeepQuery>;
}

export interface ListQuery {
  fields: string[] | null;
  filter: FilterTree | null;
  sort: SortSpec[];
  limit: number;
  offset: number;
  page: number | null;
  meta: 'total_count' | 'none';
  aggregate: AggregateSpec | null;
  groupBy: string[];
  /** Grouped first by this date field truncated to a unit (dashboard panels, docs/insights.md); the parameters never set it. */
  bucket?: GroupBucket | null;
  deep: Record<string, DeepQuery>;
  search: string | null;
}

/**
 * How a field's value is stored and compared:
 * text (string-like, compared as text), numeric, boolean, dateText (ISO text compared as text),
 * timestamptz (structural timestamp columns), json (jsonb).
 */
export type ValueKind = 'text' | 'numeric' | 'boolean' | 'dateText' | 'timestamptz' | 'json';

/** What a validated condition compares: a field, or a path into a jsonb field. */
export interface FilterTarget {
  field: FieldDefinition;
  kind: ValueKind;
  /** For date fields: which ISO shape the stored text has. */
  dateShape: 'dateTime' | 'date' | 'time' | null;
  /** Segments below the field when the key was a dotted path into a jsonb field. */
  jsonPath: string[] | null;
}

/**
 * A scalar after coercion to the target: text for text/date kinds, a decimal string for numeric,
 * boolean, or any JSON value for json targets.
 */
export type FilterScalar = string | boolean | number | null | readonly unknown[] | { readonly [key: string]: unknown };

export type ConditionNode =
  | { kind: 'compare'; target: FilterTarget; operator: '_eq' | '_neq' | '_lt' | '_lte' | '_gt' | '_gte'; value: FilterScalar }
  | { kind: 'isNull'; target: FilterTarget; isNull: boolean }
  | { kind: 'in'; target: FilterTarget; negated: boolean; values: FilterScalar[]; includesNull: boolean }
  | { kind: 'between'; target: FilterTarget; low: FilterScalar; high: FilterScalar }
  | { kind: 'like'; target: FilterTarget; mode: 'contains' | 'icontains' | 'startsWith' | 'endsWith'; value: string }
  | { kind: 'jsonContains'; target: FilterTarget; value: unknown }
  | { kind: 'hasKeys'; target: FilterTarget; mode: 'one' | 'any' | 'all'; keys: string[] };

/** The validated filter: field names resolved, values coerced, dynamic values substituted. */
export type FilterNode =
  | { kind: 'and'; children: FilterNode[] }
  | { kind: 'or'; children: FilterNode[] }
  | { kind: 'constant'; value: boolean }
  | ConditionNode
  | {
      kind: 'relation';
      /** toOne: the field holds the related id. toMany: related rows hold this item's id in `relatedField`. */
      direction: 'toOne' | 'toMany';
      field: FieldDefinition;
      collection: string;
      relatedField: string | null;
      child: FilterNode;
    };

/** An item as the API shows it: structural keys (`id`, `createdAt`, ...) and content fields side by side. */
export type ItemRecord = { readonly [key: string]: unknown };
