// SQL written as SQL: a tagged template that turns interpolations into numbered parameters.
import { createHash } from 'node:crypto';

export interface SqlQuery {
  readonly text: string;
  readonly values: unknown[];
  /** Set by `prepared`: the statement is prepared once per connection under this name. */
  readonly name?: string;
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

const preparedNames = new Map<string, string>();

/**
 * Marks a statement whose text never varies (a write every command or projection batch sends) to
 * be prepared once per connection, so that later runs skip PostgreSQL's parsing and planning. Only
 * for constant texts: every distinct text becomes a statement each connection keeps.
 */
export function prepared(query: SqlFragment): SqlFragment {
  let name = preparedNames.get(query.text);
  if (!name) preparedNames.set(query.text, (name = `svc_${createHash('sha1').update(query.text).digest('hex').slice(0, 24)}`));
  return { ...query, name };
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
