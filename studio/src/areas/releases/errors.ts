// The error envelope for the release forms: each entry's message at the field its path names (the
// path below `body`, matched by the form), the rest, and any the form does not show, above the form.
import { SvcError } from '@svc-cms/sdk';
import { errorText } from '../../ui/errors.ts';

export interface PlacedErrors {
  fields: Record<string, string>;
  general: string[];
}

/** `place(path)` names the form field of a body path (without `body`), or null for none. */
export function placeErrors(error: unknown, place: (path: (string | number)[]) => string | null): PlacedErrors {
  if (!error) return { fields: {}, general: [] };
  if (!(error instanceof SvcError)) return { fields: {}, general: [errorText(error)] };
  const fields: Record<string, string> = {};
  const general: string[] = [];
  for (const entry of error.errors) {
    const path = entry.path ?? [];
    const field = path[0] === 'body' ? place(path.slice(1)) : null;
    if (field !== null && fields[field] === undefined) fields[field] = `${entry.message} (${entry.code})`;
    else if (field === null) general.push(`${entry.message} (${entry.code})`);
  }
  return { fields, general };
}
