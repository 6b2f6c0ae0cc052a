// jsonb semantics in JavaScript (path lookup, equality, containment `@>`, key existence `?`), so the
// in-memory evaluator agrees with PostgreSQL.
import { compareNumeric } from './compareValues.ts';

type JsonObject = { readonly [key: string]: unknown };

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isContainer(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

/** `value #> path`: undefined where PostgreSQL gives SQL NULL. */
export function jsonPathGet(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const segment of path) {
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment)) return undefined;
      current = current[Number(segment)];
    } else if (isObject(current)) {
      current = Object.hasOwn(current, segment) ? current[segment] : undefined;
    } else {
      return undefined;
    }
    if (current === undefined) return undefined;
  }
  return current;
}

/** jsonb `=`: numbers compare numerically, object key order does not matter. */
export function jsonEquals(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return compareNumeric(a, b) === 0;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((element, index) => jsonEquals(element, b[index]));
  }
  if (isObject(a) || isObject(b)) {
    if (!isObject(a) || !isObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.hasOwn(b, key) && jsonEquals(a[key], b[key]));
  }
  return a === b;
}

/** jsonb `@>`; at the top level an array also contains a bare scalar it holds as an element. */
export function jsonContains(container: unknown, contained: unknown): boolean {
  if (Array.isArray(container) && !isContainer(contained)) {
    return container.some((element) => !isContainer(element) && jsonEquals(element, contained));
  }
  return deepContains(container, contained);
}

function deepContains(container: unknown, contained: unknown): boolean {
  if (Array.isArray(container)) {
    if (!Array.isArray(contained)) return false;
    return contained.every((wanted) =>
      isContainer(wanted)
        ? container.some((element) => isContainer(element) && deepContains(element, wanted))
        : container.some((element) => !isContainer(element) && jsonEquals(element, wanted)),
    );
  }
  if (isObject(container)) {
    if (!isObject(contained)) return false;
    return Object.keys(contained).every((key) => {
      if (!Object.hasOwn(container, key)) return false;
      const have = container[key];
      const want = contained[key];
      if (isContainer(have) !== isContainer(want)) return false;
      return isContainer(want) ? deepContains(have, want) : jsonEquals(have, want);
    });
  }
  return !isContainer(contained) && jsonEquals(container, contained);
}

/** jsonb `?`: a top-level object key, a string array element, or the string itself. */
export function jsonHasKey(value: unknown, key: string): boolean {
  if (Array.isArray(value)) return value.some((element) => element === key);
  if (isObject(value)) return Object.hasOwn(value, key);
  return value === key;
}
