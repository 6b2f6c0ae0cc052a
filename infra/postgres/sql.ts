// SQL written as SQL: a tagged template that turns interpolations into numbered parameters.

/**
 * How a prepared statement is planned: `auto` lets PostgreSQL switch to one generic plan once it
 * costs no more than planning for the values (a lookup by key); `custom` plans every run for its
 * values, for statements whose best plan depends on them (filters, sorts, partial indexes).
 */
export type PlanMode = 'auto' | 'custom';

export interface SqlQuery {
  readonly text: string;
  readonly values: unknown[];
  /** Set by `prepared`: the statement is prepared on each connection that runs it (database.ts). */
  readonly prepare?: PlanMode;
}

const fragmentMarker = Symbol('sqlFragment');

export interface SqlFragment extends SqlQuery {
  readonly [fragmentMarker]: true;
}

function isFragment(value: unknown): value is SqlFragment {
  return typeof value === 'object' && value !== null && fragmentMarker in value;
}

/** `sql\`select * from t where id = ${id}\`` → parameterised query; nested `sql` fragments are spliced in. */
export function sql(strings: TemplateStringsArray, ...interpolations: unknown[]): SqlFragment {
  const values: unknown[] = [];
  let text = strings[0] ?? '';
  interpolations.forEach((value, index) => {
    if (isFragment(value)) {
      text += renumber(value.text, values.length) + (strings[index + 1] ?? '');
      values.push(...value.values);
    } else {
      values.push(value);
      text += `$${values.length}` + (strings[index + 1] ?? '');
    }
  });
  return { text, values, [fragmentMarker]: true };
}

/**
 * Marks a statement to be prepared on each connection that runs it, so that later runs of the same
 * text skip PostgreSQL's parsing and rewriting (and, with `plan: 'auto'`, its planning). Each
 * connection keeps the statements it used most recently, so texts built per query shape are fine.
 */
export function prepared(query: SqlFragment, options: { plan?: PlanMode } = {}): SqlFragment {
  return { ...query, prepare: options.plan ?? 'auto' };
}

/** A trusted SQL text (an identifier we built, never user input) to splice in as is. */
export function raw(text: string): SqlFragment {
  return { text, values: [], [fragmentMarker]: true };
}

/** Joins fragments with a separator, keeping parameters numbered. */
export function join(fragments: SqlFragment[], separator = ', '): SqlFragment {
  const values: unknown[] = [];
  const parts = fragments.map((fragment) => {
    const text = renumber(fragment.text, values.length);
    values.push(...fragment.values);
    return text;
  });
  return { text: parts.join(separator), values, [fragmentMarker]: true };
}

/** Quotes an identifier (a column or table name we validated) for SQL. */
export function identifier(name: string): SqlFragment {
  return raw(`"${name.replaceAll('"', '""')}"`);
}

function renumber(text: string, offset: number): string {
  if (offset === 0) return text;
  return text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
}
