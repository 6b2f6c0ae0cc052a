// GraphQL names for a site's collections and fields (docs/graphql.md "Names"): a GraphQL name is
// /^[_A-Za-z][_0-9A-Za-z]*$/, while collection names may hold `-` and field names may start with a
// digit. Every character outside [_0-9A-Za-z] becomes `_`, a name that starts with a digit takes a
// leading `_`, and a name starting with `__` (reserved for introspection) takes a leading `x`. Two
// names that map to the same GraphQL name are never dropped: the first in alphabetical order of the
// original keeps it, the others take `_2`, `_3`, …, and each renaming is reported.

const VALID = /^[_A-Za-z][_0-9A-Za-z]*$/;

export function graphqlName(original: string): string {
  let name = original.replace(/[^_0-9A-Za-z]/g, '_');
  if (name === '' || /^[0-9]/.test(name)) name = `_${name}`;
  if (name.startsWith('__')) name = `x${name}`;
  return VALID.test(name) ? name : `_${name}`;
}

/** Maps originals to unique GraphQL names, none in `taken`; `warnings` says what was renamed and why. */
export function uniqueNames(originals: readonly string[], taken: ReadonlySet<string>, what: string, warnings: string[]): Map<string, string> {
  const used = new Set(taken);
  const names = new Map<string, string>();
  for (const original of [...originals].sort()) {
    const base = graphqlName(original);
    let name = base;
    for (let suffix = 2; used.has(name); suffix += 1) name = `${base}_${suffix}`;
    if (name !== base) warnings.push(`${what} "${original}" is exposed as "${name}": "${base}" is taken`);
    used.add(name);
    names.set(original, name);
  }
  return names;
}
