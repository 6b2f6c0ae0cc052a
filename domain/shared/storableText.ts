// Text PostgreSQL can store. Its text and jsonb types refuse NUL; jsonb also refuses a lone UTF-16
// surrogate, which JSON allows (`"\ud800"`) and JSON.stringify writes back as that escape. Both are
// refused where input arrives, with the path of the offending value, instead of failing in SQL.

type WellFormed = { isWellFormed(): boolean };

/** Why `text` cannot be stored, or null when it can. */
export function unstorableTextReason(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain NUL characters';
  if (!(text as unknown as WellFormed).isWellFormed()) return 'must be well-formed Unicode (it holds a lone surrogate)';
  return null;
}

/**
 * The path, within `value`, of the first string or object key that cannot be stored, or null. Walks
 * parsed JSON: arrays and plain objects, to any depth (JSON.parse has bounded it already).
 */
export function findUnstorableText(value: unknown): { path: (string | number)[]; reason: string } | null {
  const found = search(value);
  // The path was gathered innermost first, on the way back.
  if (found) found.path.reverse();
  return found;
}

function search(value: unknown): { path: (string | number)[]; reason: string } | null {
  if (typeof value === 'string') {
    const reason = unstorableTextReason(value);
    return reason === null ? null : { path: [], reason };
  }
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = search(value[index]);
      if (found) return (found.path.push(index), found);
    }
    return null;
  }
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) {
      const reason = unstorableTextReason(key);
      if (reason !== null) return { path: [key], reason: `Keys ${reason}` };
      const found = search((value as Record<string, unknown>)[key]);
      if (found) return (found.path.push(key), found);
    }
  }
  return null;
}
