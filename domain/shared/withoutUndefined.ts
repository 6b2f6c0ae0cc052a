// An object without its keys whose value is undefined: a PATCH body's keys that were left out, before
// it is spread over the current content (null stays: it clears).
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
