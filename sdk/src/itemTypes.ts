// The types of item queries over a site's own collection types (siteTypes.ts): field paths checked,
// filter operators by the field's type, and answers narrowed to the fields selected. Types only.

/** An item of some collection: what relation fields hold when expanded (every item has an `id`). */
interface AnyItem {
  id: string;
}

type Depths = [never, 0, 1, 2, 3];

/** The item type a relation field points at (m2o: the item; o2m: the array's item); never for other fields. */
export type RelatedOf<V> = NonNullable<V> extends readonly (infer E)[] ? (E extends AnyItem ? E : never) : NonNullable<V> extends AnyItem ? NonNullable<V> : never;

/** A field as the API answers it when not expanded: a relation's id (or ids), any other field as it is. */
export type Unexpanded<V> = V extends null ? null : V extends readonly (infer E)[] ? (E extends AnyItem ? string[] : V) : V extends AnyItem ? string : V;

/** An item with relations unexpanded: what a read without `fields` answers. */
export type Shallow<T> = { [K in keyof T]: Unexpanded<T[K]> };

/** The paths `fields` and `sort` take: a field, or through a relation `author.name` (three levels deep at most). */
export type FieldPath<T, Depth extends number = 3> = [Depth] extends [never]
  ? never
  : {
      [K in keyof T & string]: [RelatedOf<T[K]>] extends [never] ? K : K | `${K}.${FieldPath<RelatedOf<T[K]>, Depths[Depth]>}`;
    }[keyof T & string];

type Head<P extends string> = P extends `${infer H}.${string}` ? H : P;
type Rest<P extends string, H extends string> = P extends `${H}.${infer R}` ? R : never;

/** The item narrowed to the selected paths: a bare relation is its id, a relation with subpaths the related item narrowed. */
export type Selected<T, F extends string> = {
  [K in keyof T & Head<F>]: [Rest<F, K>] extends [never] ? Unexpanded<T[K]> : Expanded<T[K], Rest<F, K>>;
};

type Expanded<V, F extends string> = V extends null ? null : V extends readonly (infer E)[] ? Selected<E, F>[] : Selected<V, F>;

interface Presence {
  _null?: true;
  _nnull?: true;
}

interface StringOperators extends Presence {
  _eq?: string;
  _neq?: string;
  _in?: string[];
  _nin?: string[];
  _lt?: string;
  _lte?: string;
  _gt?: string;
  _gte?: string;
  _between?: [string, string];
  _contains?: string;
  _icontains?: string;
  _starts_with?: string;
  _ends_with?: string;
}

interface NumberOperators extends Presence {
  _eq?: number;
  _neq?: number;
  _in?: number[];
  _nin?: number[];
  _lt?: number;
  _lte?: number;
  _gt?: number;
  _gte?: number;
  _between?: [number, number];
}

interface BooleanOperators extends Presence {
  _eq?: boolean;
  _neq?: boolean;
}

/** JSON, csv, files and geometry: containment and keys. */
interface JsonOperators extends Presence {
  _json_contains?: unknown;
  _has_key?: string;
  _has_any_keys?: string[];
  _has_all_keys?: string[];
}

/** The operators a field takes, by its type; a relation takes a filter of the related item. */
export type FieldFilter<V> = [RelatedOf<V>] extends [never]
  ? NonNullable<V> extends string
    ? StringOperators
    : NonNullable<V> extends number
      ? NumberOperators
      : NonNullable<V> extends boolean
        ? BooleanOperators
        : JsonOperators
  : Filter<RelatedOf<V>>;

/** The query language's filter over an item type: `{ views: { _gt: 10 }, _or: [...] }`. */
export type Filter<T> = { [K in keyof T]?: FieldFilter<T[K]> } & { _and?: Filter<T>[]; _or?: Filter<T>[] };

/** A sort key: a field path, `-` first for descending. */
export type SortKey<T> = FieldPath<T> | `-${FieldPath<T>}`;

/** What a list takes; `fields` narrows what it answers. */
export interface ListQuery<T, F extends FieldPath<T>> {
  fields?: readonly F[];
  filter?: Filter<T>;
  sort?: readonly SortKey<T>[];
  limit?: number;
  offset?: number;
  /** Full-text search. */
  search?: string;
  /** `none` skips the total (faster on large collections). */
  meta?: 'total_count' | 'none';
}

/** The items a query answers: narrowed to `fields` when given, else the item with relations unexpanded. */
export type Answered<T, F extends string> = [F] extends [never] ? Shallow<T> : Selected<T, F>;

/** What a write takes: fields of the item (relations by id), system fields left to the service. */
export type ItemInput<T> = Partial<Omit<Shallow<T>, 'id' | 'createdAt' | 'updatedAt' | 'userCreated' | 'userUpdated'>>;
